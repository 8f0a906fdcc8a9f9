// The Workflows tree as plain data: node kinds (project, workflow, task and subtasks, groups of
// decisions, issues, milestones and files changed) and a pure mapper to what a TreeItem shows.
// No vscode import: the provider turns this into TreeItems, and unit tests check it directly.

import type { WorkflowProject } from '../../core/storage/workflowStore';
import type { DecisionData, IssueData, MilestoneData, TrackedTask, WorkflowEvent, WorkflowListing } from '../../core/workflow/types';
import { CommandIds } from '../commandIds';
import { exactTime, relativeTime } from '../views/format';
import { type TooltipData, type TreeRow, messageRow, showMoreRow } from '../views/treeRow';

export type FileChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

/** One changed file of a completed task, as the tree and the diff command see it. */
export interface FileChangeRef {
  taskId: string;
  taskName: string;
  status: FileChangeStatus;
  /** Relative to the snapshot's root. */
  path: string;
  /** The earlier path of a renamed file. */
  from?: string;
  /** Absolute path of the repository (or folder) the snapshot covers. */
  root: string | null;
  inScope: boolean;
}

/** What openWorkflow receives from a tree item or a notification. */
export interface WorkflowRef {
  workflowId: string;
  taskId?: string;
}

type Decision = Extract<WorkflowEvent, { kind: 'decision' }>;
type Issue = Extract<WorkflowEvent, { kind: 'issue' }>;
type Milestone = Extract<WorkflowEvent, { kind: 'milestone' }>;

export type GroupKind = 'decisions' | 'issues' | 'milestones' | 'files';

export type WorkflowNode =
  | { kind: 'project'; project: WorkflowProject }
  | { kind: 'workflow'; workflow: WorkflowListing }
  | { kind: 'task'; task: TrackedTask; subtasks: number; events: number }
  | { kind: 'group'; group: GroupKind; task: TrackedTask; count: number }
  | { kind: 'decision'; event: Decision; task: TrackedTask }
  | { kind: 'issue'; event: Issue; task: TrackedTask }
  | { kind: 'milestone'; event: Milestone; task: TrackedTask }
  | { kind: 'file'; file: FileChangeRef }
  | { kind: 'more'; projectId: string | undefined; shown: number; total: number }
  | { kind: 'message'; id: string; text: string; icon: 'error' | 'info' };

export type WorkflowTreeItemData = TreeRow;

