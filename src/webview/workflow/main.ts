// The workflow webview: progress, the plan, the tasks and subtasks with their outcome and files
// changed (each opens its diff), and the timeline. Every agent-written string goes in with
// textContent; nothing is parsed as HTML.

import type { FileView, HostToWorkflow, TaskView, TimelineItem, WorkflowPage, WorkflowToHost } from '../../shared/workflowProtocol';
import { appRoot, connectPage, el, localTime, showMissing } from '../dom';

const vscode = connectPage<WorkflowToHost, HostToWorkflow>((message) => onMessage(message));
const app = appRoot();

function duration(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m ${seconds % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

const STATUS: Record<TaskView['status'], { label: string; glyph: string }> = {
  in_progress: { label: 'running', glyph: '⟳' },
  success: { label: 'success', glyph: '✓' },
  partial_success: { label: 'partial success', glyph: '◐' },
  failed: { label: 'failed', glyph: '✗' },
};

const KIND: Record<TimelineItem['kind'], string> = {
  workflow_started: 'workflow',
  task_started: 'started',
  decision: 'decision',
  issue: 'issue',
  milestone: 'milestone',
  task_completed: 'completed',
};

function bar(percent: number, label: string): HTMLElement {
  const outer = el('div', { className: 'bar', title: label });
  outer.setAttribute('role', 'progressbar');
  outer.setAttribute('aria-valuemin', '0');
  outer.setAttribute('aria-valuemax', '100');
  outer.setAttribute('aria-valuenow', String(Math.round(percent)));
  outer.setAttribute('aria-label', label);
  const inner = el('div', { className: 'fill' });
  inner.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  outer.append(inner);
  return outer;
}

function fileRow(task: TaskView, f: FileView): HTMLElement {
  const letter = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' }[f.status];
  const button = el('button', { className: 'link', text: f.status === 'renamed' && f.from ? `${f.from} → ${f.path}` : f.path, title: 'Compare with the start of the task' });
  button.addEventListener('click', () => vscode.postMessage({ type: 'openFile', taskId: task.id, path: f.path }));
  const row = el('li', { className: `file ${f.status}${f.inScope ? '' : ' outside'}` }, el('span', { className: 'letter', text: letter }), button);
  if (!f.inScope) row.append(el('span', { className: 'badge warn', text: 'outside scope' }));
  return row;
}

function taskCard(task: TaskView, focus: boolean): HTMLElement {
  const status = STATUS[task.status];
  const head = el('div', { className: 'task-head' }, el('span', { className: `status ${task.status}`, text: status.glyph, title: status.label }), el('h3', { text: task.name }));
  const meta = [status.label, task.durationSeconds !== null ? duration(task.durationSeconds) : `started ${localTime(task.startedAt)}`, task.snapshot];
  if (task.testsStatus) meta.push(`tests ${task.testsStatus.replace('_', ' ')}`);
  const card = el(
    'article',
    { className: `task${focus ? ' focus' : ''}` },
    head,
    el('p', { className: 'meta', text: meta.join(' · ') }),
    el('p', { className: 'goal', text: task.goal }),
  );
  card.id = `task-${task.id}`;
  card.style.marginLeft = `${Math.min(task.depth, 12) * 18}px`;
  if (task.areas.length > 0) card.append(el('ul', { className: 'tags' }, ...task.areas.map((a) => el('li', { text: a }))));
  if (task.status === 'in_progress') {
    const label = `${task.progress !== null ? `${Math.round(task.progress)}%` : 'in progress'}${task.milestone ? ` · ${task.milestone}` : ''}`;
    card.append(bar(task.progress ?? 0, label), el('p', { className: 'milestone', text: label }));
  }
  if (task.summary !== null) card.append(el('p', { className: 'summary', text: task.summary }));
  const list = (title: string, items: string[], className: string) => {
    if (items.length > 0) card.append(el('h4', { text: title }), el('ul', { className }, ...items.map((i) => el('li', { text: i }))));
  };
  list('Achievements', task.achievements, 'plain');
  list('Limitations', task.limitations, 'plain');
  list('Next steps', task.nextSteps, 'plain');
  if (task.reviewNeeded) card.append(el('p', { className: 'review', text: `Manual review needed${task.reviewReason ? `: ${task.reviewReason}` : ''}` }));
  if (task.files !== null) {
    card.append(el('h4', { text: task.filesKnown ? `Files changed (${task.files.length})` : 'Files changed: unknown' }));
    if (task.files.length > 0) card.append(el('ul', { className: 'files' }, ...task.files.map((f) => fileRow(task, f))));
  }
  if (task.commits.length > 0) card.append(el('p', { className: 'meta', text: `Commits: ${task.commits.map((c) => `${c.sha.slice(0, 7)} ${c.subject}`).join('; ')}` }));
  for (const w of task.warnings) card.append(el('p', { className: 'warning', text: w }));
  const copy = el('button', { className: 'secondary small', text: 'Copy task ID' });
  copy.addEventListener('click', () => vscode.postMessage({ type: 'copyId', id: task.id }));
  card.append(el('p', { className: 'id' }, el('code', { text: task.id }), ' ', copy));
  return card;
}

function timelineRow(item: TimelineItem): HTMLElement {
  const li = el('li', { className: `event ${item.kind}${item.review ? ' review' : ''}` });
  li.append(el('time', { text: localTime(item.at) }), el('span', { className: 'kind', text: KIND[item.kind] }));
  const body = el('div', { className: 'body' });
  if (item.taskName) body.append(el('span', { className: 'task-name', text: item.taskName }));
  body.append(el('span', { className: 'title', text: item.title }));
  if (item.progress !== null) body.append(el('span', { className: 'badge', text: `${item.progress}%` }));
  if (item.review) body.append(el('span', { className: 'badge warn', text: 'review' }));
  for (const d of item.detail) body.append(el('div', { className: 'detail', text: d }));
  li.append(body);
  return li;
}

function render(page: WorkflowPage, focusTaskId: string | undefined): void {
  const c = page.counts;
  const header = el(
    'header',
    {},
    el('h1', { text: page.name }),
    el('p', { className: 'meta', text: `${page.projectId} · started ${localTime(page.createdAt)} · ${c.total} task${c.total === 1 ? '' : 's'}` }),
  );
  if (page.description) header.append(el('p', { className: 'description', text: page.description }));

  const progress = el('section', { className: 'progress' }, el('h2', { text: 'Progress' }));
  progress.append(
    bar(page.percentDone, `${page.percentDone}% of tasks completed`),
    el('p', { className: 'meta', text: `${c.success} succeeded · ${c.partial} partial · ${c.failed} failed · ${c.running} running` }),
  );
  for (const t of page.tasks.filter((t) => t.status === 'in_progress')) {
    const label = `${t.name}: ${t.progress !== null ? `${Math.round(t.progress)}%` : 'running'}${t.milestone ? ` · ${t.milestone}` : ''}`;
    progress.append(el('p', { className: 'running', text: label }), bar(t.progress ?? 0, label));
  }

  const sections: HTMLElement[] = [header, progress];
  if (page.plan.length > 0) {
    sections.push(
      el(
        'section',
        { className: 'plan' },
        el('h2', { text: 'Plan' }),
        el('ol', {}, ...page.plan.map((s) => el('li', {}, el('strong', { text: s.step }), ' ', el('span', { text: s.goal })))),
      ),
    );
  }
  const tasks = el('section', { className: 'tasks' }, el('h2', { text: 'Tasks' }));
  if (page.tasks.length === 0) tasks.append(el('p', { className: 'muted', text: 'No task started yet.' }));
  for (const t of page.tasks) tasks.append(taskCard(t, t.id === focusTaskId));
  sections.push(tasks, el('section', { className: 'timeline' }, el('h2', { text: 'Timeline' }), el('ol', { className: 'events' }, ...page.timeline.map(timelineRow))));

  const scroll = window.scrollY;
  app.replaceChildren(...sections);
  if (focusTaskId) document.getElementById(`task-${focusTaskId}`)?.scrollIntoView({ block: 'center' });
  else window.scrollTo(0, scroll);
}

function onMessage(message: HostToWorkflow): void {
  if (message.type === 'workflow') render(message.page, message.focusTaskId);
  else if (message.type === 'missing') showMissing(app, message.message);
}
