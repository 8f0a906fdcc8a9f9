// The entry webview: renders one log entry. Every agent-written string goes in with textContent,
// except the content, which goes through renderMarkdown (sanitised).

import type { EntryToHost, EntryView, HostToEntry } from '../../shared/entryProtocol';
import { renderMarkdown } from '../markdown';
import { appRoot, connectPage, el, localTime, showMissing } from '../dom';

const vscode = connectPage<EntryToHost, HostToEntry>((message) => onMessage(message));
const app = appRoot();

const SOURCES: Record<string, string> = {
  sampling: "summarised by the client's model",
  openai: 'summarised by the OpenAI-compatible endpoint',
  'language-model': "summarised by the editor's language model",
  fallback: 'extract of the content (no model answered; not cached)',
};

function render(entry: EntryView, summarising: boolean, error: string | undefined): void {
  const meta = el('p', { className: 'meta' });
  meta.append(el('span', { text: entry.projectId }), ' · ', el('time', { text: localTime(entry.createdAt) }));
  if (entry.agentId) meta.append(' · ', el('span', { className: 'agent', text: entry.agentId }));

  const tags = el('ul', { className: 'tags' }, ...entry.tags.map((t) => el('li', { text: t })));

  const summary = el('section', { className: 'summary' }, el('h2', { text: 'Summary' }));
  if (entry.summary !== null) {
    summary.append(el('p', { className: 'summary-text', text: entry.summary }));
    if (entry.summarySource) summary.append(el('p', { className: 'muted', text: SOURCES[entry.summarySource] ?? entry.summarySource }));
  } else {
    summary.append(el('p', { className: 'muted', text: 'No summary is cached yet.' }));
  }
  if (entry.summary === null || entry.summarySource === 'fallback') {
    const button = el('button', { text: summarising ? 'Summarising…' : 'Summarise' });
    button.id = 'summarise';
    button.disabled = summarising;
    button.addEventListener('click', () => vscode.postMessage({ type: 'summarise' }));
    summary.append(button);
  }
  if (error) summary.append(el('p', { className: 'error', text: error }));

  const copy = el('button', { className: 'secondary', text: 'Copy ID' });
  copy.addEventListener('click', () => vscode.postMessage({ type: 'copyId' }));
  const header = el('header', {}, el('h1', { text: entry.title }), meta, tags, el('p', { className: 'id' }, el('code', { text: entry.id }), ' ', copy));
  if (entry.sessionId) {
    const open = el('button', { className: 'secondary', text: 'Open Agent Session' });
    open.id = 'open-session';
    open.addEventListener('click', () => vscode.postMessage({ type: 'openSession' }));
    header.append(el('p', { className: 'muted' }, `Session digest of ${entry.sessionId} `, open));
  }

  const content = el('article', { className: 'content' });
  content.append(renderMarkdown(entry.content));

  app.replaceChildren(header, summary, el('h2', { text: 'What was done' }), content);
}

function onMessage(message: HostToEntry): void {
  if (message.type === 'entry') render(message.entry, message.summarising, message.error);
  else if (message.type === 'missing') showMissing(app, message.message);
}
