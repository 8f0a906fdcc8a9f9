// The team deployment, end to end on the built dist/: two HTTP servers behind one PostgreSQL
// database with 20 agent processes draining 5,000 tasks; the stdio server and the CLI on
// PostgreSQL; copying a ledger file into PostgreSQL and back; a bundle that needs no
// node_modules (pg-native never loaded); and the password never printed.

import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openLedger } from '../../src/core/storage/openLedger';
import { httpClient, startHttpServer, TOKEN, type HttpServerProcess } from '../helpers/httpServer';
import { PG_TEST_PASSWORD, usePostgres } from '../helpers/postgres';
import { call, cleanEnv, CLI, ROOT, startServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { copyShippedDist } from '../helpers/shippedDist';
import { waitFor } from '../helpers/wait';

const AGENT = path.join(ROOT, 'test', 'helpers', 'queueAgent.mjs');

function cli(args: string[], env: Record<string, string> = {}, script = CLI): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [script, ...args], { env: cleanEnv(env), encoding: 'utf8', cwd: ROOT, timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function runAgent(port: number, project: string, name: string): Promise<{ agent: string; tasks: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENT, String(port), TOKEN, project, name], { env: cleanEnv(), cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`agent ${name} exited with ${code}: ${err}`));
      else resolve(JSON.parse(out.trim()) as { agent: string; tasks: string[] });
    });
  });
}

