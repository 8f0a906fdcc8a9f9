// The workflow toolset over stdio against the built dist/server.js, started the way VS Code starts
// it (working directory = the workspace folder) or pointed elsewhere by AGENT_PROGRESS_WORKSPACE;
// then the CLI reading what the server wrote.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initRepo } from '../helpers/gitRepo';
import { call, cleanEnv, CLI, rpcError, SERVER, startServer, textOf, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function cli(args: string[], db: string, cwd: string) {
  const run = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db }), cwd });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

describe('workflow tools over stdio (dist/server.js)', function () {
  this.timeout(60_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it('tracks a task in the repository it was started in, and the CLI shows it', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger', 'data.db');
    const repo = initRepo(path.join(dir, 'webshop'), { 'src/cart.ts': 'export const cart = [];\n', 'src/old.ts': 'x\n'.repeat(30), 'README.md': '# shop\n' });
    repo.write('README.md', '# shop, edited before the task\n');
    const s = await startServer({ db, args: ['--toolset', 'workflow'], cwd: repo.dir });
    servers.push(s);
    const { tools } = await s.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['start_workflow', 'start_task', 'log_decision', 'log_issue', 'log_milestone', 'complete_task'],
    );

    const wf = (
      await call(s, 'start_workflow', {
        name: 'Checkout',
        plan: [
          { step: '1', goal: 'Cart totals' },
          { step: '2', goal: 'Payment' },
        ],
      })
    ).structuredContent as { workflow_id: string; project_id: string };
    assert.equal(wf.project_id, 'webshop');
    const st = (await call(s, 'start_task', { workflow_id: wf.workflow_id, name: 'Cart totals', goal: 'Compute totals', areas: ['src/cart*', 'tests'] })).structuredContent as {
      task_id: string;
      snapshot_type: string;
      repository: string;
    };
    assert.equal(st.snapshot_type, 'git');
    assert.equal(st.repository, fs.realpathSync(repo.dir));
    await call(s, 'log_milestone', { task_id: st.task_id, message: 'Writing tests', progress: 40 });
    await call(s, 'log_decision', {
      task_id: st.task_id,
      category: 'trade_off',
      question: 'Integer cents or decimals?',
      options_considered: ['cents', 'decimal.js'],
      chosen: 'cents',
      reasoning: 'No dependency.',
    });

    repo.write('src/cart.ts', 'export const cart = []; export const total = 0;\n');
    repo.commitAll('cart totals');
    repo.write('tests/cart.test.ts', 'test');
    repo.move('src/old.ts', 'src/legacy.ts');
    const done = await call(s, 'complete_task', {
      task_id: st.task_id,
      status: 'success',
      outcome: { summary: 'Totals in cents.', next_steps: ['Payment'] },
      metadata: { tests_status: 'passed' },
    });
    const out = done.structuredContent as { files_changed: unknown; verification: { unexpected_files: string[] }; commits: { subject: string }[] };
    assert.deepEqual(out.files_changed, {
      added: ['tests/cart.test.ts'],
      modified: ['src/cart.ts'],
      deleted: [],
      renamed: [{ from: 'src/old.ts', to: 'src/legacy.ts', similarity: 100 }],
    });
    assert.deepEqual(out.verification.unexpected_files, ['src/legacy.ts', 'src/old.ts']);
    assert.deepEqual(
      out.commits.map((c) => c.subject),
      ['cart totals'],
    );
    assert.match(textOf(done), /R src\/old\.ts -> src\/legacy\.ts/);

    const list = cli(['workflows'], db, repo.dir);
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${wf.workflow_id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  done     Checkout  \\(1 task\\)\\n1 of 1 workflow in webshop\\n$`));
    const shown = cli(['workflow', wf.workflow_id], db, dir);
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /Plan:\n {2}1\. Cart totals\n {2}2\. Payment\n/);
    assert.match(shown.stdout, new RegExp(`Tasks:\\n {2}${st.task_id} {2}Cart totals {2}\\[success, \\d+s, 3 file\\(s\\)\\]\\n`));
    assert.match(shown.stdout, /Cart totals: decided Integer cents or decimals\? -> cents \(trade_off\)/);
    const task = cli(['tracked-task', st.task_id], db, dir);
    assert.equal(task.status, 0, task.stderr);
    assert.match(task.stdout, /files changed \(3\):\n {2}A tests\/cart\.test\.ts\n {2}M src\/cart\.ts\n !R src\/old\.ts -> src\/legacy\.ts\n/);
    assert.match(task.stdout, /snapshot: git, HEAD [0-9a-f]{12} on main, tree [0-9a-f]{12} in /);
    const json = JSON.parse(cli(['tracked-task', st.task_id, '--json'], db, dir).stdout) as { task: { filesChanged: { added: string[] } }; events: { kind: string }[] };
    assert.deepEqual(json.task.filesChanged.added, ['tests/cart.test.ts']);
    assert.deepEqual(
      json.events.map((e) => e.kind),
      ['task_started', 'milestone', 'decision', 'task_completed'],
    );
    const missing = cli(['tracked-task', 'nosuchtask'], db, dir);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /Task not found: nosuchtask/);
  });

  it('looks at the folder AGENT_PROGRESS_WORKSPACE names instead of its working directory', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'ledger', 'data.db');
    const repo = initRepo(path.join(dir, 'elsewhere'), { 'a.txt': 'a' });
    fs.mkdirSync(path.join(dir, 'cwd'));
    const s = await startServer({
      db,
      args: ['--toolset', 'workflow'],
      cwd: path.join(dir, 'cwd'),
      env: { AGENT_PROGRESS_WORKSPACE: repo.dir, AGENT_PROGRESS_PROJECT: 'named-project' },
    });
    servers.push(s);
    const wf = (await call(s, 'start_workflow', { name: 'W' })).structuredContent as { workflow_id: string; project_id: string };
    assert.equal(wf.project_id, 'named-project');
    const st = (await call(s, 'start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'G' })).structuredContent as { task_id: string; repository: string };
    assert.equal(st.repository, fs.realpathSync(repo.dir));
    repo.write('a.txt', 'b');
    const done = (await call(s, 'complete_task', { task_id: st.task_id, status: 'success', outcome: { summary: 's' } })).structuredContent as {
      files_changed: { modified: string[] };
    };
    assert.deepEqual(done.files_changed.modified, ['a.txt']);
  });

  it('refuses bad input with -32602 and keeps serving', async () => {
    const dir = tempDir();
    const s = await startServer({ db: path.join(dir, 'data.db'), args: ['--toolset', 'workflow'], cwd: dir });
    servers.push(s);
    assert.deepEqual(await rpcError(call(s, 'log_issue', { task_id: 'x', type: 'oops', description: 'd', resolution: 'r' })), {
      code: -32602,
      message: 'type must be one of documentation_gap, bug_encountered, dependency_conflict, unclear_requirement, other (got "oops")',
    });
    assert.deepEqual(await rpcError(call(s, 'complete_task', { task_id: 'x', status: 'success', outcome: { summary: 's' } })), {
      code: -32602,
      message: 'Task not found: x. Use the task_id that start_task returned.',
    });
    const ok = await call(s, 'start_workflow', { name: 'still serving' });
    assert.equal(ok.isError, undefined);
    assert.doesNotMatch(s.stderr(), /\n\s+at /, 'no stack trace for refused input');
  });

  it('refuses to serve the queue and workflow toolsets together: both have complete_task', () => {
    const run = spawnSync(process.execPath, [SERVER, '--toolset', 'queue,workflow'], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: path.join(tempDir(), 'data.db') }) });
    assert.equal(run.status, 2, 'bad usage exits 2');
    assert.match(run.stderr.toString(), /Toolsets queue and workflow both define complete_task; run them as separate servers \(--toolset queue and --toolset workflow\)/);
  });
});
