// The Workflows tree's rows, the workflow page, the status bar text and the review notification
// text, all built by pure functions from ledger data.

import * as assert from 'node:assert/strict';
import type { Snapshot, TrackedTask, WorkflowEvent, WorkflowListing } from '../../../src/core/workflow/types';
import { CommandIds } from '../../../src/extension/commandIds';
import { fileChanges, groupChildren, taskChildren, toWorkflowTreeItem } from '../../../src/extension/workflows/workflowItems';
import { toWorkflowPage } from '../../../src/extension/workflows/workflowPage';
import { reviewMessage, statusFor } from '../../../src/extension/workflows/workflowText';

const now = new Date('2025-06-15T12:00:00Z');

const snapshot: Snapshot = {
  id: 'snap00000001',
  taskId: 't1',
  role: 'start',
  type: 'git',
  root: '/repo',
  workspace: '/repo',
  head: 'abcdef1234567890abcdef1234567890abcdef12',
  branch: 'main',
  tree: 'f'.repeat(40),
  ref: 'refs/agent-progress/snapshots/snap00000001',
  manifest: null,
  fileCount: null,
  digest: null,
  createdAt: '2025-06-15T11:00:00Z',
  tookMs: 12,
  note: null,
};

function task(over: Partial<TrackedTask> = {}): TrackedTask {
  return {
    id: 't1',
    workflowId: 'w1',
    parentTaskId: null,
    name: 'Setup JWT middleware',
    goal: 'Verify tokens',
    areas: ['auth'],
    status: 'success',
    startedAt: '2025-06-15T11:00:00Z',
    completedAt: '2025-06-15T11:20:47Z',
    durationSeconds: 1247,
    progress: 100,
    milestone: 'Done',
    lastActivityAt: '2025-06-15T11:20:47Z',
    outcome: { summary: 'Middleware verifies signatures.' },
    metadata: { tests_status: 'passed' },
    verification: { scope_match: false, unexpected_files: ['package.json'], warnings: ['⚠️ 1 file(s) modified outside declared scope (auth)'] },
    filesChanged: {
      added: ['src/auth/jwt.ts'],
      modified: ['package.json'],
      deleted: ['src/auth/old.ts'],
      renamed: [{ from: 'src/auth/a.ts', to: 'src/auth/b.ts', similarity: 92 }],
    },
    filesKnown: true,
    commits: [],
    startSnapshot: snapshot,
    endSnapshot: null,
    ...over,
  };
}

const events: WorkflowEvent[] = [
  { seq: 1, id: 'e1', workflowId: 'w1', taskId: null, createdAt: '2025-06-15T10:59:00Z', review: false, kind: 'workflow_started', data: { name: 'Auth' } },
  { seq: 2, id: 'e2', workflowId: 'w1', taskId: 't1', createdAt: '2025-06-15T11:00:00Z', review: false, kind: 'task_started', data: { name: 'Setup JWT middleware' } },
  {
    seq: 3,
    id: 'e3',
    workflowId: 'w1',
    taskId: 't1',
    createdAt: '2025-06-15T11:05:00Z',
    review: false,
    kind: 'decision',
    data: { category: 'library_choice', question: 'Which JWT library?', options_considered: ['jsonwebtoken', 'jose'], chosen: 'jose', reasoning: 'Web crypto.' },
  },
  {
    seq: 4,
    id: 'e4',
    workflowId: 'w1',
    taskId: 't1',
    createdAt: '2025-06-15T11:06:00Z',
    review: true,
    kind: 'issue',
    data: { type: 'bug_encountered', description: 'Clock skew breaks exp', resolution: 'Leeway of 30 s', requires_human_review: true },
  },
  { seq: 5, id: 'e5', workflowId: 'w1', taskId: 't1', createdAt: '2025-06-15T11:10:00Z', review: false, kind: 'milestone', data: { message: 'Running tests...', progress: 75 } },
  {
    seq: 6,
    id: 'e6',
    workflowId: 'w1',
    taskId: 't1',
    createdAt: '2025-06-15T11:20:47Z',
    review: false,
    kind: 'task_completed',
    data: { status: 'success', summary: 'Middleware verifies signatures.', manual_review_needed: false, files: 4 },
  },
];