describe('the team deployment on PostgreSQL', function () {
  this.timeout(600_000);
  useTempDirs();
  const server = usePostgres();

  it('gives each of 5,000 tasks to exactly one of 20 agent processes on two HTTP servers sharing one database', async () => {
    const url = await server().createDatabase();
    const env = { AGENT_PROGRESS_DATABASE_URL: url };
    // Two servers started at once on an empty database: the migrations run once, under the lock.
    const servers: HttpServerProcess[] = await Promise.all([0, 1].map((i) => startHttpServer(path.join(tempDir(), `unused-${i}.db`), { env })));
    try {
      const admin = await httpClient(servers[0]!.port);
      const tool = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
        const r = await admin.client.callTool({ name, arguments: args });
        assert.ok(!r.isError, JSON.stringify(r.content));
        return r.structuredContent as Record<string, unknown>;
      };
      await tool('create_project', { name: 'drain' });
      for (let start = 0; start < 5_000; start += 1_000) {
        const out = await tool('create_tasks_bulk', { projectId: 'drain', tasks: Array.from({ length: 1_000 }, (_, i) => ({ instructions: `task ${start + i}` })) });
        assert.equal(out.tasksCreated, 1_000);
      }
      await admin.client.close();

      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 20 }, (_, n) => runAgent(servers[n % 2]!.port, 'drain', `agent-${n}`)));
      const seconds = (Date.now() - started) / 1000;
      const all = results.flatMap((r) => r.tasks);
      console.log(
        `      5,000 tasks by 20 processes on 2 servers in ${seconds.toFixed(1)} s (${Math.round(5_000 / seconds)} tasks/s); per agent: ${results.map((r) => r.tasks.length).join(', ')}`,
      );
      assert.equal(all.length, 5_000, 'every task was handed out');
      assert.equal(new Set(all).size, 5_000, 'no task was handed out twice');
      assert.ok(results.filter((r) => r.tasks.length > 0).length >= 15, 'the work was shared');
      for (const s of servers) assert.ok(!s.stderr().includes(PG_TEST_PASSWORD), 'the server never prints the database password');
      assert.match(servers[0]!.stderr(), /ledger PostgreSQL postgres:\/\/postgres:\[redacted\]@127\.0\.0\.1/);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    const ledger = await openLedger({ file: '', databaseUrl: url });
    try {
      const project = await ledger.queue.getProject('drain');
      assert.deepEqual([project?.stats.completedTasks, project?.stats.queuedTasks, project?.stats.runningTasks], [5_000, 0, 0]);
      const metrics = await ledger.queue.metricsSnapshot();
      assert.deepEqual(metrics.attempts, [{ projectId: 'drain', status: 'completed', count: 5_000 }], 'one attempt per task, all completed');
    } finally {
      await ledger.close();
    }
  });

  it('serves the tools over stdio and the CLI on PostgreSQL, and copies a ledger file into it and back with counts checked', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'local.db');
    const local = await startServer({ db: file, args: ['--toolset', 'progress'] });
    for (let i = 0; i < 30; i++) await call(local, 'log_progress', { projectId: 'shop', title: `Step ${i}`, content: `Worked on the cart, step ${i}.`, tags: ['cart'] });
    await local.close();
    const queued = cli(['--db', file, 'add-task', 'shop', '-', 'Ship it']);
    assert.equal(queued.code, 0, queued.stderr);

    const url = await server().createDatabase();
    const up = cli(['copy-ledger', '--from', file, '--to', url, '--json']);
    assert.equal(up.code, 0, up.stderr);
    const counts = JSON.parse(up.stdout) as { total: number; counts: { collection: string; source: number; after: number }[]; to: string };
    assert.equal(counts.counts.find((c) => c.collection === 'entries')?.after, 30);
    assert.equal(counts.counts.find((c) => c.collection === 'tasks')?.after, 1);
    assert.ok(!up.stdout.includes(PG_TEST_PASSWORD) && !up.stderr.includes(PG_TEST_PASSWORD), 'the password is never printed');
    assert.match(counts.to, /\[redacted\]/);

    const again = cli(['copy-ledger', '--from', file, '--to', url]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already holds records .*Nothing was copied.*--force/);
    assert.ok(!again.stderr.includes(PG_TEST_PASSWORD));
    const forced = cli(['copy-ledger', '--from', file, '--to', url, '--force']);
    assert.equal(forced.code, 1, 'records that already exist refuse the whole copy');
    assert.match(forced.stderr, /already exists/);

    // The stdio server on PostgreSQL sees the copied entries and searches them.
    const remote = await startServer({ db: path.join(dir, 'unused.db'), args: ['--toolset', 'progress'], env: { AGENT_PROGRESS_DATABASE_URL: url } });
    try {
      const found = (await call(remote, 'search_logs', { projectId: 'shop', text: 'cart' })).structuredContent as { total: number };
      assert.equal(found.total, 30);
      await call(remote, 'log_progress', { projectId: 'shop', title: 'Written on PostgreSQL', content: 'Straight into the team ledger.' });
    } finally {
      await remote.close();
    }

    // And back into a new file, with the CLI reading it.
    const back = path.join(dir, 'back.db');
    const down = cli(['copy-ledger', '--from', url, '--to', back]);
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stdout, /entries\s+source\s+31\s+copied\s+31\s+target\s+31/);
    const listed = cli(['--db', back, 'search', '--project', 'shop', '--text', 'team ledger', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as { total: number }).total, 1);

    const missing = cli(['copy-ledger', '--from', path.join(dir, 'nope.db'), '--to', url]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No ledger file at/);
    assert.equal(fs.existsSync(path.join(dir, 'nope.db')), false, 'a missing source is not created');
  });

  it('answers ranked searches in a team server from its index in memory, as the stdio server does from SQL, and follows entries other processes write', async () => {
    const url = await server().createDatabase();
    const words = ['cart', 'checkout', 'payment', 'invoice', 'refund', 'shipping', 'the', 'of', 'durable', 'queue'];
    const ledger = await openLedger({ file: '', databaseUrl: url });
    try {
      for (let i = 0; i < 300; i++) {
        const pick = (k: number): string => words[(i * (k + 3) + k * k) % words.length]!;
        await ledger.progress.insertEntry({
          id: `e${i}`,
          projectId: i % 5 === 0 ? 'ops' : 'shop',
          title: `${pick(1)} ${pick(2)} step ${i}`,
          content: `Worked on the ${pick(3)} of the ${pick(4)}; ${pick(5)} ${pick(6)} ${pick(7)} and the ${pick(8)} again.`,
          tags: [],
          agentId: null,
          createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        });
      }
    } finally {
      await ledger.close();
    }
    const env = { AGENT_PROGRESS_DATABASE_URL: url };
    const team = await startHttpServer(path.join(tempDir(), 'unused.db'), { env, args: ['--toolset', 'progress'] });
    const off = await startHttpServer(path.join(tempDir(), 'unused-off.db'), { env: { ...env, AGENT_PROGRESS_SEARCH_INDEX: 'off' }, args: ['--toolset', 'progress'] });
    const stdio = await startServer({ db: path.join(tempDir(), 'unused-stdio.db'), args: ['--toolset', 'progress'], env });
    const metrics = async (port: number): Promise<string> => {
      const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      assert.equal(r.status, 200);
      return r.text();
    };
    const metric = (text: string, name: string): number | undefined => {
      const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
      return m ? Number(m[1]) : undefined;
    };
    try {
      await waitFor(() => /Ranked search answers from memory/.test(team.stderr()), 'the team server to build its search index', 60_000, 50);
      assert.equal(metric(await metrics(team.port), 'agent_progress_search_index_entries'), 300);
      const a = await httpClient(team.port);
      const b = await httpClient(off.port);
      const search = async (client: typeof a.client | undefined, args: Record<string, unknown>): Promise<string> => {
        const r = client ? await client.callTool({ name: 'search_logs', arguments: args }) : await call(stdio, 'search_logs', args);
        assert.ok(!r.isError, JSON.stringify(r.content));
        const sc = r.structuredContent as { total: number; entries: { id: string }[] };
        return `${sc.total}: ${sc.entries.map((e) => e.id).join(' ')}`;
      };
      const queries = ['cart', 'the', 'check*', 'cart payment', 'refund OR invoice', 'durable -queue', '"of the"', '"the cart"', 'ship* the'];
      for (const projectId of ['shop', 'ops']) {
        for (const text of queries) {
          for (const limit of [20, 60]) {
            const args = { projectId, text, limit };
            const want = await search(undefined, args);
            assert.equal(await search(a.client, args), want, `the team server's ${text} in ${projectId}, ${limit}`);
            assert.equal(await search(b.client, args), want, `the server without an index: ${text} in ${projectId}, ${limit}`);
          }
        }
      }
      const answered = metric(await metrics(team.port), 'agent_progress_search_index_answers_total')!;
      assert.ok(answered >= queries.length * 4 - 4, `searches answered from the index: ${answered}`);
      // An entry written by another process: the team server's next search reads it into the index.
      await call(stdio, 'log_progress', { projectId: 'shop', title: 'Zeppelin cart', content: 'A word no entry had: zeppelin.' });
      assert.match(await search(a.client, { projectId: 'shop', text: 'zeppelin', limit: 20 }), /^1: /);
      assert.equal(await search(a.client, { projectId: 'shop', text: 'cart', limit: 50 }), await search(undefined, { projectId: 'shop', text: 'cart', limit: 50 }));
      const after = await metrics(team.port);
      assert.equal(metric(after, 'agent_progress_search_index_entries'), 301);
      assert.ok(metric(after, 'agent_progress_search_index_answers_total')! >= answered + 2);
      // Twenty entries of two projects written at once: the index adds them all without being
      // built again (a commit out of order is forced in pgMemoryIndex.test.ts; here it may not happen).
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          a.client.callTool({ name: 'log_progress', arguments: { projectId: i % 2 ? 'shop' : 'ops', title: `Quokka ${i}`, content: 'quokka burst' } }),
        ),
      );
      for (const r of burst) assert.ok(!r.isError, JSON.stringify(r.content));
      for (const projectId of ['shop', 'ops']) {
        assert.equal(await search(a.client, { projectId, text: 'quokka', limit: 20 }), await search(undefined, { projectId, text: 'quokka', limit: 20 }));
      }
      const burstMetrics = await metrics(team.port);
      assert.equal(metric(burstMetrics, 'agent_progress_search_index_entries'), 321);
      assert.equal(metric(burstMetrics, 'agent_progress_search_index_builds_total'), 1, 'built once, at start');
      // AGENT_PROGRESS_SEARCH_INDEX=off: no index, nothing about one in /metrics.
      assert.equal(metric(await metrics(off.port), 'agent_progress_search_index_entries'), undefined);
      assert.doesNotMatch(off.stderr(), /Ranked search answers from memory/);
      await a.client.close();
      await b.client.close();
    } finally {
      await Promise.all([team.stop(), off.stop(), stdio.close()]);
    }
  });

  it('runs from a bundle with no node_modules around it (pg bundled, pg-native never loaded) and names a wrong password without printing it', async () => {
    const url = await server().createDatabase();
    const alone = tempDir();
    copyShippedDist(alone); // pg is in vendor-pg.js, beside cli.js
    const script = path.join(alone, 'cli.js');
    const logged = spawnSync(process.execPath, [script, '--db', url, 'log', '--project', 'team', '--title', 'From a bare bundle', '--content', 'No node_modules here.'], {
      cwd: alone,
      env: cleanEnv(),
      encoding: 'utf8',
    });
    assert.equal(logged.status, 0, logged.stderr);
    const projects = spawnSync(process.execPath, [script, '--db', url, 'projects', '--json'], { cwd: alone, env: cleanEnv(), encoding: 'utf8' });
    assert.equal(projects.status, 0, projects.stderr);
    assert.match(projects.stdout, /"team"/);

    const wrong = url.replace(PG_TEST_PASSWORD, 'not-the-password-at-all');
    assert.notEqual(wrong, url);
    const refused = cli(['--db', wrong, 'projects']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused the login .*check the user and password/);
    assert.ok(!refused.stderr.includes('not-the-password-at-all'), refused.stderr);
    const unreachable = cli(['projects'], { AGENT_PROGRESS_DATABASE_URL: `postgres://ap:${PG_TEST_PASSWORD}@127.0.0.1:1/ap` });
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /Cannot reach PostgreSQL at postgres:\/\/ap:\[redacted\]@127\.0\.0\.1:1\/ap/);
    assert.ok(!unreachable.stderr.includes(PG_TEST_PASSWORD));
    const bad = cli(['projects'], { AGENT_PROGRESS_DATABASE_URL: 'mysql://root:hunter22@db/x' });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /must be a PostgreSQL connection string/);
    assert.ok(!bad.stderr.includes('hunter22'));
  });
});
