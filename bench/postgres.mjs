// The team ledger on PostgreSQL beside the embedded engine, side by side in one run (issue 9):
// log_progress and request_task (+ complete_task) through real MCP clients over stdio to the built
// server, one server per backend, in alternating blocks of calls so that a busy moment of a shared
// machine falls on both; then 10 agent processes per backend draining a queue. Both durable:
// the embedded journal is fdatasynced per write, PostgreSQL runs with fsync and synchronous_commit
// on. Prints Markdown tables (p50, p95, calls per second) and writes them to bench/results/;
// never asserts on time.
//
//   node bench/postgres.mjs [--quick] [--url postgres://...]      (npm run bench:postgres builds first)
//
// Without --url (or AGENT_PROGRESS_BENCH_DATABASE_URL) it starts a throwaway PostgreSQL cluster
// from Debian's postgresql package in a temp folder on 127.0.0.1 (as the postgres user when run
// as root), like the tests do, and removes it at the end.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createDatabase, startCluster } from './pgCluster.mjs';
import { loadAverage } from './loadAverage.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const urlFlag = argv.indexOf('--url');
const GIVEN_URL = urlFlag >= 0 ? argv[urlFlag + 1] : process.env.AGENT_PROGRESS_BENCH_DATABASE_URL;
const CALLS = QUICK ? 300 : 1_000;
const BLOCK = 100;
const DRAIN_TASKS = QUICK ? 300 : 1_000;
const DRAIN_AGENTS = 10;
const say = (line) => process.stderr.write(`bench: ${line}\n`);
const cleanups = [];

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function stats(samples, seconds) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: samples.length, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), perSecond: samples.length / seconds };
}

// ---- MCP clients --------------------------------------------------------------------------

