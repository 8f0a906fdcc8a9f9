// Queue throughput (issue 4): request_task + complete_task by 1, 5 and 10 agent processes (real
// servers over stdio, one agent each, started as the editor starts them) draining the same queue, side by side in one run: the
// agent counts take turns, round after round, so that a busy moment of a shared machine falls on
// all of them. Reports the median tasks per second over the rounds (and their range) and the
// p50/p99 of request_task; checks that every task was completed exactly once; never asserts on time.
//
//   node bench/queue.mjs [--quick] [--tasks N] [--rounds N] [--before DIR] [--work MS]   (npm run bench:queue builds first)
//
// With --work MS each agent works MS milliseconds on a task (a timer, no CPU) between taking it and
// completing it, as a real agent does for seconds: what ten agents gain then is what the queue
// lets them do at once, no longer bounded by the CPU of the calls themselves.
//
// With --before DIR (a checkout of another commit with its dist/ built) the same runs are made with
// that build too, interleaved with this one's, and each row says which build it is.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const tasksFlag = argv.indexOf('--tasks');
const TASKS = tasksFlag >= 0 ? Number(argv[tasksFlag + 1]) : QUICK ? 300 : 1_000;
const roundsFlag = argv.indexOf('--rounds');
const ROUNDS = roundsFlag >= 0 ? Number(argv[roundsFlag + 1]) : QUICK ? 1 : 3;
const AGENTS = [1, 5, 10];
const workFlag = argv.indexOf('--work');
const WORK_MS = workFlag >= 0 ? Number(argv[workFlag + 1]) : 0;
const beforeFlag = argv.indexOf('--before');
const BUILDS = [
  { name: 'this build', root },
  ...(beforeFlag >= 0 ? [{ name: `before (${path.basename(path.resolve(argv[beforeFlag + 1]))})`, root: path.resolve(argv[beforeFlag + 1]) }] : []),
];
const say = (line) => process.stderr.write(`bench: ${line}\n`);
const require = createRequire(import.meta.url);

/**
 * The node options and environment a build's servers run with when the editor or an agent's
 * config starts them (src/core/leanNode.ts LEAN_NODE_ARGS and LEAN_NODE_ENV), read from its
 * dist/core.js; none for a build from before it had them.
 */
function launchOf(build) {
  build.launch ??= (() => {
    const { LEAN_NODE_ARGS = [], LEAN_NODE_ENV = {} } = require(path.join(build.root, 'dist', 'core.js'));
    return { args: [...LEAN_NODE_ARGS], env: { ...LEAN_NODE_ENV } };
  })();
  return build.launch;
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function server(db, build) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...launchOf(build).args, path.join(build.root, 'dist', 'server.js'), '--toolset', 'queue'],
    env: { ...launchOf(build).env, ...process.env, AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_LOG_LEVEL: 'error' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-queue', version: '1' });
  await client.connect(transport);
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return r.structuredContent;
}

async function drain(agents, build) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-queue-'));
  const db = path.join(dir, 'data.db');
  try {
    const admin = await server(db, build);
    await call(admin, 'create_project', { name: 'bench' });
    for (let start = 0; start < TASKS; start += 1_000) {
      const n = Math.min(1_000, TASKS - start);
      await call(admin, 'create_tasks_bulk', { projectId: 'bench', tasks: Array.from({ length: n }, (_, i) => ({ instructions: `task ${start + i}` })) });
    }
    await admin.close();
    const clients = await Promise.all(Array.from({ length: agents }, () => server(db, build)));
    await Promise.all(clients.map((c, i) => call(c, 'register_agent', { projectId: 'bench', agentName: `a${i}` })));
    const latencies = [];
    const taken = [];
    const started = performance.now();
    const counts = await Promise.all(
      clients.map(async (c) => {
        let n = 0;
        for (;;) {
          const t0 = performance.now();
          const r = await call(c, 'request_task', {});
          latencies.push(performance.now() - t0);
          if (!r.task) return n;
          taken.push(r.task.id);
          if (WORK_MS > 0) await new Promise((resolve) => setTimeout(resolve, WORK_MS));
          await call(c, 'complete_task', { taskId: r.task.id, explanation: 'ok' });
          n++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(clients.map((c) => c.close()));
    const done = counts.reduce((a, b) => a + b, 0);
    const unique = new Set(taken).size;
    if (unique !== taken.length || done !== TASKS) throw new Error(`${agents} agents: ${taken.length} assignments of ${unique} distinct tasks, ${done} completed of ${TASKS}`);
    return { done, seconds, perSecond: done / seconds, latencies, spread: counts };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const runs = new Map(BUILDS.flatMap((b) => AGENTS.map((a) => [`${b.name}:${a}`, []])));
for (let round = 1; round <= ROUNDS; round++) {
  for (const agents of AGENTS) {
    for (const build of BUILDS) {
      say(`round ${round} of ${ROUNDS}: ${build.name}, ${agents} agent process(es) draining ${TASKS} tasks`);
      runs.get(`${build.name}:${agents}`).push(await drain(agents, build));
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lines = [
  `| build | agent processes | tasks/s (request + complete), median of ${ROUNDS} | range | vs 1 agent | request_task p50 / p99 | tasks per agent |`,
  `|---|---|---|---|---|---|---|`,
];
for (const build of BUILDS) {
  const rows = AGENTS.map((agents) => {
    const r = runs.get(`${build.name}:${agents}`);
    const latencies = r.flatMap((x) => x.latencies).sort((a, b) => a - b);
    const rates = r.map((x) => x.perSecond);
    return {
      agents,
      perSecond: median(rates),
      min: Math.min(...rates),
      max: Math.max(...rates),
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      spread: r.flatMap((x) => x.spread),
    };
  });
  const base = rows[0].perSecond;
  for (const r of rows)
    lines.push(
      `| ${build.name} | ${r.agents} | ${r.perSecond.toFixed(0)} | ${r.min.toFixed(0)}-${r.max.toFixed(0)} | ${(r.perSecond / base).toFixed(2)}x | ${r.p50.toFixed(2)} ms / ${r.p99.toFixed(1)} ms | ${Math.min(...r.spread)}-${Math.max(...r.spread)} |`,
    );
}
const table = `Queue throughput, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; ${TASKS} tasks per run, ${ROUNDS} round(s)${WORK_MS > 0 ? `, each agent working ${WORK_MS} ms on each task` : ''}; every task was assigned and completed exactly once in every run (checked).\n\n${lines.join('\n')}\n`;
process.stdout.write(table);
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench', 'results', `queue-${QUICK ? 'quick' : WORK_MS > 0 ? 'work' : 'latest'}.md`), table);
