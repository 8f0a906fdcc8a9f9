// The review toolset over stdio against the built dist/server.js, started in the workspace folder
// as VS Code starts it, with the CLI (dist/cli.js) on the other side as a CI script would drive it:
// review-start, the agent's calls, review-decide, review-status --json, review-export.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, cleanEnv, CLI, rpcError, startServer, textOf, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function cli(args: string[], db: string, cwd: string) {
  const run = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db }), cwd });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

function workspaceWith(dir: string, files: Record<string, string>): string {
  const ws = path.join(dir, 'shop');
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(ws, '.agent-progress', 'reviews', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return ws;
}

describe('review tools over stdio (dist/server.js) and the review CLI', function () {
  this.timeout(60_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it('runs a review a CI script started, and exports the decisions for it to carry out', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger', 'data.db');
    const ws = workspaceWith(dir, { 'front.yaml': 'title: Front review\nagents:\n  - clean-architecture\n  - security\n' });

    const started = cli(['review-start', '--workflow', 'front', '--branch', 'feature/x', '--merge-request', '!12', '--by', 'ci'], db, ws);
    assert.equal(started.status, 0, started.stderr);
    const match = /^([a-z0-9]{12}) {2}started front in project shop: clean-architecture, security\n$/.exec(started.stdout);
    assert.ok(match, started.stdout);
    const reviewId = match[1]!;

    const s = await startServer({ db, args: ['--toolset', 'review'], cwd: ws });
    servers.push(s);
    const { tools } = await s.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['get_workflow', 'set_phase', 'start_agent', 'complete_agent', 'add_action', 'get_threads'],
    );
    const wf = await call(s, 'get_workflow', {});
    const w = wf.structuredContent as { review_id: string; started: boolean; context: { branch: string; merge_request: string } };
    assert.deepEqual([w.review_id, w.started, w.context.branch, w.context.merge_request], [reviewId, false, 'feature/x', '!12']);

    await call(s, 'set_phase', { phase: 'agents-running' });
    await call(s, 'start_agent', { agent: 'clean-architecture' });
    await call(s, 'complete_agent', { agent: 'clean-architecture', summary: 'Layers respected.' });
    await call(s, 'start_agent', { agent: 'security' });
    const running = cli(['review-status', '--json'], db, ws);
    assert.equal(running.status, 0, running.stderr);
    const status = JSON.parse(running.stdout) as { review: { phase: string }; agents: { name: string; state: string; duration_ms: number | null }[] };
    assert.equal(status.review.phase, 'agents-running');
    assert.deepEqual(
      status.agents.map((a) => [a.name, a.state]),
      [
        ['clean-architecture', 'completed'],
        ['security', 'running'],
      ],
    );
    assert.ok(status.agents[1]!.duration_ms !== null && status.agents[1]!.duration_ms >= 0);

    const opened = (await call(s, 'add_action', { kind: 'open_thread', file: 'src/login.ts', line: 7, text: 'Password compared with ==.', agent: 'security' }))
      .structuredContent as { action: { action_id: string } };
    const comment = (await call(s, 'add_action', { kind: 'post_comment', text: 'Two findings.' })).structuredContent as { action: { action_id: string } };
    await call(s, 'complete_agent', { agent: 'security' });

    const approve = cli(['review-decide', opened.action.action_id, 'approve', '--by', 'ana'], db, ws);
    assert.equal(approve.status, 0, approve.stderr);
    assert.match(approve.stdout, new RegExp(`^${opened.action.action_id} approved by ana at \\d{4}-`));
    assert.equal(cli(['review-decide', comment.action.action_id, 'dismiss', '--note', 'noise'], db, ws).status, 0);
    const again = cli(['review-decide', comment.action.action_id, 'approve'], db, ws);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already dismissed by operator:cli/);

    // The agent reads the decisions.
    const after = (await call(s, 'get_workflow', {})).structuredContent as { actions: { action_id: string; status: string; decided_by: string; note: string | null }[] };
    assert.deepEqual(
      after.actions.map((a) => [a.status, a.decided_by]),
      [
        ['approved', 'ana'],
        ['dismissed', after.actions[1]!.decided_by],
      ],
    );
    assert.match(after.actions[1]!.decided_by, /^operator:cli \(/);
    assert.equal(after.actions[1]!.note, 'noise');

    await call(s, 'set_phase', { phase: 'synthesizing' });
    const back = await call(s, 'set_phase', { phase: 'pending' });
    assert.equal(back.isError, true);
    assert.match(textOf(back), /phases only move forward/);
    await call(s, 'set_phase', { phase: 'publishing' });
    await call(s, 'set_phase', { phase: 'completed' });

    const out = path.join(dir, 'actions.json');
    const exported = cli(['review-export', '--status', 'approved', '--out', out], db, ws);
    assert.equal(exported.status, 0, exported.stderr);
    assert.equal(exported.stdout, `Wrote 1 action(s) of review ${reviewId} to ${out}\n`);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as {
      format: string;
      review: { phase: string; review_id: string };
      actions: { kind: string; target: unknown; text: string; decided_by: string }[];
    };
    assert.equal(doc.format, 'agent-progress.review-actions/1');
    assert.deepEqual([doc.review.review_id, doc.review.phase], [reviewId, 'completed']);
    assert.deepEqual(
      doc.actions.map((a) => [a.kind, a.target, a.text, a.decided_by]),
      [['open_thread', { file: 'src/login.ts', line: 7 }, 'Password compared with ==.', 'ana']],
    );

    const shown = cli(['review-status', reviewId], db, ws);
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^${reviewId}  front  phase: completed`));
    assert.match(shown.stdout, /\n {2}completed clean-architecture \d+\.\ds\n/);
    assert.match(shown.stdout, /threads: 1 open, 0 resolved\n$/);
  });

  it('refuses a bad definition by line and field, through the server and the CLI', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger', 'data.db');
    const ws = workspaceWith(dir, { 'default.json': '{\n  "agents": ["a"],\n  "phases": ["pending", "done"]\n}\n', 'front.yaml': 'agents:\n  - a\n' });
    const s = await startServer({ db, args: ['--toolset', 'review'], cwd: ws });
    servers.push(s);
    const e = await rpcError(call(s, 'get_workflow', {}));
    assert.equal(e.code, -32602);
    assert.match(
      e.message,
      /^\.agent-progress\/reviews\/default\.json line 3: phases must include pending, agents-running, synthesizing, publishing, completed, failed; missing agents-running/,
    );
    const defs = cli(['review-definitions'], db, ws);
    assert.equal(defs.status, 0, defs.stderr);
    assert.match(
      defs.stdout,
      /^front {2} {2}agents: a {2}\(\.agent-progress\/reviews\/front\.yaml\)\nrefused \.agent-progress\/reviews\/default\.json: \.agent-progress\/reviews\/default\.json line 3: phases must include/,
    );
    const start = cli(['review-start'], db, ws);
    assert.equal(start.status, 2);
    assert.match(start.stderr, /default\.json line 3/);
    assert.doesNotMatch(start.stderr, /\n\s+at /);
    // Nothing was stored.
    assert.match(cli(['review-status'], db, ws).stderr, /No review in project shop yet/);
  });
});