async function server(backend, toolset) {
  const env = { ...process.env, AGENT_PROGRESS_LOG_LEVEL: 'error' };
  for (const k of Object.keys(env)) if (k.startsWith('AGENT_PROGRESS_') && k !== 'AGENT_PROGRESS_LOG_LEVEL') delete env[k];
  if (backend.url) env.AGENT_PROGRESS_DATABASE_URL = backend.url;
  else env.AGENT_PROGRESS_DB_PATH = backend.file;
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(root, 'dist', 'server.js'), '--toolset', toolset], env, stderr: 'ignore' });
  const client = new Client({ name: 'bench-postgres', version: '1' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`);
  return r.structuredContent;
}

/**
 * Alternating blocks of `op` on each backend. `op` returns the latency of the call measured (ms);
 * calls per second count the whole block (for request_task: with its complete_task).
 */
async function interleaved(backends, op) {
  const out = backends.map(() => ({ samples: [], seconds: 0 }));
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (let b = 0; b < backends.length; b++) {
      const t0 = performance.now();
      for (let i = 0; i < BLOCK; i++) out[b].samples.push(await op(backends[b], done + i));
      out[b].seconds += (performance.now() - t0) / 1000;
    }
  }
  return out.map((o) => stats(o.samples, o.seconds));
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

async function drain(backend) {
  const admin = await server(backend, 'queue');
  await call(admin, 'create_project', { name: 'drain' });
  for (let s = 0; s < DRAIN_TASKS; s += 1_000) {
    const n = Math.min(1_000, DRAIN_TASKS - s);
    await call(admin, 'create_tasks_bulk', { projectId: 'drain', tasks: Array.from({ length: n }, (_, i) => ({ instructions: `t${s + i}` })) });
  }
  await admin.close();
  const agents = await Promise.all(Array.from({ length: DRAIN_AGENTS }, () => server(backend, 'queue')));
  await Promise.all(agents.map((c, i) => call(c, 'register_agent', { projectId: 'drain', agentName: `d${i}` })));
  const taken = [];
  const t0 = performance.now();
  await Promise.all(
    agents.map(async (c) => {
      for (;;) {
        const r = await call(c, 'request_task', {});
        if (!r.task) return;
        taken.push(r.task.id);
        await call(c, 'complete_task', { taskId: r.task.id, explanation: 'ok' });
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(agents.map((c) => c.close()));
  if (taken.length !== DRAIN_TASKS || new Set(taken).size !== DRAIN_TASKS) throw new Error(`${backend.name}: ${taken.length} tasks handed out, ${new Set(taken).size} distinct`);
  return { seconds, perSecond: DRAIN_TASKS / seconds };
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-pgbench-embedded-'));
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
  say(GIVEN_URL ? 'using the PostgreSQL server given' : 'starting a throwaway PostgreSQL cluster (fsync on)');
  const adminUrl = GIVEN_URL ?? (await startCluster(cleanups));
  const version = await (async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    const v = (await c.query('SHOW server_version')).rows[0].server_version;
    await c.end();
    return v;
  })();
  const fresh = async (tag) => ({
    embedded: { name: 'embedded (sql.js + journal)', file: path.join(tmp, `${tag}.db`) },
    postgres: { name: `PostgreSQL ${version}`, url: await createDatabase(adminUrl) },
  });

  say(`log_progress: ${CALLS} calls per backend in alternating blocks of ${BLOCK}`);
  const logB = await fresh('log');
  const logClients = [await server(logB.embedded, 'progress'), await server(logB.postgres, 'progress')];
  const content = 'Worked on the cart totals; the rounding of discounts was off by one cent. '.repeat(20);
  const log = await interleaved(logClients, async (c, i) => (await timed(() => call(c, 'log_progress', { projectId: 'bench', title: `Step ${i}`, content, tags: ['cart'] })))[0]);
  await Promise.all(logClients.map((c) => c.close()));

  say(`request_task (+ complete_task): ${CALLS} per backend, one agent each, alternating blocks`);
  const qB = await fresh('queue');
  const qClients = [await server(qB.embedded, 'queue'), await server(qB.postgres, 'queue')];
  for (const c of qClients) {
    await call(c, 'create_project', { name: 'bench' });
    for (let s = 0; s < CALLS; s += 1_000)
      await call(c, 'create_tasks_bulk', { projectId: 'bench', tasks: Array.from({ length: Math.min(1_000, CALLS - s) }, (_, i) => ({ instructions: `t${s + i}` })) });
    await call(c, 'register_agent', { projectId: 'bench', agentName: 'solo' });
  }
  const request = await interleaved(qClients, async (c) => {
    const [ms, r] = await timed(() => call(c, 'request_task', {}));
    if (!r.task) throw new Error('the queue ran dry');
    // Completed at once (outside the latency measured), so the next request assigns a new task.
    await call(c, 'complete_task', { taskId: r.task.id, explanation: 'ok' });
    return ms;
  });
  await Promise.all(qClients.map((c) => c.close()));

  say(`draining ${DRAIN_TASKS} tasks with ${DRAIN_AGENTS} agent processes per backend`);
  const dB = await fresh('drain');
  const drainEmbedded = await drain(dB.embedded);
  const drainPostgres = await drain(dB.postgres);

  const ms = (v) => v.toFixed(2);
  const row = (what, name, s) => `| ${what} | ${name} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${s.perSecond.toFixed(0)} |`;
  const lines = [
    `# PostgreSQL beside the embedded engine (${new Date().toISOString().slice(0, 16)}Z${QUICK ? ', quick' : ''})`,
    '',
    `${os.cpus().length} cores, load average ${loadAverage(' ')}; PostgreSQL ${version} ${GIVEN_URL ? '(given server)' : 'throwaway cluster on 127.0.0.1, fsync and synchronous_commit on'}; the embedded journal fdatasynced per write.`,
    'Through real MCP clients over stdio to dist/server.js, one server per backend, alternating blocks of 100 calls; latency in the client, ms.',
    '',
    '| operation | backend | calls | p50 ms | p95 ms | calls/s |',
    '|---|---|---|---|---|---|',
    row('log_progress', logB.embedded.name, log[0]),
    row('log_progress', logB.postgres.name, log[1]),
    row('request_task', qB.embedded.name, request[0]),
    row('request_task', qB.postgres.name, request[1]),
    '',
    `Ratios PostgreSQL / embedded (p50): log_progress ${(log[1].p50 / log[0].p50).toFixed(2)}x, request_task ${(request[1].p50 / request[0].p50).toFixed(2)}x.`,
    '',
    `| ${DRAIN_AGENTS} agent processes drain ${DRAIN_TASKS} tasks (request_task + complete_task) | seconds | tasks/s |`,
    '|---|---|---|',
    `| ${dB.embedded.name} | ${drainEmbedded.seconds.toFixed(1)} | ${drainEmbedded.perSecond.toFixed(0)} |`,
    `| ${dB.postgres.name} | ${drainPostgres.seconds.toFixed(1)} | ${drainPostgres.perSecond.toFixed(0)} |`,
    '',
    'Every task of each drain was handed out exactly once (checked).',
  ];
  const text = lines.join('\n') + '\n';
  process.stdout.write(text);
  const dir = path.join(root, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `postgres-${QUICK ? 'quick' : 'latest'}.md`), text);
  fs.writeFileSync(path.join(dir, `postgres-${new Date().toISOString().slice(0, 16).replace(/[T:]/g, '-')}${QUICK ? '-quick' : ''}.md`), text);
}

const cleanup = () => {
  while (cleanups.length > 0) {
    try {
      cleanups.pop()();
    } catch {
      // best effort
    }
  }
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});
main().then(cleanup, (err) => {
  cleanup();
  process.stderr.write(`bench: failed: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
