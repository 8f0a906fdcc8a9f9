// The review toolset through a real SDK client in memory: the listed contract (snapshot, under
// 4,000 tokens), the specification's flow, every refusal and the order rules (a phase backwards refused
// unless forced; an unknown agent; started twice; completed without start), actions and threads.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';
import { matchSnapshot } from '../../helpers/snapshot';

const SNAPSHOT = path.join(__dirname, '__snapshots__', 'tools-review.json');

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string };
    return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
  }
  assert.fail('expected a JSON-RPC error');
}

export function writeDefinition(workspace: string, name: string, content: string): void {
  const dir = path.join(workspace, '.agent-progress', 'reviews');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), content);
}

const FRONT = `# The front-end review
title: Front review
agents:
  - clean-architecture
  - name: security
    description: OWASP checks
  - tests
context:
  branch: feature/login
  merge_request: "!4748"
`;

describe('review tools (in memory, real client)', function () {
  this.timeout(60_000);
  useTempDirs();
  let c: Connected;
  let workspace: string;
  beforeEach(async () => {
    const dir = tempDir();
    workspace = path.join(dir, 'shop');
    fs.mkdirSync(workspace);
    writeDefinition(workspace, 'front.yaml', FRONT);
    c = await connectInMemory({ dir: path.join(dir, 'ledger'), toolsets: ['review'], workspace });
  });
  afterEach(async () => {
    await c?.close();
  });
  const call = async (name: string, args: unknown) => (await c.client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
  const sc = <T = Record<string, unknown>>(r: CallToolResult) => r.structuredContent as T;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  it('lists the six tools of the seed exactly as the snapshot says, under 4,000 tokens', async () => {
    const { tools } = await c.client.listTools();
    const actual = JSON.stringify(tools, null, 2) + '\n';
    matchSnapshot(SNAPSHOT, actual);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['get_workflow', 'set_phase', 'start_agent', 'complete_agent', 'add_action', 'get_threads'],
    );
    const tokens = JSON.stringify(tools).length / 4;
    console.log(`      tools/list of the review toolset: ${JSON.stringify(tools).length} characters (~${Math.round(tokens)} tokens)`);
    assert.ok(tokens < 4000, `tools/list is ${tokens} tokens`);
    for (const tool of tools) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) assert.equal(typeof tool.annotations?.[hint], 'boolean');
      assert.ok(tool.outputSchema, tool.name);
      for (const [name, prop] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>))
        assert.ok((prop.description ?? '').length > 8, `${tool.name}.${name}`);
    }
  });

  it("runs the seed's typical workflow: get_workflow, phases, each agent in order, completed", async () => {
    const wf = await call('get_workflow', {});
    const w = sc<{
      review_id: string;
      started: boolean;
      phase: string;
      agents: { name: string; state: string; description: string | null }[];
      context: Record<string, string | null>;
      next_agent: string;
      phases: string[];
      project_id: string;
    }>(wf);
    assert.equal(w.started, true);
    assert.equal(w.phase, 'pending');
    assert.equal(w.project_id, 'shop');
    assert.deepEqual(
      w.agents.map((a) => [a.name, a.state]),
      [
        ['clean-architecture', 'pending'],
        ['security', 'pending'],
        ['tests', 'pending'],
      ],
    );
    assert.equal(w.agents[1]!.description, 'OWASP checks');
    assert.deepEqual(w.context, { branch: 'feature/login', merge_request: '!4748', notes: null });
    assert.deepEqual(w.phases, ['pending', 'agents-running', 'synthesizing', 'publishing', 'completed', 'failed']);
    assert.equal(w.next_agent, 'clean-architecture');
    assert.match(text(wf), /^Started [a-z0-9]{12} \(front\) of merge request !4748 on branch feature\/login, phase pending; agents in order: clean-architecture \[pending\]/);
    // A second call finds the same review instead of starting another.
    const again = sc<{ review_id: string; started: boolean }>(await call('get_workflow', {}));
    assert.deepEqual([again.review_id, again.started], [w.review_id, false]);

    assert.equal(sc<{ phase: string }>(await call('set_phase', { phase: 'agents-running' })).phase, 'agents-running');
    for (const agent of ['clean-architecture', 'security', 'tests']) {
      const s = sc<{ agent: { state: string; started_at: string }; warnings: string[] }>(await call('start_agent', { agent }));
      assert.equal(s.agent.state, 'running');
      assert.deepEqual(s.warnings, []);
      const done = await call('complete_agent', { agent, summary: `${agent}: 2 findings` });
      const d = sc<{ agent: { state: string; duration_ms: number; summary: string; anomalies: string[] }; next_agent: string | null }>(done);
      assert.equal(d.agent.state, 'completed');
      assert.ok(d.agent.duration_ms >= 0);
      assert.equal(d.agent.summary, `${agent}: 2 findings`);
      assert.deepEqual(d.agent.anomalies, []);
    }
    await call('set_phase', { phase: 'synthesizing' });
    await call('set_phase', { phase: 'publishing' });
    const end = sc<{ previous_phase: string; phase: string }>(await call('set_phase', { phase: 'completed' }));
    assert.deepEqual([end.previous_phase, end.phase], ['publishing', 'completed']);
    const state = sc<{ phase: string; agents: { state: string }[]; next_agent: string | null }>(await call('get_workflow', { review_id: w.review_id }));
    assert.equal(state.phase, 'completed');
    assert.deepEqual(
      state.agents.map((a) => a.state),
      ['completed', 'completed', 'completed'],
    );
    assert.equal(state.next_agent, null);
    // A completed review stays the one get_workflow returns, until a new run is asked for.
    const after = await call('get_workflow', {});
    assert.deepEqual([sc<{ review_id: string; started: boolean }>(after).review_id, sc<{ started: boolean }>(after).started], [w.review_id, false]);
    assert.match(text(after), /This review is completed: the decisions above are final; call get_workflow with new_run: true to start another\.$/);
    const next = sc<{ review_id: string; started: boolean }>(await call('get_workflow', { new_run: true }));
    assert.equal(next.started, true);
    assert.notEqual(next.review_id, w.review_id);
  });

  it('refuses a move backwards unless forced, and an unknown phase, naming the phases', async () => {
    const { review_id } = sc<{ review_id: string }>(await call('get_workflow', {}));
    await call('set_phase', { phase: 'synthesizing' });
    const back = await call('set_phase', { phase: 'agents-running' });
    assert.equal(back.isError, true);
    assert.match(
      text(back),
      /^Cannot move review [a-z0-9]{12} back from synthesizing to agents-running: phases only move forward \(pending → agents-running → synthesizing → publishing → completed → failed\)\. Pass force: true/,
    );
    const forced = sc<{ phase: string; forced: boolean }>(await call('set_phase', { phase: 'agents-running', force: true }));
    assert.deepEqual([forced.phase, forced.forced], ['agents-running', true]);
    const unknown = await rpcError(call('set_phase', { phase: 'reviewing' }));
    assert.equal(unknown.code, -32602);
    assert.equal(unknown.message, `Unknown phase "reviewing" for review ${review_id}; its phases are pending, agents-running, synthesizing, publishing, completed, failed.`);
    // failed is reachable from anywhere; leaving it needs force.
    assert.equal(sc<{ phase: string }>(await call('set_phase', { phase: 'failed', note: 'lint crashed' })).phase, 'failed');
    // A failed review is no longer the current one: name it.
    const out = await call('set_phase', { phase: 'publishing', review_id });
    assert.equal(out.isError, true);
    assert.match(text(out), /is already failed; pass force: true to reopen it/);
    // Setting the phase it is already in changes nothing and is not an error.
    const same = sc<{ previous_phase: string; phase: string }>(await call('set_phase', { phase: 'failed', review_id }));
    assert.deepEqual([same.previous_phase, same.phase], ['failed', 'failed']);
  });

  it('refuses an agent not in the list, naming the list, and changes nothing', async () => {
    await call('get_workflow', {});
    const e = await rpcError(call('start_agent', { agent: 'performance' }));
    assert.equal(e.code, -32602);
    assert.equal(e.message, 'Agent "performance" is not in this review\'s list (clean-architecture, security, tests). Use a name from get_workflow\'s agents.');
    const e2 = await rpcError(call('complete_agent', { agent: 'performance' }));
    assert.match(e2.message, /^Agent "performance" is not in this review's list/);
    const w = sc<{ agents: { state: string; anomalies: string[] }[] }>(await call('get_workflow', {}));
    assert.deepEqual(
      w.agents.map((a) => a.state),
      ['pending', 'pending', 'pending'],
    );
  });

  it('marks an agent started twice and one completed without start, with warnings', async () => {
    await call('get_workflow', {});
    await call('start_agent', { agent: 'security' });
    const twice = sc<{ agent: { state: string; anomalies: string[] }; warnings: string[] }>(await call('start_agent', { agent: 'security' }));
    assert.equal(twice.agent.state, 'running');
    assert.equal(twice.agent.anomalies.length, 1);
    assert.match(twice.agent.anomalies[0]!, /^started twice: again at .* while running since /);
    assert.deepEqual(twice.warnings, ['security was started 2 times; recorded as an anomaly.']);
    const r = await call('complete_agent', { agent: 'tests', status: 'failed' });
    const noStart = sc<{ agent: { state: string; anomalies: string[]; duration_ms: number | null; started_at: string | null }; warnings: string[] }>(r);
    assert.equal(noStart.agent.state, 'failed');
    assert.equal(noStart.agent.duration_ms, null);
    assert.equal(noStart.agent.started_at, null);
    assert.match(noStart.agent.anomalies[0]!, /^completed without start_agent at /);
    assert.match(noStart.warnings[0]!, /completed without start_agent/);
    assert.match(text(r), /^Agent tests failed\. Next agent: clean-architecture\. Warning: /);
    const w = sc<{ agents: { name: string; anomalies: string[] }[] }>(await call('get_workflow', {}));
    assert.deepEqual(
      w.agents.map((a) => a.anomalies.length),
      [0, 1, 1],
    );
  });

  it('refuses tools before any review exists, and a review_id that does not exist', async () => {
    const e = await rpcError(call('start_agent', { agent: 'security' }));
    assert.equal(e.code, -32602);
    assert.equal(
      e.message,
      'No review is running in project shop. Call get_workflow first: it starts one from a definition in .agent-progress/reviews/ (new_run: true after a completed review).',
    );
    const e2 = await rpcError(call('get_threads', { review_id: 'nope' }));
    assert.equal(e2.message, 'No review nope. Call get_workflow without review_id for the current review.');
    const e3 = await rpcError(call('get_workflow', { workflow: 'backend' }));
    assert.match(e3.message, /^No review definition "backend" in \.agent-progress\/reviews\/ in .*\. Available: front\.$/);
  });

  it('refuses bad arguments with -32602 and what to do', async () => {
    await call('get_workflow', {});
    const cases: [string, unknown, string][] = [
      ['set_phase', {}, 'phase is required'],
      ['set_phase', { phase: 'completed', force: 'yes' }, 'force must be true or false'],
      ['start_agent', { agent: 'security', extra: 1 }, 'Unknown argument "extra"; accepted: agent, review_id'],
      ['complete_agent', { agent: 'security', status: 'done' }, 'status must be one of completed, failed (got "done")'],
      ['add_action', { kind: 'approve_mr', text: 'x' }, 'kind must be one of post_comment, open_thread, reply_thread, resolve_thread (got "approve_mr")'],
      ['add_action', { kind: 'open_thread', text: 'x' }, 'open_thread needs file and line: where the thread points'],
      ['add_action', { kind: 'resolve_thread', text: 'x' }, 'resolve_thread needs thread_id: call get_threads for the open threads and their ids'],
      [
        'add_action',
        { kind: 'open_thread', text: 'x', file: '../etc/passwd', line: 1 },
        'file must be a path from the workspace root without \'..\', such as "src/app.ts" (got "../etc/passwd")',
      ],
      ['add_action', { kind: 'open_thread', text: 'x', file: 'a.ts', line: 0 }, 'line must be between 1 and 10000000'],
      ['add_action', { kind: 'post_comment', text: '   ' }, 'text is required and cannot be empty'],
      ['get_threads', { status: 'closed' }, 'status must be one of open, resolved, all (got "closed")'],
    ];
    for (const [tool, args, message] of cases) {
      const e = await rpcError(call(tool, args));
      assert.equal(e.code, -32602, `${tool} ${JSON.stringify(args)}`);
      assert.equal(e.message, message);
    }
    const e = await rpcError(call('add_action', { kind: 'reply_thread', text: 'x', thread_id: 'zzzz' }));
    assert.equal(e.message, 'No review thread zzzz. Call get_threads for the open threads and their ids.');
    const w = sc<{ actions: unknown[]; threads: unknown[] }>(await call('get_workflow', {}));
    assert.deepEqual([w.actions.length, w.threads.length], [0, 0]);
  });

  it('queues actions for approval, opens threads on lines, and shows the decision to the agent', async () => {
    const { review_id } = sc<{ review_id: string }>(await call('get_workflow', {}));
    const opened = sc<{ action: { action_id: string; kind: string; status: string; thread_id: string; target: Record<string, unknown>; created_by: string } }>(
      await call('add_action', { kind: 'open_thread', text: 'This query is not parameterised.', file: './src\\db.ts', line: 12, end_line: 14, agent: 'security' }),
    );
    assert.equal(opened.action.status, 'pending');
    assert.deepEqual(opened.action.target, { file: 'src/db.ts', line: 12, end_line: 14 });
    assert.equal(opened.action.created_by, 'security');
    const threads = sc<{ threads: { thread_id: string; file: string; line: number; end_line: number; status: string; comments: { body: string; author: string }[] }[] }>(
      await call('get_threads', {}),
    );
    assert.equal(threads.threads.length, 1);
    const t = threads.threads[0]!;
    assert.deepEqual([t.thread_id, t.file, t.line, t.end_line, t.status], [opened.action.thread_id, 'src/db.ts', 12, 14, 'open']);
    assert.deepEqual(
      t.comments.map((c) => [c.author, c.body]),
      [['security', 'This query is not parameterised.']],
    );
    assert.equal(sc<{ threads: unknown[] }>(await call('get_threads', { file: 'src/other.ts' })).threads.length, 0);

    const reply = sc<{ action: { action_id: string } }>(await call('add_action', { kind: 'reply_thread', text: 'Fixed in abc123.', thread_id: t.thread_id }));
    const resolve = sc<{ action: { action_id: string } }>(await call('add_action', { kind: 'resolve_thread', text: 'Resolved', thread_id: t.thread_id }));
    const comment = sc<{ action: { action_id: string } }>(await call('add_action', { kind: 'post_comment', text: 'Overall: 3 findings.' }));

    // A person decides in VS Code (or the CLI), through the same service.
    const review = await c.services.review();
    await review.editAction(comment.action.action_id, 'Overall: 3 findings, 1 blocking.', 'operator:editor (ana)');
    await review.decideAction(comment.action.action_id, 'approve', 'operator:editor (ana)');
    await review.decideAction(reply.action.action_id, 'approve', 'operator:editor (ana)');
    await review.decideAction(resolve.action.action_id, 'approve', 'operator:editor (ana)');
    await review.decideAction(opened.action.action_id, 'dismiss', 'operator:editor (ana)', 'not in scope');
    await assert.rejects(review.decideAction(opened.action.action_id, 'approve', 'bob'), /already dismissed by operator:editor \(ana\)/);

    const w = sc<{
      actions: { action_id: string; status: string; decided_by: string; decided_at: string; text: string; edited: boolean; note: string | null }[];
      threads: unknown[];
    }>(await call('get_workflow', { review_id }));
    const byId = new Map(w.actions.map((a) => [a.action_id, a]));
    assert.equal(byId.get(comment.action.action_id)!.status, 'approved');
    assert.equal(byId.get(comment.action.action_id)!.decided_by, 'operator:editor (ana)');
    assert.match(byId.get(comment.action.action_id)!.decided_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(byId.get(comment.action.action_id)!.text, 'Overall: 3 findings, 1 blocking.');
    assert.equal(byId.get(comment.action.action_id)!.edited, true);
    assert.deepEqual([byId.get(opened.action.action_id)!.status, byId.get(opened.action.action_id)!.note], ['dismissed', 'not in scope']);
    // The approved resolve_thread resolved the thread; the approved reply is on it.
    assert.equal(w.threads.length, 0);
    const all = sc<{ threads: { status: string; resolved_by: string; comments: { body: string }[] }[] }>(await call('get_threads', { status: 'all' }));
    assert.equal(all.threads[0]!.status, 'resolved');
    assert.equal(all.threads[0]!.resolved_by, 'operator:editor (ana)');
    assert.deepEqual(
      all.threads[0]!.comments.map((c) => c.body),
      ['This query is not parameterised.', 'Fixed in abc123.'],
    );

    const exported = await review.exportActions(review_id, 'approved');
    assert.equal(exported.format, 'agent-progress.review-actions/1');
    assert.deepEqual(
      exported.actions.map((a) => a.kind),
      ['reply_thread', 'resolve_thread', 'post_comment'],
    );
    assert.equal(exported.review.context.merge_request, '!4748');
  });

  it("keys a review by the merge request or branch it reviews, never handing out another's", async () => {
    type Run = { review_id: string; started: boolean; context: { branch: string | null; merge_request: string | null }; phase: string };
    const first = sc<Run>(await call('get_workflow', { merge_request: '!1' }));
    assert.deepEqual([first.started, first.context.merge_request], [true, '!1']);
    await call('set_phase', { phase: 'agents-running' });
    await call('start_agent', { agent: 'clean-architecture' });

    // Another merge request while the first one's review runs: its own review, started.
    const secondCall = await call('get_workflow', { merge_request: '!2' });
    const second = sc<Run>(secondCall);
    assert.equal(second.started, true);
    assert.notEqual(second.review_id, first.review_id);
    assert.deepEqual([second.context.merge_request, second.phase], ['!2', 'pending']);
    assert.match(
      text(secondCall),
      new RegExp(
        `^Started ${second.review_id} \\(front\\) of merge request !2 on branch feature/login, phase pending;.* Also running: ${first.review_id} \\(front, merge request !1, branch feature/login, agents-running\\)\\. Pass review_id ${second.review_id} to the other tools\\.$`,
      ),
    );
    // Each merge request finds its own again.
    assert.deepEqual(
      [sc<Run>(await call('get_workflow', { merge_request: '!1' })).review_id, sc<Run>(await call('get_workflow', { merge_request: ' !2 ' })).review_id],
      [first.review_id, second.review_id],
    );
    // A branch is a key too.
    const branch = sc<Run>(await call('get_workflow', { branch: 'feature/other' }));
    assert.equal(branch.started, true);
    assert.equal(branch.context.branch, 'feature/other');
    assert.equal(sc<Run>(await call('get_workflow', { branch: 'feature/other' })).review_id, branch.review_id);

    // A review_id that reviews something else than asked is refused, naming both.
    const mismatch = await rpcError(call('get_workflow', { review_id: first.review_id, merge_request: '!2' }));
    assert.deepEqual(mismatch, {
      code: -32602,
      message: `Review ${first.review_id} is of merge_request "!1", not "!2". Leave review_id out to get (or start) the review of merge_request "!2".`,
    });
    // With several running, the other tools do not guess which one is meant.
    const guess = await rpcError(call('set_phase', { phase: 'synthesizing' }));
    assert.equal(guess.code, -32602);
    assert.match(guess.message, /^Several reviews are running in project shop: .*\. Pass review_id to say which\.$/);
    assert.ok(guess.message.includes(`${first.review_id} (front, merge request !1`) && guess.message.includes(`${second.review_id} (front, merge request !2`));
    assert.equal(sc<Run>(await call('get_workflow', { review_id: first.review_id })).phase, 'agents-running', 'nothing moved');
    assert.equal(sc<{ phase: string }>(await call('set_phase', { phase: 'synthesizing', review_id: first.review_id })).phase, 'synthesizing');
  });

  it("returns the completed review with the people's decisions until a new run is asked for", async () => {
    const { review_id } = sc<{ review_id: string }>(await call('get_workflow', { merge_request: '!7' }));
    const comment = sc<{ action: { action_id: string } }>(await call('add_action', { kind: 'post_comment', text: 'Two findings.' }));
    await call('set_phase', { phase: 'completed' });
    await (await c.services.review()).decideAction(comment.action.action_id, 'approve', 'operator:editor (ana)');

    type Run = { review_id: string; started: boolean; phase: string; actions: { action_id: string; status: string; decided_by: string }[] };
    for (const args of [{}, { merge_request: '!7' }, { workflow: 'front' }]) {
      const w = sc<Run>(await call('get_workflow', args));
      assert.deepEqual([w.review_id, w.started, w.phase], [review_id, false, 'completed'], JSON.stringify(args));
      assert.deepEqual(
        w.actions.map((a) => [a.action_id, a.status, a.decided_by]),
        [[comment.action.action_id, 'approved', 'operator:editor (ana)']],
      );
    }
    // The other tools act only on a running review, and say how to start one.
    assert.match((await rpcError(call('start_agent', { agent: 'tests' }))).message, /^No review is running in project shop\. .*new_run: true after a completed review/);
    const refused = await rpcError(call('get_workflow', { review_id, new_run: true }));
    assert.deepEqual(refused, { code: -32602, message: 'new_run starts another review and review_id names an existing one: pass one of them.' });
    const fresh = sc<Run>(await call('get_workflow', { new_run: true, merge_request: '!7' }));
    assert.equal(fresh.started, true);
    assert.notEqual(fresh.review_id, review_id);
    assert.deepEqual(fresh.actions, []);
    // Now the running one is the answer for that merge request.
    assert.equal(sc<Run>(await call('get_workflow', { merge_request: '!7' })).review_id, fresh.review_id);
  });

  it('chooses among several definitions by name, and refuses to guess', async () => {
    writeDefinition(workspace, 'backend.json', JSON.stringify({ agents: ['api', 'db'], context: { merge_request: 12 } }, null, 2));
    const e = await rpcError(call('get_workflow', {}));
    assert.equal(e.message, 'Several review definitions exist (backend, front); name one with the workflow argument.');
    const b = sc<{ workflow: string; agents: { name: string }[]; context: { merge_request: string; branch: string | null } }>(
      await call('get_workflow', { workflow: 'backend', branch: 'main' }),
    );
    assert.equal(b.workflow, 'backend');
    assert.deepEqual(
      b.agents.map((a) => a.name),
      ['api', 'db'],
    );
    assert.deepEqual([b.context.merge_request, b.context.branch], ['12', 'main']);
    const f = sc<{ workflow: string; started: boolean }>(await call('get_workflow', { workflow: 'front' }));
    assert.deepEqual([f.workflow, f.started], ['front', true]);
    // Without a name, the latest running review is the current one.
    assert.equal(sc<{ workflow: string }>(await call('get_workflow', {})).workflow, 'front');
  });

  it('names the file, line and field of a bad definition', async () => {
    writeDefinition(workspace, 'front.yaml', 'agents:\n  - clean-architecture\n  - name: "bad name!"\n');
    const e = await rpcError(call('get_workflow', {}));
    assert.equal(e.message, '.agent-progress/reviews/front.yaml line 3: agents[1].name must be a name of letters, digits, . _ or - (at most 100), such as "clean-architecture"');
  });
});