describe('Workflows tree rows', () => {
  it('shows a completed task with its status icon, duration, file count and scope', () => {
    const data = toWorkflowTreeItem({ kind: 'task', task: task(), subtasks: 0, events: 3 }, now);
    assert.equal(data.label, 'Setup JWT middleware');
    assert.equal(data.description, 'success · 20m 47s · 4 files · 1 outside scope');
    assert.deepEqual([data.iconId, data.iconColor], ['pass', 'testing.iconPassed']);
    assert.equal(data.contextValue, 'trackedTask');
    assert.equal(data.collapsible, 'collapsed');
    assert.equal(data.tooltip?.summary, 'Middleware verifies signatures.');
  });

  it('shows a running task with its latest milestone and progress, spinning', () => {
    const data = toWorkflowTreeItem(
      {
        kind: 'task',
        task: task({ status: 'in_progress', completedAt: null, durationSeconds: null, progress: 45, milestone: 'Running tests...', filesChanged: null, verification: null }),
        subtasks: 1,
        events: 0,
      },
      now,
    );
    assert.equal(data.description, '45% · Running tests... · started 1h ago');
    assert.deepEqual([data.iconId, data.contextValue, data.collapsible], ['sync~spin', 'trackedTask.running', 'expanded']);
  });

  it('gives each status its own icon, and a task that asks for review a report icon', () => {
    const icon = (over: Partial<TrackedTask>) => toWorkflowTreeItem({ kind: 'task', task: task(over), subtasks: 0, events: 0 }, now).iconId;
    assert.equal(icon({ status: 'failed' }), 'error');
    assert.equal(icon({ status: 'partial_success' }), 'warning');
    assert.equal(icon({ outcome: { summary: 's', manual_review_needed: true } }), 'report');
  });

  it('lists under a task its subtasks, then decisions, issues, milestones and files changed', () => {
    const sub = task({ id: 't2', parentTaskId: 't1', name: 'Subtask' });
    const children = taskChildren(task(), [task(), sub], events);
    assert.deepEqual(
      children.map((n) => (n.kind === 'group' ? `${n.group}:${n.count}` : n.kind === 'task' ? `task:${n.task.name}` : n.kind)),
      ['task:Subtask', 'decisions:1', 'issues:1', 'milestones:1', 'files:4'],
    );
    const issue = groupChildren('issues', task(), events)[0]!;
    const row = toWorkflowTreeItem(issue, now);
    assert.deepEqual([row.label, row.description, row.iconId], ['Clock skew breaks exp', 'bug encountered · review requested', 'report']);
    assert.deepEqual(row.command, { command: CommandIds.openWorkflow, title: 'Open Workflow', arguments: [{ workflowId: 'w1', taskId: 't1' }] });
    const decision = toWorkflowTreeItem(groupChildren('decisions', task(), events)[0]!, now);
    assert.deepEqual([decision.label, decision.description], ['Which JWT library?', '→ jose']);
  });

  it('shows a changed file by name, folder and change, marks one outside scope, and opens its diff on click', () => {
    const files = fileChanges(task());
    assert.deepEqual(
      files.map((f) => [f.status, f.path, f.inScope]),
      [
        ['modified', 'package.json', false],
        ['renamed', 'src/auth/b.ts', true],
        ['added', 'src/auth/jwt.ts', true],
        ['deleted', 'src/auth/old.ts', true],
      ],
    );
    const pkg = toWorkflowTreeItem({ kind: 'file', file: files[0]! }, now);
    assert.deepEqual([pkg.label, pkg.description, pkg.iconId, pkg.iconColor], ['package.json', 'outside scope', 'diff-modified', 'problemsWarningIcon.foreground']);
    const renamed = toWorkflowTreeItem({ kind: 'file', file: files[1]! }, now);
    assert.deepEqual([renamed.label, renamed.description, renamed.iconId], ['b.ts', '← src/auth/a.ts', 'diff-renamed']);
    assert.equal(renamed.command?.command, CommandIds.openFileChange);
    assert.deepEqual(renamed.command?.arguments, [
      { taskId: 't1', taskName: 'Setup JWT middleware', status: 'renamed', path: 'src/auth/b.ts', from: 'src/auth/a.ts', root: '/repo', inScope: true },
    ]);
  });

  it('shows a workflow with its running and done counts', () => {
    const w: WorkflowListing = {
      id: 'w1',
      projectId: 'shop',
      name: 'Auth',
      description: 'JWT auth',
      plan: [{ step: '1', goal: 'Middleware' }],
      createdAt: '2025-06-15T10:59:00Z',
      taskCount: 3,
      running: 1,
      succeeded: 1,
      partial: 0,
      failed: 1,
      lastActivityAt: '2025-06-15T11:50:00Z',
    };
    const data = toWorkflowTreeItem({ kind: 'workflow', workflow: w }, now);
    assert.equal(data.description, '1 running · 2/3 done · 10m ago');
    assert.deepEqual([data.iconId, data.collapsible], ['sync~spin', 'expanded']);
    assert.ok(data.tooltip?.lines.includes('1. Middleware'));
  });
});

