// The task webview: one queue task with its attempts. Every agent-written string goes in with
// textContent, except the instructions and the result, which go through renderMarkdown (sanitised).

import type { HostToTask, TaskPageView, TaskToHost } from '../../shared/taskProtocol';
import { renderMarkdown } from '../markdown';
import { appRoot, connectPage, el, localTime, showMissing } from '../dom';

const vscode = connectPage<TaskToHost, HostToTask>((message) => onMessage(message));
const app = appRoot();
let countdown: number | undefined;

/** A time of the task, or a dash when it has none. */
function when(iso: string | null): string {
  return localTime(iso, '—');
}

function left(iso: string | null): string {
  if (!iso) return '';
  const ms = Date.parse(iso) - Date.now();
  if (ms <= 0) return 'lease expired; the reaper will requeue it';
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s of lease left`;
}

function button(text: string, message: TaskToHost, options: { secondary?: boolean; disabled?: boolean; id?: string } = {}): HTMLButtonElement {
  const b = el('button', { text, ...(options.secondary ? { className: 'secondary' } : {}) });
  if (options.id) b.id = options.id;
  b.disabled = options.disabled ?? false;
  b.addEventListener('click', () => vscode.postMessage(message));
  return b;
}

function render(view: TaskPageView, busy: boolean, error: string | undefined): void {
  const t = view.task;
  if (countdown !== undefined) window.clearInterval(countdown);
  countdown = undefined;

  const status = el('span', { className: `status status-${t.status}`, text: t.status });
  const meta = el('p', { className: 'meta' }, t.projectId, ' · type ', el('span', { text: view.typeName }), ' · ', status);
  if (t.assignedTo) meta.append(' · ', el('span', { className: 'agent', text: t.assignedTo }));
  const lease = el('p', { className: 'lease' });
  if (t.status === 'running') {
    lease.textContent = left(t.leaseExpiresAt);
    countdown = window.setInterval(() => (lease.textContent = left(t.leaseExpiresAt)), 1000);
  }

  const actions = el('p', { className: 'actions' });
  const requeueable = t.status === 'running' || t.status === 'failed' || t.status === 'cancelled';
  const cancellable = t.status === 'queued' || t.status === 'running';
  if (requeueable && !view.projectClosed)
    actions.append(button(t.status === 'running' ? 'Take back and requeue' : 'Requeue', { type: 'requeue' }, { disabled: busy, id: 'requeue' }), ' ');
  if (cancellable) actions.append(button('Cancel task', { type: 'cancel' }, { secondary: true, disabled: busy, id: 'cancel' }), ' ');
  actions.append(button('Copy ID', { type: 'copyId' }, { secondary: true }));
  if (error) actions.append(el('span', { className: 'error', text: ` ${error}` }));

  const header = el('header', {}, el('h1', { text: `Task ${t.id}` }), meta, lease, actions);

  const facts = el('table', { className: 'facts' });
  const row = (k: string, v: string) => facts.append(el('tr', {}, el('th', { text: k }), el('td', { text: v })));
  row('Created', when(t.createdAt));
  if (t.assignedAt) row('Assigned', when(t.assignedAt));
  if (t.completedAt) row(t.status === 'cancelled' ? 'Cancelled' : 'Finished', when(t.completedAt));
  row('Retries', `${t.retryCount} of ${t.maxRetries}`);
  row('Lease', `${t.leaseDurationMinutes} min`);

  const sections: Node[] = [header, el('h2', { text: 'Instructions' })];
  const instructions = el('article', { className: 'content' });
  instructions.append(renderMarkdown(t.instructions));
  sections.push(instructions);

  const variables = Object.entries(t.variables ?? {});
  if (variables.length > 0) {
    const table = el('table', { className: 'variables' });
    for (const [k, v] of variables) table.append(el('tr', {}, el('th', { text: k }), el('td', {}, el('code', { text: v }))));
    sections.push(el('h2', { text: 'Variables' }), table);
  }

  if (t.result) {
    const result = el('article', { className: `content result${t.status === 'failed' ? ' failed' : ''}` });
    result.append(renderMarkdown(t.result));
    sections.push(el('h2', { text: t.status === 'failed' ? 'Why it failed' : 'Result' }), result);
  }

  sections.push(el('h2', { text: 'Details' }), facts);

  const attempts = el('table', { className: 'attempts' });
  attempts.append(el('tr', {}, ...['#', 'Agent', 'Started', 'Ended', 'Outcome', 'Explanation'].map((h) => el('th', { text: h }))));
  t.attempts.forEach((a, i) => {
    attempts.append(
      el(
        'tr',
        {},
        el('td', { text: String(i + 1) }),
        el('td', { text: a.agentName }),
        el('td', { text: when(a.startedAt) }),
        el('td', { text: a.completedAt ? when(a.completedAt) : 'running' }),
        el('td', { className: `status-${a.status}`, text: a.failureReason ? `${a.status} (${a.failureReason})` : a.status }),
        el('td', { text: a.explanation ?? '' }),
      ),
    );
  });
  sections.push(
    el('h2', { text: `Attempts (${t.attempts.length})` }),
    t.attempts.length > 0 ? attempts : el('p', { className: 'muted', text: 'No agent has taken this task yet.' }),
  );

  app.replaceChildren(...sections);
}

function onMessage(message: HostToTask): void {
  if (message.type === 'task') render(message.view, message.busy, message.error);
  else if (message.type === 'missing') showMissing(app, message.message);
}
