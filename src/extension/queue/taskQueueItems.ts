// The Task Queue tree as plain data: projects, a group per status with its count, tasks (a running
// task shows its agent and the lease time left). No vscode import: unit-tested directly.

import type { QueueProject, Task, TaskStatus } from '../../core/queue/types';
import { CommandIds } from '../commandIds';
import { relativeTime } from '../views/format';
import { type TreeRow, messageRow, showMoreRow } from '../views/treeRow';

export type TaskQueueNode =
  | { kind: 'queueProject'; project: QueueProject; expanded: boolean }
  | { kind: 'status'; projectId: string; status: TaskStatus; count: number; closed: boolean }
  | { kind: 'task'; task: Task }
  | { kind: 'moreTasks'; projectId: string; status: TaskStatus; shown: number; total: number }
  | { kind: 'message'; id: string; text: string; icon: 'error' | 'info' };

export type QueueItemData = TreeRow;

/** Status groups in the order a person reads a queue. */
export const STATUS_ORDER: readonly TaskStatus[] = ['running', 'queued', 'failed', 'completed', 'cancelled'];

const STATUS_ICON: Record<TaskStatus, [string, string | undefined]> = {
  running: ['sync', 'charts.blue'],
  queued: ['clock', undefined],
  failed: ['error', 'charts.red'],
  completed: ['pass', 'charts.green'],
  cancelled: ['circle-slash', undefined],
};

export function leaseLeft(expiresAt: string | null, now: Date): string {
  if (!expiresAt) return '';
  const ms = Date.parse(expiresAt) - now.getTime();
  if (ms <= 0) return 'lease expired';
  if (ms < 60_000) return `${Math.ceil(ms / 1000)}s left`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m ${Math.floor((ms % 60_000) / 1000)}s left`;
  return `${Math.floor(ms / 3_600_000)}h ${Math.floor((ms % 3_600_000) / 60_000)}m left`;
}

export function countOf(project: QueueProject, status: TaskStatus): number {
  const s = project.stats;
  return { queued: s.queuedTasks, running: s.runningTasks, completed: s.completedTasks, failed: s.failedTasks, cancelled: s.cancelledTasks }[status];
}

function firstLine(text: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

export function toQueueItemData(node: TaskQueueNode, now: Date): QueueItemData {
  switch (node.kind) {
    case 'queueProject': {
      const p = node.project;
      const s = p.stats;
      return {
        id: `queue:${p.id}`,
        label: p.id,
        description: `${p.status === 'closed' ? 'closed · ' : ''}${s.runningTasks} running · ${s.queuedTasks} queued · ${s.completedTasks} done${s.failedTasks ? ` · ${s.failedTasks} failed` : ''}`,
        tooltip: {
          title: p.id,
          lines: [p.description, `${s.totalTasks} tasks; leases ${p.config.defaultLeaseDurationMinutes} min, ${p.config.defaultMaxRetries} retries by default`].filter(Boolean),
        },
        iconId: p.status === 'closed' ? 'lock' : 'checklist',
        contextValue: p.status === 'closed' ? 'queueProjectClosed' : 'queueProject',
        collapsible: node.expanded ? 'expanded' : 'collapsed',
      };
    }
    case 'status': {
      const [icon, color] = STATUS_ICON[node.status];
      return {
        id: `queue:${node.projectId}:${node.status}`,
        label: node.status[0]!.toUpperCase() + node.status.slice(1),
        description: String(node.count),
        iconId: icon,
        ...(color ? { iconColor: color } : {}),
        contextValue: `queueStatus-${node.status}`,
        collapsible: node.count === 0 ? 'none' : node.status === 'running' || (node.status === 'queued' && !node.closed) ? 'expanded' : 'collapsed',
      };
    }
    case 'task': {
      const t = node.task;
      const parts: string[] = [];
      if (t.status === 'running') parts.push(t.assignedTo ?? '?', leaseLeft(t.leaseExpiresAt, now));
      else if (t.status === 'queued') parts.push(`queued ${relativeTime(t.createdAt, now)}${t.retryCount ? `, retry ${t.retryCount}/${t.maxRetries}` : ''}`);
      else if (t.completedAt) parts.push(`${t.assignedTo ? `${t.assignedTo} · ` : ''}${relativeTime(t.completedAt, now)}${t.failureReason ? ` · ${t.failureReason}` : ''}`);
      return {
        id: `task:${t.id}`,
        label: firstLine(t.instructions) || t.id,
        description: parts.join(' · '),
        tooltip: { title: firstLine(t.instructions) || t.id, lines: [`${t.id} · ${t.status}`, ...(t.result ? [t.result] : [])] },
        iconId: STATUS_ICON[t.status][0],
        ...(STATUS_ICON[t.status][1] ? { iconColor: STATUS_ICON[t.status][1] } : {}),
        contextValue: `task-${t.status}`,
        collapsible: 'none',
        command: { command: CommandIds.openTask, title: 'Open Task', arguments: [{ taskId: t.id }] },
      };
    }
    case 'moreTasks':
      return showMoreRow(`queue:${node.projectId}:${node.status}:more:${node.shown}`, node, CommandIds.showMoreTasks, [node.projectId, node.status], 'moreTasks');
    case 'message':
      return messageRow(`queue:message:${node.id}`, node);
  }
}

/** A task node, a {taskId} reference, or an id string, as a task id. */
export function taskIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string; task?: { id?: unknown }; taskId?: unknown; id?: unknown };
    if (o.kind === 'task' && typeof o.task?.id === 'string') return o.task.id;
    if (typeof o.taskId === 'string') return o.taskId;
  }
  return undefined;
}

/** A project node, a {projectId} reference, or a name string, as a project id. */
export function projectIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string; project?: { id?: unknown }; projectId?: unknown };
    if (o.kind === 'queueProject' && typeof o.project?.id === 'string') return o.project.id;
    if (typeof o.projectId === 'string') return o.projectId;
  }
  return undefined;
}

/** The status bar text while any queue has work: running and queued tasks across projects. */
export function queueStatusText(projects: readonly QueueProject[]): { text: string; tooltip: string } | undefined {
  const active = projects.filter((p) => p.stats.runningTasks + p.stats.queuedTasks > 0);
  if (active.length === 0) return undefined;
  const running = active.reduce((n, p) => n + p.stats.runningTasks, 0);
  const queued = active.reduce((n, p) => n + p.stats.queuedTasks, 0);
  return {
    text: `$(checklist) ${running} running · ${queued} queued`,
    tooltip: ['Agent Progress task queue', ...active.map((p) => `${p.id}: ${p.stats.runningTasks} running, ${p.stats.queuedTasks} queued, ${p.stats.completedTasks} done`)].join(
      '\n',
    ),
  };
}