describe('workflow page', () => {
  it('carries the plan, tasks with depth and files, progress and a readable timeline', () => {
    const sub = task({ id: 't2', parentTaskId: 't1', name: 'Subtask', status: 'in_progress', progress: 30, milestone: 'Halfway', filesChanged: null, completedAt: null });
    const page = toWorkflowPage({
      workflow: { id: 'w1', projectId: 'shop', name: 'Auth', description: null, plan: [{ step: '1', goal: 'Middleware' }], createdAt: '2025-06-15T10:59:00Z' },
      tasks: [task(), sub],
      events,
    });
    assert.deepEqual(page.counts, { total: 2, running: 1, success: 1, partial: 0, failed: 0 });
    assert.equal(page.percentDone, 50);
    assert.deepEqual(
      page.tasks.map((t) => [t.name, t.depth, t.files?.length ?? null]),
      [
        ['Setup JWT middleware', 0, 4],
        ['Subtask', 1, null],
      ],
    );
    assert.equal(page.tasks[0]!.snapshot, 'git snapshot at abcdef1 on main, working tree included');
    assert.deepEqual(
      page.timeline.map((i) => i.title),
      [
        'Workflow started: Auth',
        'Started Setup JWT middleware',
        'Which JWT library? → jose',
        'Clock skew breaks exp',
        'Running tests...',
        'Completed (success): Middleware verifies signatures.',
      ],
    );
    assert.equal(page.timeline[4]!.progress, 75);
    assert.equal(page.timeline[3]!.review, true);
  });
});

describe('status bar and notifications', () => {
  it('shows the one running task with its milestone progress, or a count, and hides idle ones', () => {
    const running = task({ status: 'in_progress', progress: 75, milestone: 'Running tests...', lastActivityAt: '2025-06-15T11:58:00Z' });
    const one = statusFor([{ task: running, workflowName: 'Auth', projectId: 'shop' }], now)!;
    assert.equal(one.text, '$(sync~spin) Setup JWT middleware · 75% · Running tests...');
    assert.deepEqual(one.target, { workflowId: 'w1', taskId: 't1' });
    const two = statusFor(
      [
        { task: running, workflowName: 'Auth', projectId: 'shop' },
        { task: { ...running, id: 't9', name: 'Other', progress: null, milestone: null }, workflowName: 'Auth', projectId: 'shop' },
      ],
      now,
    )!;
    assert.equal(two.text, '$(sync~spin) 2 tracked tasks running');
    assert.deepEqual(two.tooltip, ['Setup JWT middleware (Auth): 75% · Running tests...', 'Other (Auth): running']);
    assert.equal(statusFor([{ task: { ...running, lastActivityAt: '2025-06-15T09:00:00Z' }, workflowName: 'Auth', projectId: 'shop' }], now), undefined);
  });

  it('words a review request for an issue and for an outcome', () => {
    const base = { seq: 1, eventId: 'e', workflowId: 'w', workflowName: 'Auth', taskId: 't', taskName: 'Risky change', createdAt: now.toISOString() };
    assert.equal(
      reviewMessage({ ...base, kind: 'issue', text: 'Patched a library locally' }),
      'Agent Progress: an agent asks for a review in "Risky change": Patched a library locally',
    );
    assert.equal(
      reviewMessage({ ...base, kind: 'task_completed', text: 'Check the token handling' }),
      'Agent Progress: "Risky change" finished and needs a manual review: Check the token handling',
    );
  });
});
