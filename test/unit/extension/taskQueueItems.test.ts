import * as assert from 'node:assert/strict';
import type { QueueProject, Task } from '../../../src/core/queue/types';
import { CommandIds } from '../../../src/extension/commandIds';
import { countOf, leaseLeft, projectIdOf, queueStatusText, STATUS_ORDER, taskIdOf, toQueueItemData } from '../../../src/extension/queue/taskQueueItems';

const now = new Date('2025-06-15T12:00:00Z');

const project: QueueProject = {
  id: 'email-summaries',
  name: 'email-summaries',
  description: 'Summarise each inbox thread',
  status: 'active',
  createdAt: '2025-06-15T08:00:00Z',
  updatedAt: '2025-06-15T08:00:00Z',
  closedAt: null,
  config: { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 10, reaperIntervalMinutes: 1 },
  stats: { totalTasks: 9, queuedTasks: 4, runningTasks: 2, completedTasks: 2, failedTasks: 1, cancelledTasks: 0 },
};

function task(over: Partial<Task>): Task {
  return {
    id: 'tsk_1',
    projectId: 'email-summaries',
    typeId: 'type_1',
    instructions: 'Summarise thread 42\n\nKeep it short.',
    variables: null,
    status: 'queued',
    assignedTo: null,
    leaseExpiresAt: null,
    retryCount: 0,
    maxRetries: 3,
    leaseDurationMinutes: 10,
    createdAt: '2025-06-15T11:55:00Z',
    assignedAt: null,
    completedAt: null,
    result: null,
    failureReason: null,
    ...over,
  };
}

describe('Task Queue rows', () => {
  it('shows a project with its counts, and a closed one as closed', () => {
    const data = toQueueItemData({ kind: 'queueProject', project, expanded: true }, now);
    assert.equal(data.label, 'email-summaries');
    assert.equal(data.description, '2 running · 4 queued · 2 done · 1 failed');
    assert.equal(data.contextValue, 'queueProject');
    assert.equal(data.collapsible, 'expanded');
    const closed = toQueueItemData({ kind: 'queueProject', project: { ...project, status: 'closed' }, expanded: false }, now);
    assert.match(closed.description ?? '', /^closed · /);
    assert.equal(closed.contextValue, 'queueProjectClosed');
    assert.equal(closed.iconId, 'lock');
  });

  it('groups by status in reading order, running and queued open, empty groups flat', () => {
    assert.deepEqual(STATUS_ORDER, ['running', 'queued', 'failed', 'completed', 'cancelled']);
    assert.deepEqual(
      STATUS_ORDER.map((s) => countOf(project, s)),
      [2, 4, 1, 2, 0],
    );
    const running = toQueueItemData({ kind: 'status', projectId: project.id, status: 'running', count: 2, closed: false }, now);
    assert.equal(running.label, 'Running');
    assert.equal(running.description, '2');
    assert.equal(running.collapsible, 'expanded');
    assert.equal(toQueueItemData({ kind: 'status', projectId: project.id, status: 'completed', count: 2, closed: false }, now).collapsible, 'collapsed');
    assert.equal(toQueueItemData({ kind: 'status', projectId: project.id, status: 'cancelled', count: 0, closed: false }, now).collapsible, 'none');
  });

  it('shows a running task with its agent and the lease left, opening the task on click', () => {
    const data = toQueueItemData({ kind: 'task', task: task({ status: 'running', assignedTo: 'worker-1', leaseExpiresAt: '2025-06-15T12:03:20Z' }) }, now);
    assert.equal(data.label, 'Summarise thread 42');
    assert.equal(data.description, 'worker-1 · 3m 20s left');
    assert.equal(data.contextValue, 'task-running');
    assert.deepEqual(data.command, { command: CommandIds.openTask, title: 'Open Task', arguments: [{ taskId: 'tsk_1' }] });
  });

  it('shows a queued retry and a failed task with its reason', () => {
    assert.equal(toQueueItemData({ kind: 'task', task: task({ retryCount: 1 }) }, now).description, 'queued 5m ago, retry 1/3');
    const failed = toQueueItemData(
      { kind: 'task', task: task({ status: 'failed', assignedTo: 'worker-2', completedAt: '2025-06-15T11:00:00Z', failureReason: 'timeout', result: 'Lease expired' }) },
      now,
    );
    assert.equal(failed.description, 'worker-2 · 1h ago · timeout');
    assert.equal(failed.iconColor, 'charts.red');
    assert.deepEqual(failed.tooltip?.lines, ['tsk_1 · failed', 'Lease expired']);
  });

  it('counts a lease down in seconds, minutes and hours, and says when it has run out', () => {
    assert.equal(leaseLeft('2025-06-15T12:00:42Z', now), '42s left');
    assert.equal(leaseLeft('2025-06-15T13:30:00Z', now), '1h 30m left');
    assert.equal(leaseLeft('2025-06-15T11:59:00Z', now), 'lease expired');
    assert.equal(leaseLeft(null, now), '');
  });

  it('shortens long instructions to their first line and offers more tasks by page', () => {
    const long = toQueueItemData({ kind: 'task', task: task({ instructions: `\n${'x'.repeat(200)}` }) }, now);
    assert.equal(long.label.length, 90);
    assert.ok(long.label.endsWith('…'));
    const more = toQueueItemData({ kind: 'moreTasks', projectId: 'p', status: 'queued', shown: 50, total: 400 }, now);
    assert.equal(more.label, 'Show more (50 of 400)');
    assert.deepEqual(more.command?.arguments, ['p', 'queued']);
  });
});

describe('queue command arguments', () => {
  it('take a task from a tree node, a reference or an id', () => {
    assert.equal(taskIdOf({ kind: 'task', task: task({ id: 'tsk_9' }) }), 'tsk_9');
    assert.equal(taskIdOf({ taskId: 'tsk_8' }), 'tsk_8');
    assert.equal(taskIdOf(' tsk_7 '), 'tsk_7');
    assert.equal(taskIdOf({}), undefined);
    assert.equal(taskIdOf(''), undefined);
  });

  it('take a project from a tree node, a reference or a name', () => {
    assert.equal(projectIdOf({ kind: 'queueProject', project }), 'email-summaries');
    assert.equal(projectIdOf({ projectId: 'p2' }), 'p2');
    assert.equal(projectIdOf('p3'), 'p3');
    assert.equal(projectIdOf(undefined), undefined);
  });
});

describe('Task Queue status bar', () => {
  it('sums running and queued tasks across projects, and hides when there is no work', () => {
    const other: QueueProject = { ...project, id: 'docs', stats: { totalTasks: 3, queuedTasks: 1, runningTasks: 1, completedTasks: 1, failedTasks: 0, cancelledTasks: 0 } };
    const idle: QueueProject = { ...project, id: 'idle', stats: { totalTasks: 2, queuedTasks: 0, runningTasks: 0, completedTasks: 2, failedTasks: 0, cancelledTasks: 0 } };
    const status = queueStatusText([project, other, idle]);
    assert.equal(status?.text, '$(checklist) 3 running · 5 queued');
    assert.deepEqual(status?.tooltip.split('\n'), ['Agent Progress task queue', 'email-summaries: 2 running, 4 queued, 2 done', 'docs: 1 running, 1 queued, 1 done']);
    assert.equal(queueStatusText([idle]), undefined);
    assert.equal(queueStatusText([]), undefined);
  });
});
