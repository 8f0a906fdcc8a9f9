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
//
// The machine's own reference, in the same rounds: 1, 5 and 10 of the SDK's no-op servers
// (bench/noopServer.mjs, started as the queue's servers are), each called by its own loop as
// often as the queue's servers are (two calls a task), with nothing behind them. What ten of
// them add over one is what this machine lets ten MCP server processes add at all.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
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

/** A client of `script` run as `build`'s servers run (its node options and environment), plus `env`. */
async function connectTo(build, script, args, env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...launchOf(build).args, script, ...args],
    env: { ...launchOf(build).env, ...process.env, ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-queue', version: '1' });
  await client.connect(transport);
  return client;
}

const server = (db, build) =>
  connectTo(build, path.join(build.root, 'dist', 'server.js'), ['--toolset', 'queue'], { AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_LOG_LEVEL: 'error' });

/** Clock ticks per second of /proc/PID/stat's CPU times (Linux); undefined where there is no /proc. */
const CLOCK_TICKS = (() => {
  if (!fs.existsSync('/proc/self/stat')) return undefined;
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far, from /proc; 0 once it is gone. */
function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(/\s+/);
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The ledger host serving `db`: the process whose command line names it after --ledger. */
function hostPid(db) {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--ledger');
      if (at >= 0 && args[at + 1] === db && args.some((a) => a.endsWith('ledgerHost.js')) && !args.includes('--standby')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** CPU seconds so far of the bench itself, the host (its pid) and the servers of `clients` (undefined without /proc). */
function cpuNow(host, clients) {
  if (CLOCK_TICKS === undefined) return undefined;
  const usage = process.cpuUsage();
  return {
    bench: (usage.user + usage.system) / 1e6,
    host: host === undefined ? NaN : cpuSeconds(host),
    servers: clients.reduce((sum, c) => sum + cpuSeconds(c.transport.pid), 0),
  };
}

/** The SDK's no-op server, started as this build's servers are. */
const noopServer = () => connectTo(BUILDS[0], path.join(root, 'bench', 'noopServer.mjs'), [], {});

/** The CPU seconds spent between two readings of cpuNow, per process kind (undefined without /proc). */
function cpuSpent(before, after) {
  return before && after ? Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]])) : undefined;
}

