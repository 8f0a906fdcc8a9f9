// The ledger host's figures, side by side in one run: RSS of the five toolset servers plus the
// host with every server having touched an N-entry ledger, one server's RSS, the host's RSS over
// the ledger's size, spawn to first answer of a new server with a warm host, `agent-progress
// search` wall time (both also without NODE_EXTRA_CA_CERTS when it is set), and log_progress p50 through the host against a no-op SDK server
// and against the floor of a durable write through a second process (bench/floorHost.mjs). The host's
// standby (a second host process waiting to take over) is counted in the total and shown apart.
// With --before DIR (a dist/ built from another commit) the same figures are taken for that build
// first, in the same run, and shown beside this build's. Servers run as the extension starts them
// (the build's LEAN_NODE_ARGS and LEAN_NODE_ENV, src/core/leanNode.ts, when it has them). Memory is
// RSS, the goal's figure, and PSS beside it: RSS counts the pages of the node binary shared by
// every process again in each, PSS divides them among the processes that share them (on a busy
// machine, other node processes too). Prints a Markdown table; asserts nothing.
// Usage: node bench/host.mjs [--entries N] [--calls N] [--warm N] [--idle MS] [--before DIR] [--log-only] [--ledger DIR] (needs dist/).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { connectFloor } from './floorClient.mjs';
import { loadAverage } from './loadAverage.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const beforeIndex = process.argv.indexOf('--before');
const BEFORE = beforeIndex >= 0 ? path.resolve(process.argv[beforeIndex + 1]) : undefined;
const ENTRIES = arg('--entries', 10_000);
// --log-only: only the log_progress row (and the no-op floor beside it), for work on the write path.
const LOG_ONLY = process.argv.includes('--log-only');
// --ledger DIR: seed the ledger into DIR once (when DIR holds none) and give each build a copy of it, so that a 100k
// ledger is written once for both builds of --before and across runs; DIR is kept.
const ledgerIndex = process.argv.indexOf('--ledger');
const LEDGER = ledgerIndex >= 0 ? path.resolve(process.argv[ledgerIndex + 1]) : undefined;
const CALLS = arg('--calls', 200);
// --idle MS: before each timed call of the log_progress rows, wait MS with every process idle (as
// between an agent's calls) instead of calling a second no-op server.
const IDLE = arg('--idle', 0);
// --warm N: N untimed rounds (a no-op call, then a log_progress call to each build's server) before the timed ones. A host the
// bench seeded itself (no --ledger) has written the ledger's entries just before: warm. A host started on a copied ledger
// (--ledger) starts for the run, and the timed calls meet its start-up: V8 compiling the write path, its standby starting,
// ranked search's term index being built, sql.js's first copy of the ledger as the database file grows.
const WARM = arg('--warm', 0);
const mb = (bytes) => `${(bytes / 1048576).toFixed(0)} MB`;
const silent = { debug() {}, info() {}, warn() {}, error() {}, addSecret() {}, once() {} };

/** RSS and PSS of a process, in bytes (0 when it is gone). */
function memOf(pid) {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
    return { rss: kb('Rss'), pss: kb('Pss') };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

const sum = (mems) => mems.reduce((a, m) => ({ rss: a.rss + m.rss, pss: a.pss + m.pss }), { rss: 0, pss: 0 });
const mem = (m) => `${mb(m.rss)} (PSS ${mb(m.pss)})`;

function env(db, extra = {}) {
  const out = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_PROGRESS_') && !k.startsWith('OPENAI_')) out[k] = v;
  // The CLI's and the servers' V8 code cache (src/core/codeCache.ts) in the bench's folder, not the user's: the first start of each writes it, the p50s are of starts that use it.
  return { ...out, AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_HOST_IDLE_MS: '600000', AGENT_PROGRESS_CODE_CACHE: path.join(path.dirname(db), 'code-cache'), ...extra };
}

// This machine's NODE_EXTRA_CA_CERTS, if any: the start figures are taken with it (as a process here starts) and without it.
const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS;
function noExtraCa(environment) {
  const { NODE_EXTRA_CA_CERTS: _, ...rest } = environment;
  return rest;
}

async function connect(command, args, environment) {
  const transport = new StdioClientTransport({ command, args, env: environment, stderr: 'pipe' });
  const client = new Client({ name: 'bench', version: '1' });
  const started = performance.now();
  await client.connect(transport);
  return { client, transport, ms: performance.now() - started, pid: transport.pid };
}

/** One call of the no-op SDK server's tool. */
const callNoop = (server) => server.client.callTool({ name: 'noop', arguments: {} });
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function pidIn(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')).pid;
  } catch {
    return undefined;
  }
}