export function duration(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${seconds % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

const STATUS_ICON: Record<TrackedTask['status'], { icon: string; color: string; label: string }> = {
  in_progress: { icon: 'sync~spin', color: 'charts.blue', label: 'running' },
  success: { icon: 'pass', color: 'testing.iconPassed', label: 'success' },
  partial_success: { icon: 'warning', color: 'problemsWarningIcon.foreground', label: 'partial success' },
  failed: { icon: 'error', color: 'testing.iconFailed', label: 'failed' },
};

const FILE_ICON: Record<FileChangeStatus, { icon: string; color: string; letter: string }> = {
  added: { icon: 'diff-added', color: 'gitDecoration.addedResourceForeground', letter: 'A' },
  modified: { icon: 'diff-modified', color: 'gitDecoration.modifiedResourceForeground', letter: 'M' },
  deleted: { icon: 'diff-removed', color: 'gitDecoration.deletedResourceForeground', letter: 'D' },
  renamed: { icon: 'diff-renamed', color: 'gitDecoration.renamedResourceForeground', letter: 'R' },
};

export function workflowState(w: WorkflowListing): 'running' | 'empty' | 'failed' | 'partial' | 'done' {
  if (w.running > 0) return 'running';
  if (w.taskCount === 0) return 'empty';
  if (w.failed > 0) return 'failed';
  if (w.partial > 0) return 'partial';
  return 'done';
}

/** The files a completed task changed, in the order the tree lists them. */
export function fileChanges(task: TrackedTask): FileChangeRef[] {
  const f = task.filesChanged;
  if (!f) return [];
  const outside = new Set(task.verification?.unexpected_files ?? []);
  const root = task.startSnapshot?.root ?? null;
  const base = { taskId: task.id, taskName: task.name, root };
  return [
    ...f.added.map((p): FileChangeRef => ({ ...base, status: 'added', path: p, inScope: !outside.has(p) })),
    ...f.modified.map((p): FileChangeRef => ({ ...base, status: 'modified', path: p, inScope: !outside.has(p) })),
    ...f.renamed.map((r): FileChangeRef => ({ ...base, status: 'renamed', path: r.to, from: r.from, inScope: !outside.has(r.to) && !outside.has(r.from) })),
    ...f.deleted.map((p): FileChangeRef => ({ ...base, status: 'deleted', path: p, inScope: !outside.has(p) })),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function fileCount(task: TrackedTask): number {
  const f = task.filesChanged;
  return f ? f.added.length + f.modified.length + f.deleted.length + f.renamed.length : 0;
}

/** Children of a task: its subtasks, then its decisions, issues, milestones and files as groups. */
export function taskChildren(task: TrackedTask, tasks: readonly TrackedTask[], events: readonly WorkflowEvent[]): WorkflowNode[] {
  const nodes: WorkflowNode[] = tasks.filter((t) => t.parentTaskId === task.id).map((t) => taskNode(t, tasks, events));
  const mine = events.filter((e) => e.taskId === task.id);
  const count = (kind: WorkflowEvent['kind']) => mine.filter((e) => e.kind === kind).length;
  const groups: [GroupKind, number][] = [
    ['decisions', count('decision')],
    ['issues', count('issue')],
    ['milestones', count('milestone')],
    ['files', fileCount(task)],
  ];
  for (const [group, n] of groups) if (n > 0) nodes.push({ kind: 'group', group, task, count: n });
  return nodes;
}

export function taskNode(task: TrackedTask, tasks: readonly TrackedTask[], events: readonly WorkflowEvent[]): WorkflowNode {
  return {
    kind: 'task',
    task,
    subtasks: tasks.filter((t) => t.parentTaskId === task.id).length,
    events: events.filter((e) => e.taskId === task.id && (e.kind === 'decision' || e.kind === 'issue' || e.kind === 'milestone')).length,
  };
}

export function groupChildren(group: GroupKind, task: TrackedTask, events: readonly WorkflowEvent[]): WorkflowNode[] {
  const mine = events.filter((e) => e.taskId === task.id);
  switch (group) {
    case 'decisions':
      return mine.filter((e): e is Decision => e.kind === 'decision').map((event) => ({ kind: 'decision', event, task }));
    case 'issues':
      return mine.filter((e): e is Issue => e.kind === 'issue').map((event) => ({ kind: 'issue', event, task }));
    case 'milestones':
      return mine.filter((e): e is Milestone => e.kind === 'milestone').map((event) => ({ kind: 'milestone', event, task }));
    case 'files':
      return fileChanges(task).map((file) => ({ kind: 'file', file }));
  }
}

function taskDescription(task: TrackedTask, now: Date): string {
  if (task.status === 'in_progress') {
    const parts = [task.progress !== null ? `${Math.round(task.progress)}%` : 'running'];
    if (task.milestone) parts.push(task.milestone);
    parts.push(`started ${relativeTime(task.startedAt, now)}`);
    return parts.join(' · ');
  }
  const parts = [STATUS_ICON[task.status].label, duration(task.durationSeconds)];
  const n = fileCount(task);
  if (task.filesKnown) parts.push(`${n} file${n === 1 ? '' : 's'}`);
  const outside = task.verification?.unexpected_files.length ?? 0;
  if (outside > 0) parts.push(`${outside} outside scope`);
  if (task.outcome?.manual_review_needed) parts.push('review needed');
  return parts.filter(Boolean).join(' · ');
}

function taskTooltip(task: TrackedTask): TooltipData {
  const lines = [`Goal: ${task.goal}`, `Status: ${STATUS_ICON[task.status].label}`, `Started ${exactTime(task.startedAt)}`];
  if (task.completedAt) lines.push(`Completed ${exactTime(task.completedAt)} (${duration(task.durationSeconds)})`);
  if (task.areas.length > 0) lines.push(`Areas: ${task.areas.join(', ')}`);
  const s = task.startSnapshot;
  if (s)
    lines.push(
      s.type === 'git'
        ? `Snapshot: git${s.head ? ` at ${s.head.slice(0, 7)}` : ' (no commit yet)'}${s.branch ? ` on ${s.branch}` : ''}`
        : s.type === 'checksum'
          ? `Snapshot: checksums of ${s.fileCount} files`
          : `No snapshot: ${s.note ?? ''}`,
    );
  if (task.outcome?.manual_review_needed) lines.push(`Manual review needed${task.outcome.manual_review_reason ? `: ${task.outcome.manual_review_reason}` : ''}`);
  for (const w of task.verification?.warnings ?? []) lines.push(`Warning: ${w}`);
  lines.push(`ID: ${task.id}`);
  const data: TooltipData = { title: task.name, lines };
  if (task.outcome) data.summary = task.outcome.summary;
  return data;
}

type EventNode = Extract<WorkflowNode, { kind: 'decision' | 'issue' | 'milestone' }>;

/** A decision, issue or milestone: a leaf whose click opens its task's page. */
function eventRow(node: EventNode, row: Omit<TreeRow, 'id' | 'contextValue' | 'collapsible' | 'command'>): TreeRow {
  return {
    id: `event:${node.event.id}`,
    ...row,
    contextValue: node.kind,
    collapsible: 'none',
    command: { command: CommandIds.openWorkflow, title: 'Open Workflow', arguments: [{ workflowId: node.task.workflowId, taskId: node.task.id } satisfies WorkflowRef] },
  };
}

export function toWorkflowTreeItem(node: WorkflowNode, now: Date): WorkflowTreeItemData {
  switch (node.kind) {
    case 'project': {
      const p = node.project;
      return {
        id: `wf-project:${p.projectId}`,
        label: p.projectId,
        description: `${p.workflowCount} workflow${p.workflowCount === 1 ? '' : 's'} · ${relativeTime(p.lastActivityAt, now)}`,
        iconId: 'repo',
        contextValue: 'workflowProject',
        collapsible: 'expanded',
      };
    }
    case 'workflow': {
      const w = node.workflow;
      const state = workflowState(w);
      const done = w.succeeded + w.partial + w.failed;
      const parts = [w.running > 0 ? `${w.running} running` : '', w.taskCount > 0 ? `${done}/${w.taskCount} done` : 'no tasks yet', relativeTime(w.lastActivityAt, now)];
      const icon = {
        running: ['sync~spin', 'charts.blue'],
        empty: ['circle-large-outline', ''],
        failed: ['error', 'testing.iconFailed'],
        partial: ['warning', 'problemsWarningIcon.foreground'],
        done: ['pass', 'testing.iconPassed'],
      }[state];
      const lines = [
        `Project ${w.projectId}`,
        `Started ${exactTime(w.createdAt)}`,
        `${w.taskCount} tasks: ${w.running} running, ${w.succeeded} succeeded, ${w.partial} partial, ${w.failed} failed`,
      ];
      if (w.plan.length > 0) lines.push('Plan:', ...w.plan.map((s) => `${s.step}. ${s.goal}`));
      lines.push(`ID: ${w.id}`);
      const tooltip: TooltipData = { title: w.name, lines };
      if (w.description) tooltip.summary = w.description;
      return {
        id: `workflow:${w.id}`,
        label: w.name,
        description: parts.filter(Boolean).join(' · '),
        tooltip,
        iconId: icon[0]!,
        ...(icon[1] ? { iconColor: icon[1] } : {}),
        contextValue: 'workflow',
        collapsible: state === 'running' ? 'expanded' : 'collapsed',
      };
    }
    case 'task': {
      const t = node.task;
      const icon = STATUS_ICON[t.status];
      const hasChildren = node.subtasks > 0 || node.events > 0 || fileCount(t) > 0;
      return {
        id: `task:${t.id}`,
        label: t.name,
        description: taskDescription(t, now),
        tooltip: taskTooltip(t),
        iconId: t.outcome?.manual_review_needed ? 'report' : icon.icon,
        iconColor: t.outcome?.manual_review_needed ? 'problemsWarningIcon.foreground' : icon.color,
        contextValue: t.status === 'in_progress' ? 'trackedTask.running' : 'trackedTask',
        collapsible: hasChildren ? (t.status === 'in_progress' ? 'expanded' : 'collapsed') : 'none',
      };
    }
    case 'group': {
      const labels: Record<GroupKind, [string, string]> = {
        decisions: ['Decisions', 'lightbulb'],
        issues: ['Issues', 'issues'],
        milestones: ['Milestones', 'milestone'],
        files: ['Files changed', 'diff-multiple'],
      };
      const [label, icon] = labels[node.group];
      return {
        id: `group:${node.task.id}:${node.group}`,
        label,
        description: String(node.count),
        iconId: icon,
        contextValue: `group.${node.group}`,
        collapsible: node.group === 'files' ? 'expanded' : 'collapsed',
      };
    }
    case 'decision': {
      const d: DecisionData = node.event.data;
      const lines = [`Category: ${d.category}`, `Chosen: ${d.chosen}`, `Why: ${d.reasoning}`];
      if (d.options_considered.length > 0) lines.splice(1, 0, `Options: ${d.options_considered.join(', ')}`);
      if (d.trade_offs) lines.push(`Trade-offs: ${d.trade_offs}`);
      lines.push(exactTime(node.event.createdAt));
      return eventRow(node, {
        label: d.question,
        description: `→ ${d.chosen}`,
        tooltip: { title: d.question, lines },
        iconId: 'lightbulb',
      });
    }
    case 'issue': {
      const i: IssueData = node.event.data;
      return eventRow(node, {
        label: i.description,
        description: `${i.type.replace(/_/g, ' ')}${i.requires_human_review ? ' · review requested' : ''}`,
        tooltip: {
          title: i.description,
          lines: [
            `Type: ${i.type}`,
            `Resolution: ${i.resolution}`,
            ...(i.requires_human_review ? ['A person should review this resolution.'] : []),
            exactTime(node.event.createdAt),
          ],
        },
        iconId: i.requires_human_review ? 'report' : 'issues',
        ...(i.requires_human_review ? { iconColor: 'problemsWarningIcon.foreground' } : {}),
      });
    }
    case 'milestone': {
      const m: MilestoneData = node.event.data;
      return eventRow(node, {
        label: m.message,
        description: [m.progress !== undefined ? `${m.progress}%` : '', relativeTime(node.event.createdAt, now)].filter(Boolean).join(' · '),
        tooltip: { title: m.message, lines: [exactTime(node.event.createdAt), ...(m.metadata ? [JSON.stringify(m.metadata)] : [])] },
        iconId: 'milestone',
      });
    }
    case 'file': {
      const f = node.file;
      const icon = FILE_ICON[f.status];
      const slash = f.path.lastIndexOf('/');
      const name = f.path.slice(slash + 1);
      const dir = slash > 0 ? f.path.slice(0, slash) : '';
      const parts = [f.status === 'renamed' && f.from ? `← ${f.from}` : dir, f.inScope ? '' : 'outside scope'];
      return {
        id: `file:${f.taskId}:${f.path}`,
        label: name,
        description: parts.filter(Boolean).join(' · '),
        tooltip: {
          title: f.path,
          lines: [
            `${icon.letter} ${f.status}${f.from ? ` from ${f.from}` : ''}`,
            ...(f.inScope ? [] : ['Outside the areas the task declared']),
            'Click to compare with the start of the task',
          ],
        },
        iconId: icon.icon,
        iconColor: f.inScope ? icon.color : 'problemsWarningIcon.foreground',
        contextValue: `file.${f.status}`,
        collapsible: 'none',
        command: { command: CommandIds.openFileChange, title: 'Open Changes', arguments: [f] },
      };
    }
    case 'more':
      return showMoreRow(`wf-more:${node.projectId ?? '*'}:${node.shown}`, node, CommandIds.refreshWorkflows, [{ more: node.projectId ?? '*' }]);
    case 'message':
      return messageRow(`wf-message:${node.id}`, node);
  }
}
