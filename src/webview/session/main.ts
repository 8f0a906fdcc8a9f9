// The agent-session webview: a session's turns as a timeline, each step's tool calls as chips with
// failed ones highlighted, insights, sub-agents and ledger entries. Every agent-written string
// goes in with textContent; a tool call's event opens in place as preformatted text.

import type { EventDetail, HostToSession, SessionPage, SessionToHost, SessionToolCall, SessionTurn } from '../../shared/sessionProtocol';
import { appRoot, connectPage, el, localTime, showMissing } from '../dom';
import { boldSegments } from './boldText';

const vscode = connectPage<SessionToHost, HostToSession>((message) => onMessage(message));
const app = appRoot();
/** Event panes open now, by event index, kept across re-renders. */
const openEvents = new Map<number, HTMLElement>();
/** The call's own pane inside its box (openEvents holds the box under the call's index). */
const callPanes = new Map<number, HTMLElement>();

/** Agent text with its `**bold**` in <strong>, every part as a text node (never markup). */
function withBold(node: HTMLElement, text: string): HTMLElement {
  for (const s of boldSegments(text)) node.append(s.bold ? el('strong', { text: s.text }) : s.text);
  return node;
}

function clock(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString();
}

function compact(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function stat(label: string, value: string, className = ''): HTMLElement {
  return el('div', { className: `stat ${className}`.trim() }, el('span', { className: 'value', text: value }), el('span', { className: 'label', text: label }));
}

function linkButton(text: string, onClick: () => void, className = 'link'): HTMLButtonElement {
  const b = el('button', { className, text });
  b.addEventListener('click', onClick);
  return b;
}

function renderDetail(pane: HTMLElement, detail: EventDetail | null, error: string | undefined): void {
  pane.replaceChildren();
  if (!detail) {
    pane.append(el('p', { className: 'error', text: error ?? 'Not found.' }));
    return;
  }
  pane.append(el('p', { className: 'muted', text: `${detail.type}${detail.timestamp ? ` · ${localTime(detail.timestamp)}` : ''}` }));
  const payload = detail.payload as Record<string, unknown> | null;
  const output = payload && typeof payload === 'object' && 'output' in payload ? payload.output : undefined;
  if (typeof output === 'string') {
    pane.append(el('pre', { className: 'output', text: output }));
    const rest = { ...payload };
    delete rest.output;
    pane.append(el('pre', { className: 'meta-json', text: JSON.stringify(rest, null, 2) }));
  } else {
    pane.append(el('pre', { text: JSON.stringify(detail.payload, null, 2) }));
  }
}

function toolChip(tool: SessionToolCall, host: HTMLElement): HTMLElement {
  const failed = tool.status === 'error';
  const nonZero = !failed && tool.exitCode !== null && tool.exitCode !== 0;
  const mark = failed ? '✗ ' : tool.status === 'cancelled' ? '⊘ ' : tool.status === 'pending' ? '… ' : nonZero ? '! ' : '';
  const chip = el('button', {
    className: `tool ${tool.status}${nonZero ? ' nonzero' : ''}`,
    text: `${mark}${tool.label}`,
    title: `${tool.name}: ${failed ? 'failed' : tool.status}${tool.exitCode !== null ? `, exit ${tool.exitCode}` : ''} (event ${tool.eventIndex}). Click for details.`,
  });
  chip.dataset.event = String(tool.eventIndex);
  if (tool.resultEventIndex !== null) chip.dataset.result = String(tool.resultEventIndex);
  chip.addEventListener('click', () => toggleEvent(tool.eventIndex, host, tool.resultEventIndex));
  return chip;
}

/** Opens (or closes) a tool call's pane: its call and its result, each fetched from the host. */
function toggleEvent(eventIndex: number, host: HTMLElement, resultIndex: number | null = null): void {
  const existing = openEvents.get(eventIndex);
  if (existing) {
    existing.remove();
    openEvents.delete(eventIndex);
    if (resultIndex !== null) openEvents.delete(resultIndex);
    return;
  }
  const box = el('div', { className: 'event-box' });
  const ask = (index: number, label: string): void => {
    const pane = el('div', { className: 'event', text: 'Loading…' });
    pane.dataset.event = String(index);
    box.append(el('p', { className: 'event-label', text: label }), pane);
    openEvents.set(index, pane);
    vscode.postMessage({ type: 'showEvent', eventIndex: index });
  };
  host.append(box);
  ask(eventIndex, resultIndex === null ? 'Event' : 'Call');
  if (resultIndex !== null) ask(resultIndex, 'Result');
  // Closing removes the whole box, found through the call's entry.
  openEvents.set(eventIndex, box);
  const callPane = box.querySelector<HTMLElement>(`.event[data-event="${eventIndex}"]`);
  if (callPane) callPanes.set(eventIndex, callPane);
}

function renderTurn(turn: SessionTurn): HTMLElement {
  const card = el('section', { className: `turn ${turn.outcome}${turn.failed > 0 ? ' has-failures' : ''}` });
  card.id = `turn-${turn.index}`;
  const head = el('header', {}, el('span', { className: 'turn-index', text: `Turn ${turn.index}` }), el('span', { className: 'muted', text: clock(turn.timestamp) }));
  head.append(el('span', { className: 'muted', text: `${turn.toolCalls} tool calls${turn.failed > 0 ? `, ${turn.failed} failed` : ''} · ${compact(turn.tokens)} tokens` }));
  card.append(head);
  if (turn.userMessage !== null) card.append(el('blockquote', { className: turn.human ? 'prompt' : 'prompt synthetic', text: turn.userMessage }));
  else card.append(el('p', { className: 'muted', text: 'No prompt: the agent started on its own (a sub-agent or a resumed session).' }));
  const steps = el('ol', { className: 'steps' });
  for (const step of turn.steps) {
    const li = el('li', { className: 'step' });
    if (step.reasoning) li.append(withBold(el('p', { className: 'reasoning' }), step.reasoning));
    if (step.message) li.append(withBold(el('p', { className: 'message' }), step.message));
    if (step.tools.length > 0) {
      const chips = el('div', { className: 'tools' });
      const details = el('div', { className: 'details' });
      for (const tool of step.tools) chips.append(toolChip(tool, details));
      li.append(chips, details);
    }
    steps.append(li);
  }
  card.append(steps);
  return card;
}

function render(page: SessionPage, focusEvent: number | undefined): void {
  openEvents.clear();
  callPanes.clear();
  const s = page.session;
  const header = el('header', { className: 'session-header' }, el('h1', { text: s.title }));
  const meta = el('p', { className: 'meta' });
  meta.append(el('span', { className: 'provider', text: s.providerLabel }));
  if (s.kind !== 'main') meta.append(' · ', el('span', { text: s.kind }));
  if (s.projectPath) meta.append(' · ', el('span', { text: s.projectPath }));
  if (s.gitBranch) meta.append(' · ', el('span', { text: s.gitBranch }));
  meta.append(' · ', el('span', { text: `${localTime(s.start)}${s.durationSeconds !== null ? ` (${Math.max(1, Math.round(s.durationSeconds / 60))} min)` : ''}` }));
  const stats = el(
    'div',
    { className: 'stats' },
    stat('health', String(s.score), s.score >= 80 ? 'good' : s.score >= 50 ? 'fair' : 'poor'),
    stat('turns', String(s.turns)),
    stat('tool calls', String(s.toolCalls)),
    stat('failed', String(s.failedToolCalls), s.failedToolCalls > 0 ? 'poor' : ''),
    stat('tokens', compact(s.tokens)),
  );
  const actions = el(
    'p',
    { className: 'actions' },
    el('code', { text: s.id }),
    ' ',
    linkButton('Copy ID', () => vscode.postMessage({ type: 'copyId' }), 'secondary'),
  );
  const firstFailure = page.turns.flatMap((t) => t.steps.flatMap((st) => st.tools)).find((t) => t.status === 'error');
  if (firstFailure)
    actions.append(
      ' ',
      linkButton('Jump to first failure', () => focus(firstFailure.eventIndex), 'secondary'),
    );
  header.append(meta, stats, actions);
  if (page.parentId)
    header.append(
      el(
        'p',
        { className: 'muted' },
        'Part of ',
        linkButton(page.parentId, () => vscode.postMessage({ type: 'openSession', id: page.parentId! })),
      ),
    );
  if (s.models.length > 0) header.append(el('p', { className: 'muted', text: `Models: ${s.models.join(', ')}` }));

  const sections: HTMLElement[] = [header];
  if (page.insights.length > 0) {
    const list = el('ul', { className: 'insights' });
    for (const i of page.insights) {
      const item = el('li', { className: `insight ${i.severity.toLowerCase()}` }, el('span', { className: 'severity', text: i.severity }), ' ', el('span', { text: i.message }));
      if (i.impact > 0) item.append(el('span', { className: 'impact', text: ` −${i.impact}` }));
      if (i.eventIndex !== null)
        item.append(
          ' ',
          linkButton('show', () => focus(i.eventIndex!)),
        );
      list.append(item);
    }
    sections.push(el('h2', { text: 'Health' }), list);
  }
  if (page.children.length > 0) {
    const list = el('ul', { className: 'children' });
    for (const c of page.children)
      list.append(
        el(
          'li',
          {},
          linkButton(c.title, () => vscode.postMessage({ type: 'openSession', id: c.id })),
          el('span', { className: 'muted', text: ` ${c.kind} · ${c.toolCalls} tool calls${c.failedToolCalls > 0 ? `, ${c.failedToolCalls} failed` : ''}` }),
        ),
      );
    sections.push(el('h2', { text: 'Sub-agents' }), list);
  }
  if (page.ledger.length > 0) {
    const list = el('ul', { className: 'ledger' });
    for (const l of page.ledger) {
      list.append(
        el(
          'li',
          {},
          el('span', { className: 'muted', text: `${clock(l.at)} ${l.toolset}${l.agentId ? ` · ${l.agentId}` : ''} · ` }),
          linkButton(l.title, () => vscode.postMessage({ type: 'openEntry', id: l.id, projectId: l.projectId })),
        ),
      );
    }
    sections.push(el('h2', { text: 'Recorded in the ledger during this session' }), list);
  }
  sections.push(el('h2', { text: 'Timeline' }));
  const timeline = el('div', { className: 'timeline' }, ...page.turns.map(renderTurn));
  sections.push(timeline);
  if (page.moreTurns > 0)
    sections.push(el('p', { className: 'muted', text: `${page.moreTurns} more turns are not shown; ask an agent with get_session_details to page through them.` }));
  if (page.malformedLines > 0)
    sections.push(el('p', { className: 'muted', text: `${page.malformedLines} unreadable line(s) skipped (a record cut off, or one still being written).` }));
  app.replaceChildren(...sections);
  if (focusEvent !== undefined) focus(focusEvent);
}

function focus(eventIndex: number): void {
  let chip = app.querySelector<HTMLElement>(`button.tool[data-event="${eventIndex}"]`);
  if (!chip) {
    // A result or a message: the nearest tool call before it.
    const chips = [...app.querySelectorAll<HTMLElement>('button.tool')].filter((c) => Number(c.dataset.event) <= eventIndex);
    chip = chips.at(-1) ?? null;
  }
  if (!chip) return;
  chip.scrollIntoView({ block: 'center' });
  chip.classList.add('focused');
  const index = Number(chip.dataset.event);
  const result = chip.dataset.result === undefined ? null : Number(chip.dataset.result);
  const details = chip.parentElement?.nextElementSibling as HTMLElement | null;
  if (details && !openEvents.has(index)) toggleEvent(index, details, result);
}

function onMessage(message: HostToSession): void {
  if (message.type === 'session') render(message.page, message.focusEvent);
  else if (message.type === 'event') {
    const pane = callPanes.get(message.eventIndex) ?? openEvents.get(message.eventIndex);
    if (pane) renderDetail(pane, message.detail, message.error);
  } else if (message.type === 'missing') showMissing(app, message.message);
}