function servicesOptions(db) {
  return { config: { dbPath: db, openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } }, logger: silent, host: { idleMs: 600_000 } };
}

/** Writes the ENTRIES-entry ledger at `db` through `dist`'s host and compacts it; stops the host when `stopHost`. */
async function seed(dist, db, stopHost) {
  const { Services } = require(path.join(dist, 'core.js'));
  const services = new Services(servicesOptions(db));
  try {
    const ledger = await services.ledger();
    const body = 'x'.repeat(1200);
    for (let i = 0; i < ENTRIES; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, ENTRIES - i) }, (_, j) =>
          ledger.progress.insertEntry({
            id: `b${i + j}`,
            projectId: 'bench',
            title: `entry ${i + j} about ${['auth', 'db', 'ui', 'cache'][(i + j) % 4]}`,
            content: `${body} word${(i + j) % 97}`,
            createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i + j)).toISOString(),
            tags: [],
            agentId: null,
          }),
        ),
      );
    }
    await ledger.settle();
    await ledger.compact();
  } finally {
    await services.close();
    if (stopHost) spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'host', 'stop'], { env: env(db) });
  }
}

/** The figures for the build in `dist` (its server, CLI, core and host), as [figure, measured, goal] rows. */
async function measure(dist) {
  const { Services, LEAN_NODE_ARGS = [], LEAN_NODE_ENV = {} } = require(path.join(dist, 'core.js'));
  const server = (toolset) => [process.execPath, [...LEAN_NODE_ARGS, path.join(dist, 'server.js'), '--toolset', toolset], env(db, LEAN_NODE_ENV)];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-host-'));
  const db = path.join(dir, 'data.db');
  const rows = [];
  try {
    if (LEDGER) {
      // --ledger: the seeded ledger is written once (through this build's host) and copied for each build.
      const marker = path.join(LEDGER, 'bench-entries');
      if (!fs.existsSync(marker)) {
        fs.mkdirSync(LEDGER, { recursive: true, mode: 0o700 });
        await seed(dist, path.join(LEDGER, 'data.db'), true);
        fs.writeFileSync(marker, String(ENTRIES));
      } else if (Number(fs.readFileSync(marker, 'utf8')) !== ENTRIES) {
        throw new Error(`${LEDGER} holds a ledger of ${fs.readFileSync(marker, 'utf8')} entries, not ${ENTRIES}: remove it or pass its --entries`);
      }
      for (const name of fs.readdirSync(LEDGER))
        if (name !== 'bench-entries' && fs.lstatSync(path.join(LEDGER, name)).isFile()) fs.copyFileSync(path.join(LEDGER, name), path.join(dir, name));
    } else {
      await seed(dist, db, false);
    }
    const services = new Services(servicesOptions(db));
    const status = await (await services.ledger()).host.status();
    await services.close();
    const ledgerBytes = status.ledgerBytes + status.journalBytes;

    // Five toolset servers, each having touched the ledger.
    const servers = [];
    const touch = {
      progress: ['search_logs', { projectId: 'bench', limit: 5 }],
      queue: ['list_projects', {}],
      workflow: ['log_decision', { taskId: 'nope', decision: 'x', reasoning: 'y' }],
      review: ['get_threads', {}],
      traces: ['list_sessions', { limit: 1 }],
    };
    for (const toolset of LOG_ONLY ? ['progress'] : Object.keys(touch)) {
      const s = await connect(...server(toolset));
      const [name, args] = touch[toolset];
      await s.client.callTool({ name, arguments: args }).catch(() => undefined);
      servers.push({ toolset, ...s });
    }
    const hostPid = pidIn(`${db}.host/host.pid`);
    if (LOG_ONLY) {
      // Every build's server is called in one loop, interleaved (main()).
      rows.push(...(await new Promise((resolve, reject) => arena.push({ progress: servers[0], db, resolve, reject }))));
      for (const s of servers) await s.client.close();
      return rows;
    }
    // The host starts its standby once it serves: wait (up to 10 s) for it to be up.
    let standbyPid;
    for (let waited = 0; waited < 10_000 && !(standbyPid = pidIn(`${db}.host/standby.pid`)); waited += 100) await new Promise((r) => setTimeout(r, 100));
    const serverMem = servers.map((s) => memOf(s.pid));
    const hostMem = memOf(hostPid);
    const standbyMem = standbyPid ? memOf(standbyPid) : { rss: 0, pss: 0 };
    const hostShare = (m) => `${mem(m)} = ${(m.rss / (2 * ledgerBytes + 70 * 1048576)).toFixed(2)} of 2x ledger + 70 MB`;
    rows.push([
      `five toolset servers + the host + its standby, each server having touched a ${ENTRIES}-entry ledger`,
      `${mem(sum([...serverMem, hostMem, standbyMem]))}; servers ${serverMem.map((m) => mb(m.rss)).join(', ')}`,
      '≤ 500 MB',
    ]);
    rows.push(['one toolset server (progress, after search_logs)', mem(serverMem[0]), '≤ 80 MB']);
    rows.push([`the host (ledger ${mb(ledgerBytes)})`, hostShare(hostMem), '≤ 2x ledger + 70 MB']);
    rows.push(['the standby (waiting to take over)', standbyPid ? mem(standbyMem) : 'none', 'small until it takes over']);

    // log_progress p50 through the host vs a no-op SDK server.
    const progress = servers[0];
    rows.push(...(await logRows([progress], db))[0]);
    rows.push([`the host right after those ${CALLS} writes`, hostShare(memOf(hostPid)), '≤ 2x ledger + 70 MB']);
    // Idle: past the engine's fresh snapshot (1 s after the last write) and the host's idle collection (2 s).
    await new Promise((r) => setTimeout(r, 3_000));
    rows.push([`the host 3 s after those writes (idle)`, hostShare(memOf(hostPid)), '≤ 2x ledger + 70 MB']);
    rows.push([`one toolset server after those ${CALLS} writes`, mem(memOf(progress.pid)), '≤ 80 MB']);

    // Spawn to first answer of a new server, warm host; again with NODE_EXTRA_CA_CERTS removed from its environment (Node parses
    // those certificates at every start; a user's machine usually names none), when this machine names some.
    for (const withoutCa of EXTRA_CA ? [false, true] : [false]) {
      const spawnTimes = [];
      for (let i = 0; i < 5; i++) {
        const [command, args, environment] = server('progress');
        const started = performance.now();
        const s = await connect(command, args, withoutCa ? noExtraCa(environment) : environment);
        await s.client.callTool({ name: 'search_logs', arguments: { projectId: 'bench', limit: 1 } });
        spawnTimes.push(performance.now() - started);
        await s.client.close();
      }
      rows.push([
        `spawn to first answer (initialize + search_logs) of a new server, ${ENTRIES} entries, warm host${withoutCa ? ', without NODE_EXTRA_CA_CERTS' : ''}`,
        `${p50(spawnTimes).toFixed(0)} ms (p50 of 5)`,
        '≤ 250 ms',
      ]);
    }
    // The floor: the SDK's own no-op server, run with the same lean settings (its SDK and zod load alike).
    const noopTimes = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const s = await connect(process.execPath, [...LEAN_NODE_ARGS, path.join(root, 'bench', 'noopServer.mjs')], env(db, LEAN_NODE_ENV));
      await callNoop(s);
      noopTimes.push(performance.now() - started);
      await s.client.close();
    }
    rows.push(["spawn to first answer (initialize + noop) of the SDK's no-op server", `${p50(noopTimes).toFixed(0)} ms (p50 of 5)`, 'the floor of the row above']);

    // CLI search wall time, warm host; again without NODE_EXTRA_CA_CERTS (above).
    for (const withoutCa of EXTRA_CA ? [false, true] : [false]) {
      const cliTimes = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const run = spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'search', '--project', 'bench', 'word42', '--limit', '5'], {
          env: withoutCa ? noExtraCa(env(db)) : env(db),
          encoding: 'utf8',
        });
        if (run.status !== 0) throw new Error(run.stderr);
        cliTimes.push(performance.now() - started);
      }
      rows.push([
        `agent-progress search, ${ENTRIES} entries, warm host${withoutCa ? ', without NODE_EXTRA_CA_CERTS' : ''}`,
        `${p50(cliTimes).toFixed(0)} ms (p50 of 5)`,
        '≤ 200 ms',
      ]);
    }
    for (const s of servers) await s.client.close();
  } finally {
    spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'host', 'stop'], { env: env(db) });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** With --log-only: each build's server and ledger, waiting for the interleaved loop. */
