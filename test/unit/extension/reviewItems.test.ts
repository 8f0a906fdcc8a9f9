// The Review tree's rows and the status bar text, built by pure functions from ledger data:
// phase, agents with a live duration, the approval queue (pending first) and threads.

import * as assert from 'node:assert/strict';
import type { ReviewAction, ReviewAgent, ReviewState } from '../../../src/core/review/types';
import { CommandIds } from '../../../src/extension/commandIds';
import { actionIdOf, formatDuration, reviewChildren, reviewStatusText, threadIdOf, toReviewItemData, type ReviewNode } from '../../../src/extension/review/reviewItems';

const now = new Date('2026-01-10T12:00:00Z');

function agent(name: string, over: Partial<ReviewAgent> = {}): ReviewAgent {
  return {
    runId: 'r1',
    position: 0,
    name,
    description: null,
    state: 'pending',
    startedAt: null,
    completedAt: null,
    durationMs: null,
    summary: null,
    starts: 0,
    completions: 0,
    anomalies: [],
    ...over,
  };
}

function action(id: string, over: Partial<ReviewAction> = {}): ReviewAction {
  return {
    id,
    runId: 'r1',
    seq: 1,
    kind: 'post_comment',
    target: {},
    text: 'A comment',
    originalText: null,
    status: 'pending',
    createdAt: '2026-01-10T11:59:00Z',
    createdBy: 'security',
    editedBy: null,
    decidedAt: null,
    decidedBy: null,
    note: null,
    threadId: null,
    ...over,
  };
}

function state(over: Partial<ReviewState> = {}): ReviewState {
  return {
    run: {
      id: 'r1',
      projectId: 'shop',
      workflow: 'front',
      definition: {
        name: 'front',
        title: 'Front review',
        description: null,
        agents: [],
        phases: ['pending', 'agents-running', 'synthesizing', 'publishing', 'completed', 'failed'],
        context: { branch: null, merge_request: null, notes: null },
        source: '.agent-progress/reviews/front.yaml',
      },
      phase: 'agents-running',
      context: { branch: 'feature/x', merge_request: '!12', notes: null },
      createdAt: '2026-01-10T11:50:00Z',
      updatedAt: '2026-01-10T11:59:00Z',
      phaseChangedAt: '2026-01-10T11:55:00Z',
      finishedAt: null,
      startedBy: 'ci',
    },
    agents: [
      agent('clean-architecture', { state: 'completed', startedAt: '2026-01-10T11:55:00Z', completedAt: '2026-01-10T11:57:05Z', durationMs: 125_000, summary: 'ok' }),
      agent('security', { state: 'running', startedAt: '2026-01-10T11:59:30Z', anomalies: ['started twice: …'] }),
      agent('tests'),
    ],
    actions: [
      action('a1', { status: 'approved', decidedBy: 'operator:editor (ana)', decidedAt: '2026-01-10T11:59:50Z' }),
      action('a2', { kind: 'open_thread', target: { file: 'src/db.ts', line: 12 }, threadId: 't1', text: 'Unsafe query\nmore' }),
    ],
    threads: [],
    events: [],
    ...over,
  };
}

describe('Review tree rows', () => {
  it('shows the run with its phase and context, expanded when it is the current one', () => {
    const row = toReviewItemData({ kind: 'run', state: state(), expanded: true }, now);
    assert.equal(row.label, 'Front review');
    assert.equal(row.description, 'agents-running · feature/x · !12 · 10m ago');
    assert.equal(row.collapsible, 'expanded');
    assert.equal(row.iconId, 'sync~spin');
    assert.equal(row.contextValue, 'reviewRun');
  });

  it('shows the phase with its place among the phases', () => {
    const row = toReviewItemData({ kind: 'phase', state: state() }, now);
    assert.equal(row.label, 'Phase: agents-running');
    assert.equal(row.description, '2/5 · since 5m ago');
    const done = toReviewItemData({ kind: 'phase', state: state({ run: { ...state().run, phase: 'completed' } }) }, now);
    assert.deepEqual([done.iconId, done.iconColor], ['pass-filled', 'charts.green']);
  });

  it('shows each agent with its state, a duration that counts while it runs, and anomalies', () => {
    const [done, running, pending] = reviewChildren({ kind: 'agents', state: state() }).map((n) => toReviewItemData(n, now));
    assert.equal(done!.description, 'completed · 2m 05s');
    assert.equal(running!.description, 'running · 30s · ⚠ 1');
    assert.equal(toReviewItemData(reviewChildren({ kind: 'agents', state: state() })[1]!, new Date('2026-01-10T12:01:00Z')).description, 'running · 1m 30s · ⚠ 1');
    assert.equal(pending!.description, 'pending');
    assert.equal(running!.contextValue, 'reviewAgent.running');
    assert.equal(done!.tooltip!.summary, 'ok');
  });

  it('lists pending actions first, with approve/edit/dismiss context, and who decided the others', () => {
    const nodes = reviewChildren({ kind: 'actions', state: state() });
    const rows = nodes.map((n) => toReviewItemData(n, now));
    assert.deepEqual(
      rows.map((r) => r.contextValue),
      ['reviewAction.pending', 'reviewAction.approved'],
    );
    assert.equal(rows[0]!.label, 'Open thread: Unsafe query');
    assert.equal(rows[0]!.description, 'src/db.ts:12 · awaiting decision · from security');
    assert.deepEqual(rows[0]!.command, { command: CommandIds.openReviewThread, title: 'Open Thread', arguments: [{ threadId: 't1' }] });
    assert.equal(rows[1]!.description, 'approved by operator:editor (ana) · from security');
    assert.equal(actionIdOf(nodes[0]), 'a2');
    assert.equal(actionIdOf({ actionId: 'x' }), 'x');
    assert.equal(threadIdOf({ kind: 'thread', thread: { id: 't9' } } as unknown as ReviewNode), 't9');
    const group = toReviewItemData({ kind: 'actions', state: state() }, now);
    assert.deepEqual([group.description, group.collapsible], ['1 awaiting decision · 1 decided', 'expanded']);
  });

  it('formats durations', () => {
    assert.deepEqual([0, 59_999, 60_000, 3_599_000, 3_660_000].map(formatDuration), ['0s', '59s', '1m 00s', '59m 59s', '1h 01m']);
  });

  it('puts the phase, the running agent and what waits for approval in the status bar', () => {
    const { text, tooltip } = reviewStatusText(state(), now);
    assert.equal(text, '$(sync~spin) Review: agents-running · security · 1/3 · 1 to approve');
    assert.match(tooltip, /security: running \(30s\)/);
  });
});
