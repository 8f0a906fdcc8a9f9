// The queue's CLI commands (dist/cli.js), with the specification's names and arguments, as a person and a
// script run them; the same ledger as the MCP server.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, cleanEnv, CLI, startServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

describe('queue CLI', function () {
  this.timeout(120_000);
  useTempDirs();
  let dir: string;
  let db: string;
  const run = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db, ...env }), cwd: dir });
    return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const json = <T = Record<string, any>>(args: string[], env: Record<string, string> = {}): T => {
    const r = run([...args, '--json'], env);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };

  beforeEach(() => {
    dir = tempDir();
    db = path.join(dir, 'data.db');
  });

  it('sets up a project from the command line and imports tasks from CSV and JSON', () => {
    assert.match(run(['create-project', 'emails', 'Summarise every thread', '--max-retries', '2', '--lease-duration', '0.5']).stdout, /^Created project emails\n$/);
    assert.match(run(['create-task-type', 'emails', 'summarise', 'Summarise thread {{threadId}} into {{out}}', '--duplicates', 'ignore']).stdout, /with variables threadId, out/);
    assert.match(run(['add-task', 'emails', 'summarise', 'threadId=1', 'out=one.md']).stdout, /^Queued task \S{12}\n$/);
    assert.match(run(['add-task', 'emails', 'summarise', 'threadId=1', 'out=one.md']).stdout, /A task with these variables exists/);
    assert.match(run(['add-task', 'emails', '-', 'Write the index page']).stdout, /^Queued task/);
    fs.writeFileSync(path.join(dir, 'tasks.csv'), 'type,threadId,out\nsummarise,2,two.md\nsummarise,3\n"summarise","4","four, with comma.md"\n');
    const csv = run(['create-tasks-bulk', 'emails', 'tasks.csv']);
    assert.equal(csv.status, 0, csv.stderr);
    assert.match(csv.stdout, /^Created 2 of 3 tasks; 1 rows refused:\n {2}row 2: Variables for task type "summarise": missing "out"/);
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify([{ instructions: 'json one' }, { instructions: 'json two' }]));
    assert.equal(json(['create-tasks-bulk', 'emails', 'tasks.json']).tasksCreated, 2);
    const listed = json(['list-tasks', 'emails', '--status', 'queued']);
    assert.equal(listed.total, 6);
    assert.equal(listed.tasks[3].instructions, 'Summarise thread 4 into four, with comma.md');
    assert.match(run(['list-task-types', 'emails']).stdout, /summarise: Summarise thread \{\{threadId\}\} into \{\{out\}\}/);
    assert.match(run(['get-task-type', 'emails', 'summarise']).stdout, /duplicates: ignore, retries 2, lease 0\.5 min/);
  });

  it('works as an agent with its key, and refuses without it', () => {
    run(['create-project', 'work']);
    run(['add-task', 'work', '-', 'first job']);
    run(['add-task', 'work', '-', 'second job']);
    const reg = run(['register-agent', 'work', 'cli-agent']);
    const key = /API key \(shown only now\): (apk_\S+)/.exec(reg.stdout)?.[1];
    assert.ok(key, reg.stdout);
    const refused = run(['request-task', 'work', 'cli-agent']);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /Register first.*\(from the CLI: --key KEY or AGENT_PROGRESS_AGENT_KEY\)/);
    const wrong = run(['request-task', 'work', 'cli-agent', '--key', 'apk_notthekeyatallnotthekeyatallnotthekeyata']);
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /That --key is not the key of agent cli-agent in project work\. Use the key "agent-progress register-agent" returned/);
    const env = { AGENT_PROGRESS_AGENT_KEY: key };
    const got = json(['request-task', 'work', 'cli-agent'], env);
    assert.deepEqual([got.reason, got.task.instructions], ['assigned', 'first job']);
    assert.equal(json(['get-current-task', 'work', 'cli-agent'], env).task.id, got.task.id);
    assert.match(run(['extend-lease', got.task.id, '2.5'], env).stdout, /^Lease on \S+ extended to/);
    assert.match(run(['complete-task', got.task.id, 'did the first job'], env).stdout, /completed/);
    const second = json(['request-task', 'work', 'cli-agent', '--key', key]);
    assert.match(run(['fail-task', second.task.id, 'cannot be done', '--no-retry', '--key', key]).stdout, /^Task \S+ failed\.\n$/);
    const history = run(['get-task-history', got.task.id]).stdout;
    assert.match(history, /cli-agent {2}completed: did the first job/);
    const status = run(['get-project-status', 'work']).stdout;
    assert.match(status, /^work: 0 queued, 0 running, 1 completed, 1 failed\nAgents \(0 working, 1 idle\):\n {2}cli-agent/);
    assert.match(run(['get-agent-status', 'work', 'cli-agent']).stdout, /^cli-agent: idle, last seen \S+, not connected\n$/);
    assert.match(run(['get-audit-log', 'work', '--limit', '2']).stdout, /task_failed[\s\S]*task_assigned/);
  });

  it('lets a person requeue or cancel a task, close a project, and read the metrics', () => {
    run(['create-project', 'ops']);
    const task = json(['add-task', 'ops', '-', 'to be cancelled']).task;
    const other = json(['add-task', 'ops', '-', 'to be requeued']).task;
    assert.match(run(['cancel-task', task.id]).stdout, /is cancelled/);
    const cancelAgain = run(['cancel-task', task.id]);
    assert.equal(cancelAgain.status, 0);
    const key = json(['register-agent', 'ops', 'worker']).apiKey;
    json(['request-task', 'ops', 'worker', '--key', key]);
    assert.match(run(['requeue-task', other.id]).stdout, /is queued/);
    const history = json(['get-task-history', other.id]);
    assert.equal(history.attempts[0].failureReason, 'server_error');
    assert.match(history.attempts[0].explanation, /^Requeued by cli/);
    assert.match(run(['close-project', 'ops']).stdout, /ops \(closed\)/);
    assert.equal(json(['request-task', 'ops', 'worker', '--key', key]).reason, 'closed');
    const metrics = run(['queue-metrics']).stdout;
    assert.match(metrics, /^agent_progress_tasks\{project="ops",status="cancelled"\} 1$/m);
    assert.match(metrics, /^agent_progress_attempts_total\{project="ops",outcome="failed"\} 1$/m, 'the attempt taken back by the requeue');
    assert.match(metrics, /^agent_progress_attempts_total\{project="ops",outcome="completed"\} 0$/m);
    assert.match(metrics, /^agent_progress_oldest_queued_seconds\{project="ops"\} (?!0$)\d+(\.\d+)?$/m, 'the requeued task waits');
    assert.match(metrics, /^agent_progress_agents\{project="ops",state="disconnected"\} 1$/m, 'the CLI agent left with its process');
    for (const line of metrics.split('\n').filter((l) => l && !l.startsWith('#'))) assert.match(line, /^agent_progress_[a-z_]+\{[^}]*\} \d+(\.\d+)?$/, line);
    assert.deepEqual(json(['list-projects']).projects, []);
    assert.equal(json(['list-projects', '--include-closed']).projects[0].id, 'ops');
  });

  it('refuses an unknown or closed project and an empty variable, changing nothing', () => {
    fs.writeFileSync(path.join(dir, 'rows.json'), JSON.stringify([{ instructions: 'one' }]));
    for (const args of [
      ['add-task', 'ghost', '-', 'do it'],
      ['create-task-type', 'ghost', 'fix', 'Fix {{n}}'],
      ['create-tasks-bulk', 'ghost', 'rows.json'],
      ['register-agent', 'ghost', 'alpha'],
      ['list-tasks', 'ghost'],
    ]) {
      const r = run(args);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, /Project not found: ghost\./, args.join(' '));
    }
    assert.deepEqual(json(['list-projects', '--include-closed']).projects, []);

    run(['create-project', 'p']);
    run(['create-task-type', 'p', 'sum', 'Summarise {{threadId}} into {{out}}']);
    const empty = run(['add-task', 'p', 'sum', 'threadId=', 'out=a.md']);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /variables\.threadId is empty: give it a value/);
    fs.writeFileSync(path.join(dir, 'rows.csv'), 'type,threadId,out\nsum,1,\nsum,2,two.md\n');
    assert.match(run(['create-tasks-bulk', 'p', 'rows.csv']).stdout, /^Created 1 of 2 tasks; 1 rows refused:\n {2}row 1: variables\.out is empty: give it a value\n$/);

    run(['close-project', 'p']);
    for (const [args, what] of [
      [['add-task', 'p', '-', 'too late'], 'tasks'],
      [['create-tasks-bulk', 'p', 'rows.json'], 'tasks'],
      [['create-task-type', 'p', 'later'], 'task types'],
      [['register-agent', 'p', 'late-agent'], 'agents'],
    ] as const) {
      const r = run([...args]);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, new RegExp(`Project p is closed: it takes no new ${what}\\.`), args.join(' '));
    }
    assert.equal(json(['list-tasks', 'p']).total, 1);
  });

  it('shares its ledger with the MCP server', async () => {
    run(['create-project', 'shared']);
    const server = await startServer({ db, args: ['--toolset', 'queue'] });
    try {
      await call(server, 'add_task', { projectId: 'shared', instructions: 'from MCP' });
      assert.match(run(['list-tasks', 'shared']).stdout, /queued {4}from MCP/);
    } finally {
      await server.close();
    }
  });

  it('explains mistakes with exit code 2', () => {
    assert.match(run(['create-project']).stderr, /Missing argument: <name>/);
    assert.match(run(['add-task', 'p', 't', 'a', 'b']).stderr, /Give the instructions as one argument/);
    assert.match(run(['extend-lease', 'x', 'soon']).stderr, /<additional-minutes> must be a number/);
    assert.match(run(['create-tasks-bulk', 'p', 'missing.csv']).stderr, /Cannot read missing\.csv: ENOENT/);
    const bad = run(['create-task-type', 'p', 'n', '--duplicates', 'maybe']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /duplicateHandling must be one of allow, ignore, fail/);
    const help = run(['--help']).stdout;
    assert.match(help, /Task queue:\n {2}create-project/);
    assert.match(run(['request-task', '--help']).stdout, /^Usage: agent-progress request-task <project> <agent-name> \[--json\]/);
  });
});