const arena = [];

/**
 * log_progress p50 through the host against a no-op SDK server, one build's server or several
 * (--log-only --before: the two builds in turn within each round, so that both meet the same load).
 * Returns the rows of each.
 */
async function logRows(servers, db) {
  const noopServer = async () => {
    const server = await connect(process.execPath, [path.join(root, 'bench', 'noopServer.mjs')], env(db));
    await callNoop(server);
    return server;
  };
  const noop = await noopServer();
  const noopMem = ["the SDK's own no-op server", mem(memOf(noop.pid)), 'one server within 15 MB of it'];
  // The second no-op server, called untimed right before each timed call (below); --idle waits instead.
  const primer = IDLE > 0 ? undefined : await noopServer();
  // The durability floor, taken between the calls on the same disk: a journal record's worth of
  // bytes appended to a file in the ledger's folder and fdatasynced, as the host does per write.
  const probe = fs.openSync(path.join(path.dirname(db), 'fdatasync-probe'), 'a', 0o600);
  const record = Buffer.alloc(700, 'x');
  // The floor of a durable write through a second process: an SDK server that sends the call's
  // arguments over a Unix socket to a process that appends them and fdatasyncs (bench/floorHost.mjs).
  const floorSocket = path.join(path.dirname(db), 'floor.sock');
  const floorHost = spawn(process.execPath, [path.join(root, 'bench', 'floorHost.mjs'), floorSocket, path.join(path.dirname(db), 'floor-journal')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    floorHost.once('error', reject);
    floorHost.once('exit', (code) => reject(new Error(`bench/floorHost.mjs exited (${code})`)));
    floorHost.stdout.once('data', resolve);
  });
  const floor = await connect(process.execPath, [path.join(root, 'bench', 'floorServer.mjs')], { ...env(db), AGENT_PROGRESS_BENCH_FLOOR_SOCKET: floorSocket });
  // The same floor host reached from this process with no MCP in between: the round trip between
  // two processes alone (`ping`), and with the line appended and fdatasynced there (the durable hop).
  const hop = await connectFloor(floorSocket);
  // The floor's tool and log_progress are called with the same arguments.
  const entry = (title) => ({ projectId: 'bench', title, content: 'a durable write through the host' });
  const floorCall = (title) => floor.client.callTool({ name: 'log', arguments: entry(title) });
  await floorCall('first');
  const logCall = (server, title) => server.client.callTool({ name: 'log_progress', arguments: entry(title) });
  for (let i = 0; i < WARM; i++) {
    await callNoop(noop);
    await floorCall(`warm ${i}`);
    for (const s of servers) await logCall(s, `warm ${i}`);
  }
  const times = { log: servers.map(() => []), noop: [], sync: [], floor: [], noopAfterSync: [], ping: [], hop: [] };
  // Every timed call comes right after an untimed call to a second no-op server, so that each
  // meets the machine in the same state: how long a call takes depends on what ran just before
  // it. The called server has been idle a round, the client and the CPUs have just been busy. A
  // no-op call took 0.29-0.39 ms right after the client's own fdatasync (the probe), 0.17 ms
  // right after another server's call, 0.06 ms right after a call to the same server. Until
  // 2026-11-28 this loop timed the no-op after the probe and log_progress after another
  // server's call: two different states. That position is still timed, apart, as a reference
  // row (bench/results/host-log-order-2026-11-28.md).
  const timed = async (into, call) => {
    if (primer) await callNoop(primer);
    else await new Promise((resolve) => setTimeout(resolve, IDLE));
    const t = performance.now();
    await call();
    into.push(performance.now() - t);
  };
  try {
    for (let i = 0; i < CALLS; i++) {
      await timed(times.noop, () => callNoop(noop));
      await timed(times.floor, () => floorCall(`bench ${i}`));
      for (let k = 0; k < servers.length; k++) {
        const which = (i + k) % servers.length;
        await timed(times.log[which], () => logCall(servers[which], `bench ${i}`));
      }
      await timed(times.ping, () => hop.send('ping'));
      await timed(times.hop, () => hop.send(JSON.stringify(entry(`bench ${i}`))));
      // Last: the reference no-op below is timed right after this fdatasync.
      await timed(times.sync, () => {
        fs.writeSync(probe, record);
        fs.fdatasyncSync(probe);
      });
      const t = performance.now();
      await callNoop(noop);
      times.noopAfterSync.push(performance.now() - t);
    }
  } finally {
    fs.closeSync(probe);
    hop.socket.destroy();
    await floor.client.close();
    floorHost.stdin.end();
  }
  await noop.client.close();
  await primer?.client.close();
  const [none, sync, least, afterSync, ping, durableHop] = [p50(times.noop), p50(times.sync), p50(times.floor), p50(times.noopAfterSync), p50(times.ping), p50(times.hop)];
  return times.log.map((logs) => {
    const log = p50(logs);
    return [
      noopMem,
      [
        `log_progress p50 through the host / a no-op SDK call (each timed call ${IDLE > 0 ? `after ${IDLE} ms idle` : "right after another server's no-op call"}${WARM > 0 ? `; after ${WARM} untimed rounds` : ''})`,
        `${log.toFixed(2)} ms / ${none.toFixed(2)} ms = ${(log / none).toFixed(1)}x`,
        '≤ 3x',
      ],
      ['a bare append + fdatasync in the ledger folder (p50, same loop) / the no-op call', `${sync.toFixed(2)} ms = ${(sync / none).toFixed(1)}x`, 'reference: the disk'],
      ['log_progress beyond that fdatasync / the no-op call', `${(log - sync).toFixed(2)} ms = ${((log - sync) / none).toFixed(1)}x`, '≤ 3x when the disk is slow'],
      [
        'the floor: an SDK server writing durably through a second process (one Unix socket hop, an append + fdatasync; `bench/floorHost.mjs`), p50 / the no-op call',
        `${least.toFixed(2)} ms = ${(least / none).toFixed(1)}x`,
        'reference: the least any separate durable process costs',
      ],
      ['log_progress over that floor', `${(log / least).toFixed(2)}x`, 'reference'],
      [
        'a bare round trip to a second process over a Unix socket (no MCP, nothing written), p50 / the no-op call',
        `${ping.toFixed(2)} ms = ${(ping / none).toFixed(1)}x`,
        'reference: waking a process',
      ],
      [
        'a bare durable hop: that round trip, the line appended and fdatasynced there (no MCP), p50 / the no-op call',
        `${durableHop.toFixed(2)} ms = ${(durableHop / none).toFixed(1)}x`,
        'reference',
      ],
      [
        'the no-op call + that hop: the least a call answered after a durable write in a second process costs, with no tool, database or protocol of its own',
        `${(none + durableHop).toFixed(2)} ms = ${((none + durableHop) / none).toFixed(1)}x`,
        'reference: the goal less this is what the call itself may use',
      ],
      [
        "a no-op call right after the client's own fdatasync (where this loop timed the no-op until 2026-11-28), p50",
        `${afterSync.toFixed(2)} ms (log_progress over it: ${(log / afterSync).toFixed(1)}x)`,
        'reference: what came before a call changes its time',
      ],
    ];
  });
}