/** `servers` no-op servers answering the calls of TASKS tasks (two each) between them, a loop each. */
async function noopDrain(servers) {
  const clients = await Promise.all(Array.from({ length: servers }, () => noopServer()));
  try {
    const calls = 2 * TASKS;
    const shares = clients.map((_, i) => Math.floor(calls / servers) + (i < calls % servers ? 1 : 0));
    await Promise.all(clients.map((c) => c.callTool({ name: 'noop', arguments: {} })));
    const cpuBefore = cpuNow(undefined, clients);
    const started = performance.now();
    await Promise.all(
      clients.map(async (c, i) => {
        for (let n = 0; n < shares[i]; n++) await call(c, 'noop', {});
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuNow(undefined, clients);
    return { calls, seconds, perSecond: calls / seconds, cpu: cpuSpent(cpuBefore, cpuAfter) };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
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
    const host = CLOCK_TICKS === undefined ? undefined : hostPid(db);
    const cpuBefore = cpuNow(host, clients);
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
    const cpuAfter = cpuNow(host, clients);
    await Promise.all(clients.map((c) => c.close()));
    const done = counts.reduce((a, b) => a + b, 0);
    const unique = new Set(taken).size;
    if (unique !== taken.length || done !== TASKS) throw new Error(`${agents} agents: ${taken.length} assignments of ${unique} distinct tasks, ${done} completed of ${TASKS}`);
    return { done, seconds, perSecond: done / seconds, latencies, spread: counts, cpu: cpuSpent(cpuBefore, cpuAfter) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const runs = new Map(BUILDS.flatMap((b) => AGENTS.map((a) => [`${b.name}:${a}`, []])));
const noopRuns = new Map(AGENTS.map((a) => [a, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const agents of AGENTS) {
    for (const build of BUILDS) {
      say(`round ${round} of ${ROUNDS}: ${build.name}, ${agents} agent process(es) draining ${TASKS} tasks`);
      runs.get(`${build.name}:${agents}`).push(await drain(agents, build));
    }
    if (WORK_MS === 0) {
      say(`round ${round} of ${ROUNDS}: the SDK's no-op server, ${agents} process(es) answering ${2 * TASKS} calls`);
      noopRuns.get(agents).push(await noopDrain(agents));
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The median of the rounds' rates per second, and their range. */
const rateOf = (rates) => ({ perSecond: median(rates), min: Math.min(...rates), max: Math.max(...rates) });
const lines = [
  `| build | agent processes | tasks/s (request + complete), median of ${ROUNDS} | range | vs 1 agent | request_task p50 / p99 | tasks per agent | CPU ms per task: bench / host / servers | cores busy |`,
  `|---|---|---|---|---|---|---|---|---|`,
];
const notes = [];
for (const build of BUILDS) {
  const rows = AGENTS.map((agents) => {
    const r = runs.get(`${build.name}:${agents}`);
    const latencies = r.flatMap((x) => x.latencies).sort((a, b) => a - b);
    return {
      agents,
      ...rateOf(r.map((x) => x.perSecond)),
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      spread: r.flatMap((x) => x.spread),
      // Medians over the rounds of CPU per task and of the cores the processes kept busy.
      cpu: r.every((x) => x.cpu)
        ? {
            ...Object.fromEntries(['bench', 'host', 'servers'].map((k) => [k, median(r.map((x) => (1000 * x.cpu[k]) / x.done))])),
            cores: median(r.map((x) => (x.cpu.bench + x.cpu.host + x.cpu.servers) / x.seconds)),
          }
        : undefined,
    };
  });
  const base = rows[0].perSecond;
  for (const r of rows)
    lines.push(
      `| ${build.name} | ${r.agents} | ${r.perSecond.toFixed(0)} | ${r.min.toFixed(0)}-${r.max.toFixed(0)} | ${(r.perSecond / base).toFixed(2)}x | ${r.p50.toFixed(2)} ms / ${r.p99.toFixed(1)} ms | ${Math.min(...r.spread)}-${Math.max(...r.spread)} | ${
        r.cpu ? `${r.cpu.bench.toFixed(2)} / ${r.cpu.host.toFixed(2)} / ${r.cpu.servers.toFixed(2)}` : 'n/a (no /proc)'
      } | ${r.cpu ? r.cpu.cores.toFixed(2) : 'n/a'} |`,
    );
  // One agent's calls follow one another: the cores its processes keep busy bound what more agents
  // can add while a task costs them the CPU it costs one agent. The host commits the writes of many
  // agents together (one journal record and one fdatasync), so a task may cost ten agents less.
  const one = rows[0].cpu;
  const most = rows[rows.length - 1];
  if (one && WORK_MS === 0) {
    const cores = os.cpus().length;
    const perTask = (cpu) => cpu.bench + cpu.host + cpu.servers;
    const boundAt = (cpu) => (1000 * cores) / (perTask(cpu) * base);
    notes.push(
      `${build.name}: one agent keeps ${one.cores.toFixed(2)} cores busy, so at its ${perTask(one).toFixed(2)} ms of CPU per task ${cores} cores bound any number of agents at ${boundAt(one).toFixed(2)}x its tasks/s.` +
        (most.cpu && most.agents > 1
          ? ` ${most.agents} agents spent ${perTask(most.cpu).toFixed(2)} ms per task, which bounds them at ${boundAt(most.cpu).toFixed(2)}x; they reached ${(most.perSecond / base).toFixed(2)}x.`
          : ''),
    );
  }
}
// The machine's reference: what ten MCP server processes add over one with nothing behind them.
let reference = '';
if (WORK_MS === 0) {
  const rows = AGENTS.map((servers) => {
    const r = noopRuns.get(servers);
    return {
      servers,
      ...rateOf(r.map((x) => x.perSecond)),
      cpu: r.every((x) => x.cpu)
        ? {
            bench: median(r.map((x) => (1e6 * x.cpu.bench) / x.calls)),
            servers: median(r.map((x) => (1e6 * x.cpu.servers) / x.calls)),
            cores: median(r.map((x) => (x.cpu.bench + x.cpu.servers) / x.seconds)),
          }
        : undefined,
    };
  });
  const base = rows[0].perSecond;
  const out = [
    `The machine's reference, in the same rounds: the SDK's own no-op server (\`bench/noopServer.mjs\`), one process per loop, answering ${2 * TASKS} calls (two per task) with nothing behind them.`,
    '',
    `| server processes | no-op calls/s, median of ${ROUNDS} | range | vs 1 process | CPU µs per call: bench / servers | cores busy |`,
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.servers} | ${r.perSecond.toFixed(0)} | ${r.min.toFixed(0)}-${r.max.toFixed(0)} | ${(r.perSecond / base).toFixed(2)}x | ${
          r.cpu ? `${r.cpu.bench.toFixed(0)} / ${r.cpu.servers.toFixed(0)}` : 'n/a (no /proc)'
        } | ${r.cpu ? r.cpu.cores.toFixed(2) : 'n/a'} |`,
    ),
  ];
  const last = rows[rows.length - 1];
  if (rows[0].cpu && last.cpu)
    out.push(
      '',
      `The no-op servers: ${last.servers} processes answer ${(last.perSecond / base).toFixed(2)}x the calls of one, and a call costs their servers ${(last.cpu.servers / rows[0].cpu.servers).toFixed(2)}x the CPU it costs one.`,
    );
  reference = `\n${out.join('\n')}\n`;
}
const table = `Queue throughput, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; ${TASKS} tasks per run, ${ROUNDS} round(s)${WORK_MS > 0 ? `, each agent working ${WORK_MS} ms on each task` : ''}; every task was assigned and completed exactly once in every run (checked).\n\n${lines.join('\n')}\n${notes.length > 0 ? `\n${notes.join('\n')}\n` : ''}${reference}`;
process.stdout.write(table);
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench', 'results', `queue-${QUICK ? 'quick' : WORK_MS > 0 ? 'work' : 'latest'}.md`), table);
