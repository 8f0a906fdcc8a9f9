// What the four webview pages share: building elements (agent-written text always goes in as
// textContent), the host connection (the ready handshake, typed messages, and the page state the
// host names, kept with setState so a page reopens on the same item after a window reload), and
// the missing-item notice.

import type { PageStateMessage } from '../shared/pageProtocol';
import { vscodeApi, type VsCodeApi } from './vscodeApi';

export interface ElProps {
  className?: string;
  text?: string;
  title?: string;
}

/** An element with a class, text (as textContent, never markup), a title and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElProps = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.title !== undefined) node.title = props.title;
  node.append(...children);
  return node;
}

/** A time the host sent (ISO 8601) in the reader's locale; `none` when there is none, and the
 * text as it came when it is not a time. */
export function localTime(iso: string | null, none = ''): string {
  if (!iso) return none;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** The page's root element. */
export function appRoot(): HTMLElement {
  return document.getElementById('app')!;
}

/** The message that replaces a page whose item is gone. */
export function showMissing(app: HTMLElement, message: string): void {
  app.replaceChildren(el('p', { className: 'error', text: message }));
}

/**
 * Connects a page to the host: its messages go to `onMessage` (the page state is kept, not passed
 * on), then the page says it is ready so the host posts what it shows.
 */
export function connectPage<ToHost extends { type: string }, FromHost extends { type: string }>(onMessage: (message: FromHost) => void): VsCodeApi<ToHost | { type: 'ready' }> {
  const api = vscodeApi<ToHost | { type: 'ready' }>();
  window.addEventListener('message', (event: MessageEvent<FromHost | PageStateMessage>) => {
    const message = event.data;
    if (message.type === 'pageState') api.setState((message as PageStateMessage).state);
    else onMessage(message as FromHost);
  });
  queueMicrotask(() => api.postMessage({ type: 'ready' }));
  return api;
}