const load = () => loadAverage(', ');

async function main() {
  const loadBefore = load();
  let before;
  let after;
  if (LOG_ONLY) {
    // Both builds set up one after the other, then called in one interleaved loop.
    const builds = [...(BEFORE ? [BEFORE] : []), path.join(root, 'dist')];
    const runs = [];
    for (const dist of builds) {
      const waiting = arena.length;
      const run = measure(dist);
      runs.push(run);
      await Promise.race([
        run,
        (async () => {
          while (arena.length === waiting) await new Promise((r) => setTimeout(r, 20));
        })(),
      ]);
    }
    if (arena.length === builds.length) {
      try {
        const rows = await logRows(
          arena.map((a) => a.progress),
          arena[0].db,
        );
        arena.forEach((a, i) => a.resolve(rows[i]));
      } catch (err) {
        // Each build's run stops its host and removes its ledger before the error is told.
        arena.forEach((a) => a.reject(err));
      }
    }
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const results = settled.map((r) => r.value);
    [before, after] = BEFORE ? results : [undefined, results[0]];
  } else {
    before = BEFORE ? await measure(BEFORE) : undefined;
    after = await measure(path.join(root, 'dist'));
  }
  console.log(`Ledger host bench, ${ENTRIES} entries, ${os.cpus().length} cores, load average ${loadBefore} at the start, ${load()} at the end\n`);
  if (before) {
    console.log(`| figure | before (${BEFORE}) | after (dist/) | goal |\n|---|---|---|---|`);
    after.forEach((r, i) => console.log(`| ${r[0]} | ${before[i]?.[1] ?? ''} | ${r[1]} | ${r[2]} |`));
  } else {
    console.log('| figure | measured | goal |\n|---|---|---|');
    for (const r of after) console.log(`| ${r.join(' | ')} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
