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
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

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

// ---- a throwaway PostgreSQL cluster ----------------------------------------------------------

function pgBin() {
  const c = [];
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (cfg.status === 0) c.push(cfg.stdout.trim());
  try {
    for (const v of fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))) c.push(path.join('/usr/lib/postgresql', v, 'bin'));
  } catch {
    // not Debian's layout
  }
  return c.find((d) => fs.existsSync(path.join(d, 'initdb')));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startCluster() {
  const bin = pgBin();
  if (!bin) throw new Error('PostgreSQL not found: install Debian\'s postgresql package, or pass --url postgres://...');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-pgbench-cluster-'));
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? { uid: Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout), gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout) } : undefined;
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const wrap = (cmd, args) => (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  const data = path.join(dir, 'data');
  const [ic, ia] = wrap(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const init = spawnSync(ic, ia, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  // Durable like the embedded engine: fsync and synchronous_commit stay on (the defaults).
  const [pc, pa] = wrap(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200']);
  const child = spawn(pc, pa, { cwd: dir, stdio: 'ignore' });
  cleanups.push(() => {
    // The postmaster's own pid: runuser does not pass signals on.
    let pids = [child.pid];
    try {
      pids = [Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), child.pid];
    } catch {
      // not started
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // gone
      }
    }
  });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: admin });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (err) {
      await c.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return admin;
}

let dbCount = 0;
async function createDatabase(adminUrl) {
  const name = `ap_bench_${process.pid}_${++dbCount}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
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
  const adminUrl = GIVEN_URL ?? (await startCluster());
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
    for (let s = 0; s < CALLS; s += 1_000) await call(c, 'create_tasks_bulk', { projectId: 'bench', tasks: Array.from({ length: Math.min(1_000, CALLS - s) }, (_, i) => ({ instructions: `t${s + i}` })) });
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
    `${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; PostgreSQL ${version} ${GIVEN_URL ? '(given server)' : 'throwaway cluster on 127.0.0.1, fsync and synchronous_commit on'}; the embedded journal fdatasynced per write.`,
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
main()
  .then(cleanup, (err) => {
    cleanup();
    process.stderr.write(`bench: failed: ${err.stack ?? err}\n`);
    process.exitCode = 1;
  });
