// The benchmark suite (README "Performance"): measures Agent Progress side by side with its floors in ONE
// run (the machine is shared and noisy, so every ratio compares figures taken in the same run,
// in interleaved blocks) and prints Markdown tables. It never asserts on time: it reports.
//
//   npm run bench                       build, then the full run (1k, 10k, 100k entries)
//   node bench/run.mjs --quick          smoke run (1k, 5k entries, fewer calls)
//   node bench/run.mjs --write-readme   also put the tables into README.md's bench block
//   node bench/run.mjs --keep           keep the temporary ledgers (their folder is printed)
//   node bench/run.mjs --profile        servers under test write .cpuprofile files to bench/results/profiles/
//
// What each row means: bench/README.md. Tables: stdout, bench/results/latest.md and a dated copy.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadBetterSqlite, openTwin } from './betterSqlite.mjs';
import { BENCH_PROJECT, createCorpus, rng } from './corpus.mjs';
import { loadHarness } from './harnessLoader.mjs';

// ---- options --------------------------------------------------------------------------------

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..');
const argv = process.argv.slice(2);
const known = new Set(['--quick', '--write-readme', '--keep', '--profile', '--help', '-h']);
const unknownArgs = argv.filter((a) => !known.has(a));
if (argv.includes('--help') || argv.includes('-h') || unknownArgs.length > 0) {
  if (unknownArgs.length > 0) process.stderr.write(`bench: unknown option ${unknownArgs.join(' ')}\n`);
  process.stderr.write('Usage: node bench/run.mjs [--quick] [--write-readme] [--keep] [--profile]\n(see bench/README.md)\n');
  process.exit(unknownArgs.length > 0 ? 2 : 0);
}
const QUICK = argv.includes('--quick');
const WRITE_README = argv.includes('--write-readme');
const KEEP = argv.includes('--keep');
const PROFILE = argv.includes('--profile');

const SIZES = QUICK ? [1_000, 5_000] : [1_000, 10_000, 100_000];
const MAX_SIZE = SIZES[SIZES.length - 1];
/** The size at which one server's memory is held to its target (10k; 5k in a quick run). */
const MEMORY_SIZE = QUICK ? 5_000 : 10_000;
const BLOCK = 100; // calls per block; blocks of the compared operations alternate
const MCP_CALLS = QUICK ? 400 : 2_000; // log_progress calls measured per size, and as many no-ops
const STORE_CALLS = QUICK ? 400 : 2_000; // store-level inserts per size (and as many per reference)
const WARMUP = QUICK ? 50 : 200;
const SPAWNS = QUICK ? 6 : 20;
const SEARCH_RUNS = QUICK ? 15 : 60;
const SEARCH_BUDGET_MS = QUICK ? 1_000 : 4_000; // per query: fewer runs when a query is slow
const SEARCH_TIMEOUT_MS = QUICK ? 3_000 : 5_000; // a call slower than this drops its query
const STALL_WATCH_MS = QUICK ? 0 : 20_000;
const LOAD_BATCH = 1_000;

const say = (line) => process.stderr.write(`bench: ${line}\n`);
const started = Date.now();

// ---- statistics and formatting ----------------------------------------------------------------

function quantile(samples, q) {
  if (samples.length === 0) return NaN;
  const sorted = Float64Array.from(samples).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const p50 = (s) => quantile(s, 0.5);
const summary = (s) => ({ n: s.length, p50: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99), max: Math.max(...s) });

function ms(value) {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(value >= 1 ? 2 : 3)} ms`;
}
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : 'n/a');
const mb = (bytes) => `${(bytes / 1048576).toFixed(bytes >= 100 * 1048576 ? 0 : 1)} MB`;
const kEntries = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : n.toLocaleString('en-US'));
const verdict = (ok) => (ok === undefined ? '-' : ok ? '**yes**' : '**no**');
const cell = (text) => String(text).replace(/\|/g, '\\|');

function table(headers, rows) {
  const lines = [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

// ---- temporary files ----------------------------------------------------------------------------

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-'));
const clients = new Set();
let cleanedUp = false;

async function cleanup() {
  if (cleanedUp) return;
  cleanedUp = true;
  await Promise.all([...clients].map((c) => c.close().catch(() => undefined)));
  if (KEEP) say(`kept the temporary ledgers in ${tmpRoot}`);
  else fs.rmSync(tmpRoot, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    say(`${signal}: stopping and removing ${tmpRoot}`);
    cleanup().finally(() => process.exit(130));
  });
}

// ---- the code under test ------------------------------------------------------------------------

const serverJs = path.join(root, 'dist', 'server.js');
if (!fs.existsSync(serverJs)) {
  process.stderr.write('bench: dist/server.js is missing; run `npm run build` first (or `npm run bench`, which builds).\n');
  process.exit(1);
}

// ---- corpus -------------------------------------------------------------------------------------

const corpus = createCorpus({ total: MAX_SIZE });
const ID_ALPHABET = 'ModuleSymbhasOwnPr-0123456789ABCDEFGHNRVfgctiUvz_KqYTJkLxpZXIjQW';
/** A 12-character id like nanoid's, deterministic per (namespace, index). */
function entryId(namespace, i) {
  const random = rng(namespace * 2_654_435_761 + i);
  let id = '';
  for (let k = 0; k < 12; k++) id += ID_ALPHABET[Math.floor(random() * 64)];
  return id;
}
/** Entry i of the bulk-loaded history (dated within the corpus period). */
const historyEntry = (i) => ({ ...corpus.make(i), id: entryId(1, i) });
/** Fresh entries written by the measured calls (content from the same distribution). */
const freshEntry = (k) => corpus.make(10_000_000 + k);
let freshCounter = 0;

// ---- MCP plumbing -------------------------------------------------------------------------------

function serverEnv(dbPath) {
  return { AGENT_PROGRESS_DB_PATH: dbPath, AGENT_PROGRESS_LOG_LEVEL: 'warn', NODE_OPTIONS: '' };
}

let profileDir;
function profileArgs(label) {
  if (!PROFILE) return [];
  profileDir ??= path.join(benchDir, 'results', 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  fs.mkdirSync(profileDir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${label}-\${pid}.cpuprofile`];
}

async function connect(name, command, args, env) {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  await client.listTools(); // as a real client does; it also arms output-schema validation
  clients.add(client);
  return {
    client,
    pid: transport.pid,
    stderr: () => stderr,
    async close() {
      clients.delete(client);
      await client.close();
    },
  };
}

const connectNoop = () => connect('bench-noop-client', process.execPath, [path.join(benchDir, 'noopServer.mjs')], { NODE_OPTIONS: '' });
const connectServer = (dbPath, label = 'server') => connect('bench-client', process.execPath, [...profileArgs(label), serverJs, '--toolset', 'progress'], serverEnv(dbPath));

async function call(conn, name, args) {
  const result = await conn.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}\n${conn.stderr()}`);
  return result;
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const noopCall = (conn) => call(conn, 'noop', {});
function logCall(conn) {
  const e = freshEntry(freshCounter++);
  return call(conn, 'log_progress', { projectId: e.projectId, title: e.title, content: e.content, tags: e.tags, agentId: e.agentId });
}

/** Runs the operations in alternating blocks of BLOCK calls; returns each one's latencies. */
async function interleaved(ops, total) {
  const out = ops.map(() => []);
  for (let done = 0; done < total; done += BLOCK) {
    for (let o = 0; o < ops.length; o++) {
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await ops[o]();
        out[o].push(performance.now() - t0);
      }
    }
  }
  return out;
}

function readRss(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

function ledgerBytes(dbPath) {
  const size = (f) => {
    try {
      return fs.statSync(f).size;
    } catch {
      return 0;
    }
  };
  const snapshot = size(dbPath);
  const journal = size(`${dbPath}.journal`);
  return { snapshot, journal, total: snapshot + journal };
}

/** Spawn to the `initialize` response, raw JSON-RPC over the child's stdio (no client library). */
function spawnToInitialize(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
    let out = '';
    let answered;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no initialize response within 10 s from ${args.join(' ')}`));
    }, 10_000);
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      if (answered === undefined && /"id":1[,}]/.test(out)) {
        answered = performance.now() - t0;
        clearTimeout(timer);
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      if (answered !== undefined) resolve(answered);
      else reject(new Error(`exited before answering initialize: ${out.slice(0, 200)}`));
    });
    const init = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench-spawn', version: '1.0.0' } };
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }) + '\n');
  });
}

// ---- the search queries ---------------------------------------------------------------------------

function searchQueries() {
  const v = corpus.vocab;
  // Title words by how often they appear in titles: content words near the top of the Zipf ranking
  // are common, those far down are selective; identifiers are rarer still.
  const common = v.contentWords[0];
  const middle = v.contentWords[150];
  const rare = v.contentWords[1200];
  const ident = v.identifiers.filter((id) => !id.includes('_'))[40]; // one token, as unicode61 splits at "_"
  const endIso = new Date(Date.parse('2026-01-01T00:00:00Z')).toISOString();
  const q = (label, args) => ({ label, args: { projectId: BENCH_PROJECT, ...args } });
  return [
    q('no filter (newest 20)', {}),
    q(`title: common word "${common}"`, { query: common }),
    q(`title: mid-frequency word "${middle}"`, { query: middle }),
    q(`title: rare word "${rare}"`, { query: rare }),
    q('title: two words "the test"', { query: 'the test' }),
    q('title: 2 letters "ed" (no trigram: scan)', { query: 'ed' }),
    q('tag: common "auth"', { tags: ['auth'] }),
    q('tag: rare "transcripts"', { tags: ['transcripts'] }),
    q('tags: "auth" AND "refactor"', { tags: ['auth', 'refactor'] }),
    q('date: one week', { startDate: '2025-06-01', endDate: '2025-06-07' }),
    q('date: one year', { startDate: '2025-01-01', endDate: endIso }),
    q('tag "tests" + one month', { tags: ['tests'], startDate: '2025-03-01', endDate: '2025-03-31' }),
    q(`text: common word "${common}"`, { text: common }),
    q(`text: mid-frequency word "${middle}"`, { text: middle }),
    q(`text: rare identifier "${ident}"`, { text: ident }),
    q(`text: two words "${middle} ${rare}"`, { text: `${middle} ${rare}` }),
    q(`text: phrase "the ${common}"`, { text: `"the ${common}"` }),
    q(`text: prefix "${middle.slice(0, 4)}*"`, { text: `${middle.slice(0, 4)}*` }),
    q(`text "${middle}" + tag "auth"`, { text: middle, tags: ['auth'] }),
  ];
}

/**
 * Round-robin over the queries, each until SEARCH_RUNS runs or its time budget is spent. A query
 * whose call exceeds SEARCH_TIMEOUT_MS is dropped after that one call (runOne then returns
 * 'timeout'), so one pathological query cannot stall the run.
 */
async function runSearches(queries, runOne, skip = () => false) {
  const stats = queries.map(() => ({ times: [], spent: 0, hits: undefined, timedOut: false, skipped: false }));
  for (const [i, query] of queries.entries()) {
    const s = stats[i];
    if (skip(i)) {
      s.skipped = true;
      continue;
    }
    const t0 = performance.now();
    const hits = await runOne(query.args); // warm-up, and a probe for pathological queries
    if (hits === 'timeout') {
      s.timedOut = true;
      say(`  ${query.label}: no answer within ${SEARCH_TIMEOUT_MS / 1000} s; dropped`);
      continue;
    }
    s.hits = hits;
    const first = performance.now() - t0;
    for (let w = 0; w < (first < 50 ? 5 : first < 500 ? 1 : 0); w++) await runOne(query.args);
  }
  for (let round = 0; round < SEARCH_RUNS; round++) {
    let ran = 0;
    for (const [i, query] of queries.entries()) {
      const s = stats[i];
      if (s.timedOut || s.skipped || (round >= 3 && s.spent > SEARCH_BUDGET_MS)) continue;
      const t0 = performance.now();
      const hits = await runOne(query.args);
      const dt = performance.now() - t0;
      if (hits === 'timeout') {
        s.timedOut = true;
        continue;
      }
      s.hits = hits;
      s.times.push(dt);
      s.spent += dt;
      ran++;
    }
    if (ran === 0) break;
  }
  return stats;
}

// ---- phases -------------------------------------------------------------------------------------

const results = {
  sizes: new Map(), // size -> { count, load, mcp: { openMs, log }, store: { ours, full, normal } }
  noop: undefined,
  disk: undefined,
  spawn: undefined,
  memory: [],
  search: undefined,
  stall: undefined,
  twin: undefined,
};
const sizeRow = (size) => {
  if (!results.sizes.has(size)) results.sizes.set(size, { size });
  return results.sizes.get(size);
};

async function measureSpawn(dbPath) {
  const ours = [];
  const noop = [];
  for (let i = 0; i < SPAWNS + 2; i++) {
    const a = await spawnToInitialize([serverJs, '--toolset', 'progress'], serverEnv(dbPath));
    const b = await spawnToInitialize([path.join(benchDir, 'noopServer.mjs')], {});
    if (i >= 2) {
      ours.push(a);
      noop.push(b);
    }
  }
  return { ours: summary(ours), noop: summary(noop) };
}

/** Entries of the dated history loaded so far. */
let historyNext = 0;

/**
 * Fills the loading ledger up to `size` entries with the next entries of the history, the twin
 * with the same entries, then writes a snapshot, so that every server starts from a compacted
 * ledger as after an idle period.
 */
async function bulkLoad(harness, dbPath, twin, size) {
  const t0 = performance.now();
  const loader = await harness.openBulkLoader(dbPath);
  const from = loader.count();
  let have = from;
  let twinMs = 0;
  while (have < size) {
    const n = Math.min(LOAD_BATCH, size - have);
    const batch = [];
    for (let k = 0; k < n; k++) batch.push(historyEntry(historyNext + k));
    await loader.insertMany(batch);
    if (twin) {
      const t1 = performance.now();
      twin.insertMany(batch);
      twinMs += performance.now() - t1;
    }
    historyNext += n;
    have += n;
  }
  const t2 = performance.now();
  await loader.compact();
  const compactMs = performance.now() - t2;
  const count = loader.count();
  await loader.close();
  if (twin) twin.checkpoint();
  const load = { added: count - from, count, ms: performance.now() - t0 - twinMs, twinMs, compactMs, bytes: ledgerBytes(dbPath) };
  say(
    `ledger at ${count} entries (+${load.added} in ${(load.ms / 1000).toFixed(1)} s, snapshot ${mb(load.bytes.snapshot)} written in ${ms(compactMs)})` +
      (twin ? `; better-sqlite3 twin at ${twin.count()} (loaded in ${(twinMs / 1000).toFixed(1)} s)` : ''),
  );
  return load;
}

/** One fresh server, a few tool calls, then its memory; at the largest size also the searches. */
async function memoryAndSearch(dbPath, size, withSearch) {
  const conn = await connectServer(dbPath, `memory-${size}`);
  const firstCall = await timed(() => call(conn, 'search_logs', { projectId: BENCH_PROJECT, limit: 5 }));
  const first = firstCall.value.structuredContent.entries[0];
  for (let i = 0; i < 3; i++) await logCall(conn);
  await call(conn, 'get_context', { projectId: BENCH_PROJECT, id: first.id, includeFull: true });
  await call(conn, 'search_logs', { projectId: BENCH_PROJECT, query: corpus.vocab.contentWords[10], tags: ['auth'] });
  await new Promise((r) => setTimeout(r, 300));
  const mem = readRss(conn.pid);
  const bytes = ledgerBytes(dbPath);
  results.memory.push({ size, entries: firstCall.value.structuredContent.total, ...mem, bytes, openMs: firstCall.ms });
  say(`server at ${kEntries(size)}: RSS ${mb(mem.rss)} (peak ${mb(mem.hwm)}), ledger ${mb(bytes.total)}, first call (opens the ledger) ${ms(firstCall.ms)}`);
  let current = conn;
  if (withSearch) {
    const queries = searchQueries();
    say(`search_logs through MCP at ${kEntries(size)}: ${queries.length} queries`);
    const stats = await runSearches(queries, async (args) => {
      try {
        const result = await current.client.callTool({ name: 'search_logs', arguments: args }, undefined, { timeout: SEARCH_TIMEOUT_MS });
        if (result.isError) throw new Error(`search_logs failed: ${JSON.stringify(result.structuredContent)}`);
        return result.structuredContent.total;
      } catch (err) {
        if (!/timed out|timeout/i.test(String(err?.message))) throw err;
        // The server is still busy with the query (sql.js runs it synchronously): stop it, start another.
        process.kill(current.pid, 'SIGKILL');
        await current.close();
        current = await connectServer(dbPath, `search-${size}`);
        await call(current, 'search_logs', { projectId: BENCH_PROJECT, limit: 1 });
        return 'timeout';
      }
    });
    results.search = { size, queries, mcp: stats };
  }
  await current.close();
}

/**
 * One server per ledger size, all open at once; blocks of no-op calls and of log_progress at each
 * size alternate, so the ratios to the no-op and between sizes are taken in the same moments.
 */
async function mcpPhase(ledgers, noop) {
  const conns = [];
  for (const size of SIZES) {
    const conn = await connectServer(ledgers.get(size), `log-${size}`);
    const open = await timed(() => logCall(conn)); // opens the ledger
    sizeRow(size).mcp = { openMs: open.ms };
    conns.push(conn);
  }
  for (let i = 0; i < WARMUP; i++) {
    await noopCall(noop);
    for (const conn of conns) await logCall(conn);
  }
  say(`log_progress at ${SIZES.map(kEntries).join(', ')} and the no-op, alternating blocks of ${BLOCK}: ${MCP_CALLS} calls each`);
  const [noopTimes, ...logTimes] = await interleaved([() => noopCall(noop), ...conns.map((conn) => () => logCall(conn))], MCP_CALLS);
  results.noop = summary(noopTimes);
  say(`no-op tool call: p50 ${ms(results.noop.p50)} p90 ${ms(results.noop.p90)} p99 ${ms(results.noop.p99)}`);
  for (const [i, size] of SIZES.entries()) {
    const log = summary(logTimes[i]);
    sizeRow(size).mcp.log = log;
    say(`log_progress at ${kEntries(size)}: p50 ${ms(log.p50)} (${ratio(log.p50 / results.noop.p50)} the no-op)`);
  }
  const largest = conns[conns.length - 1];
  await Promise.all(conns.slice(0, -1).map((c) => c.close()));
  if (STALL_WATCH_MS > 0) {
    // The server writes a snapshot of the whole ledger 15 s after its last write (idle), and
    // synchronously: calls that arrive meanwhile wait. Watch a cheap call and keep the slowest.
    say(`watching for the idle snapshot at ${kEntries(MAX_SIZE)} (${STALL_WATCH_MS / 1000} s of a cheap call every 20 ms)`);
    const t0 = performance.now();
    let worst = { ms: 0, at: 0 };
    const times = [];
    while (performance.now() - t0 < STALL_WATCH_MS) {
      const t = await timed(() => call(largest, 'search_logs', { projectId: BENCH_PROJECT, tags: ['transcripts'], startDate: '2025-12-01', limit: 1 }));
      times.push(t.ms);
      if (t.ms > worst.ms) worst = { ms: t.ms, at: (performance.now() - t0) / 1000 };
      await new Promise((r) => setTimeout(r, 20));
    }
    results.stall = { worst, typical: p50(times), calls: times.length, bytes: ledgerBytes(ledgers.get(MAX_SIZE)) };
    say(`slowest call while idle: ${ms(worst.ms)} at ${worst.at.toFixed(1)} s after the last write (typical ${ms(p50(times))})`);
  }
  await largest.close();
}

/**
 * In this process, every size at once: the core API's durable insert, the better-sqlite3 twin
 * with synchronous=FULL and NORMAL, and a raw append + fdatasync, in alternating blocks.
 */
async function storePhase(harness, ledgers, twinFiles, Database) {
  const freshStoreEntry = () => {
    const k = freshCounter++;
    return { ...freshEntry(k), id: entryId(2, k), createdAt: new Date().toISOString() };
  };
  const ops = [];
  const labels = [];
  const opened = [];
  let largest;
  for (const size of SIZES) {
    const ledger = await harness.openLedger({ file: ledgers.get(size) });
    opened.push(ledger);
    largest = ledger;
    ops.push(() => ledger.progress.insertEntry(freshStoreEntry()));
    labels.push([size, 'ours']);
    if (Database) {
      const twin = openTwin(Database, twinFiles.get(size), harness);
      opened.push(twin);
      ops.push(() => {
        twin.setSynchronous('FULL');
        twin.insertEntry(freshStoreEntry());
      });
      labels.push([size, 'full']);
      ops.push(() => {
        twin.setSynchronous('NORMAL');
        twin.insertEntry(freshStoreEntry());
      });
      labels.push([size, 'normal']);
    }
  }
  // What the disk alone costs, in the same blocks: append a journal record's worth and fdatasync.
  const floorFile = path.join(tmpRoot, 'fsync-floor.bin');
  const floorFd = fs.openSync(floorFile, 'w');
  const record = Buffer.alloc(2600, 'x');
  let floorOffset = 0;
  ops.push(() => {
    fs.writeSync(floorFd, record, 0, record.length, floorOffset);
    fs.fdatasyncSync(floorFd);
    floorOffset += record.length;
  });
  labels.push([0, 'disk']);

  for (let i = 0; i < WARMUP; i++) for (const op of ops) await op();
  say(`store-level inserts at ${SIZES.map(kEntries).join(', ')}${Database ? ' with the better-sqlite3 twins' : ''}, alternating blocks of ${BLOCK}: ${STORE_CALLS} each`);
  const times = await interleaved(ops, STORE_CALLS);
  for (const [i, [size, what]] of labels.entries()) {
    if (what === 'disk') results.disk = summary(times[i]);
    else (sizeRow(size).store ??= {})[what] = summary(times[i]);
  }
  for (const size of SIZES) {
    const st = sizeRow(size).store;
    say(
      `store insert at ${kEntries(size)}: ours p50 ${ms(st.ours.p50)}` +
        (st.full ? `, better-sqlite3 FULL ${ms(st.full.p50)} (${ratio(st.ours.p50 / st.full.p50)}), NORMAL ${ms(st.normal.p50)}` : ''),
    );
  }
  say(`append 2.6 KB + fdatasync: p50 ${ms(results.disk.p50)}`);
  fs.closeSync(floorFd);
  fs.rmSync(floorFile);

  if (results.search) {
    const service = new harness.ProgressService({ store: largest.progress, summariser: new harness.Summariser([], harness.silentLogger), logger: harness.silentLogger });
    say(`search_logs in process (the same service, no MCP) at ${kEntries(MAX_SIZE)}`);
    results.search.store = await runSearches(
      results.search.queries,
      async (args) => (await service.searchLogs(args)).total,
      (i) => results.search.mcp[i].timedOut, // in process there is no way to stop it
    );
    // What FTS4 alone costs for the text queries: reading their doclists to count the hits.
    const floor = await harness.openFullTextFloor(largest.location);
    results.search.floor = await runSearches(
      results.search.queries,
      async (args) => floor.count(args.text),
      (i) => results.search.mcp[i].timedOut || results.search.queries[i].args.text === undefined,
    );
    await floor.close();
  }
  for (const o of opened) await o.close();
}

// ---- the run --------------------------------------------------------------------------------------

async function main() {
  say(`${QUICK ? 'quick' : 'full'} run: sizes ${SIZES.map(kEntries).join(', ')}; temporary ledgers in ${tmpRoot}`);
  const harness = await loadHarness();
  const bsq = loadBetterSqlite({ log: (line) => process.stderr.write(line + '\n') });
  if (bsq.error) say(`better-sqlite3 unavailable: ${bsq.error}. The comparison rows will say so.`);
  results.twin = bsq.error ? { error: bsq.error } : { version: bsq.version };

  say('spawn to initialize');
  results.spawn = await measureSpawn(path.join(tmpRoot, 'spawn', 'data.db'));
  say(`spawn to initialize: ours median ${ms(results.spawn.ours.p50)}, SDK no-op server ${ms(results.spawn.noop.p50)}`);

  // One ledger per size (and one twin), loaded in turn: each size is a copy of the loading ledger.
  const loadDir = path.join(tmpRoot, 'loading');
  fs.mkdirSync(loadDir, { recursive: true, mode: 0o700 });
  const twinLoadFile = path.join(tmpRoot, 'twin-loading.db');
  let twinLoad = bsq.error ? undefined : openTwin(bsq.Database, twinLoadFile, harness);
  const ledgers = new Map();
  const twinFiles = new Map();
  for (const size of SIZES) {
    const load = await bulkLoad(harness, path.join(loadDir, 'data.db'), twinLoad, size);
    sizeRow(size).load = load;
    sizeRow(size).count = load.count;
    const dir = path.join(tmpRoot, `ledger-${kEntries(size)}`);
    const twinFile = path.join(tmpRoot, `twin-${kEntries(size)}.db`);
    if (size === MAX_SIZE) {
      fs.renameSync(loadDir, dir);
      twinLoad?.close();
      twinLoad = undefined;
      if (!bsq.error) fs.renameSync(twinLoadFile, twinFile);
    } else {
      fs.cpSync(loadDir, dir, { recursive: true });
      if (twinLoad) fs.copyFileSync(twinLoadFile, twinFile);
    }
    ledgers.set(size, path.join(dir, 'data.db'));
    twinFiles.set(size, twinFile);
  }

  for (const size of new Set([MEMORY_SIZE, MAX_SIZE])) await memoryAndSearch(ledgers.get(size), size, size === MAX_SIZE);

  const noop = await connectNoop();
  for (let i = 0; i < WARMUP; i++) await noopCall(noop);
  await mcpPhase(ledgers, noop);
  await noop.close();

  await storePhase(harness, ledgers, twinFiles, bsq.error ? undefined : bsq.Database);
}

// ---- report -------------------------------------------------------------------------------------

function report() {
  const r = results;
  const rows = SIZES.map((size) => r.sizes.get(size));
  const first = rows[0];
  const lastRow = rows[rows.length - 1];
  const sizesLabel = SIZES.map(kEntries).join(' / ');
  const per = (fn) => rows.map(fn).join(' / ');
  const logRatios = rows.map((s) => s.mcp.log.p50 / r.noop.p50);
  const flat = lastRow.mcp.log.p50 / first.mcp.log.p50;
  const twinRatios = rows.map((s) => (s.store.full ? s.store.ours.p50 / s.store.full.p50 : NaN));
  const mem = r.memory.find((m) => m.size === MEMORY_SIZE);
  const memMax = r.memory.find((m) => m.size === MAX_SIZE);
  const searchRows = r.search
    ? r.search.queries.map((q, i) => {
        const m = r.search.mcp[i];
        const st = r.search.store?.[i];
        return {
          q,
          hits: m.hits,
          timedOut: m.timedOut,
          mcp: summary(m.times),
          p50: m.timedOut ? Infinity : p50(m.times),
          store: st ? (st.skipped ? 'not run' : st.timedOut ? 'timed out' : ms(p50(st.times))) : 'n/a',
          floor: r.search.floor?.[i] && !r.search.floor[i].skipped ? ms(p50(r.search.floor[i].times)) : '-',
        };
      })
    : [];
  const showP50 = (s) => (s.timedOut ? `over ${SEARCH_TIMEOUT_MS / 1000} s (no answer; dropped)` : ms(s.p50));
  const worstSearch = searchRows.reduce((w, s) => (!w || s.p50 > w.p50 ? s : w), undefined);
  const slowSearches = searchRows.filter((s) => !(s.p50 < 20));
  const noTwin = r.twin.error ? `better-sqlite3 unavailable (${r.twin.error})` : undefined;

  const targets = table(
    ['#', 'figure', 'measured', 'target', 'met'],
    [
      [
        '1',
        'no-op tool call through the SDK over stdio (the floor), p50 / p90 / p99',
        `${ms(r.noop.p50)} / ${ms(r.noop.p90)} / ${ms(r.noop.p99)} (${r.noop.n} calls)`,
        'reference',
        '-',
      ],
      ['2', `\`log_progress\` through MCP, durable, p50 at ${sizesLabel}`, per((s) => ms(s.mcp.log.p50)), 'reported', '-'],
      ['2', '... over the no-op p50', logRatios.map(ratio).join(' / '), 'within 3x', verdict(logRatios.every((x) => x <= 3))],
      ['2', `... p50 at ${kEntries(lastRow.size)} over p50 at ${kEntries(first.size)}`, ratio(flat), 'below 1.5', verdict(flat < 1.5)],
      [
        '3',
        `store-level durable insert over better-sqlite3 (WAL, synchronous=FULL, same schema and FTS), p50 at ${sizesLabel}`,
        noTwin ?? rows.map((s, i) => `${ms(s.store.ours.p50)} vs ${ms(s.store.full.p50)} = ${ratio(twinRatios[i])}`).join('; '),
        'within 2x',
        noTwin ? 'not measured' : verdict(twinRatios.every((x) => x <= 2)),
      ],
      [
        '4',
        `\`search_logs\` through MCP at ${kEntries(r.search?.size ?? MAX_SIZE)}: slowest p50 of ${searchRows.length} queries`,
        worstSearch
          ? `${showP50(worstSearch)} (${worstSearch.q.label})${slowSearches.length > 0 ? `; ${slowSearches.length} of ${searchRows.length} queries at or over 20 ms` : ''}`
          : 'n/a',
        'under 20 ms each',
        verdict(searchRows.length > 0 && slowSearches.length === 0),
      ],
      [
        '5',
        `spawn of dist/server.js to \`initialize\` answered, median of ${r.spawn.ours.n}`,
        `${ms(r.spawn.ours.p50)} (SDK no-op server: ${ms(r.spawn.noop.p50)})`,
        'under 300 ms',
        verdict(r.spawn.ours.p50 < 300),
      ],
      [
        '6',
        `RSS of one server at ${kEntries(MEMORY_SIZE)} entries after a few tool calls`,
        mem ? `${mb(mem.rss)} (peak ${mb(mem.hwm)}); ledger ${mb(mem.bytes.total)}` : 'n/a',
        'under 150 MB',
        verdict(mem ? mem.rss < 150 * 1048576 : undefined),
      ],
      [
        '6',
        `RSS of one server at ${kEntries(MAX_SIZE)} entries, over the ledger size (snapshot + journal)`,
        memMax ? `${mb(memMax.rss)} (peak ${mb(memMax.hwm)}) / ${mb(memMax.bytes.total)} = ${ratio(memMax.rss / memMax.bytes.total)}` : 'n/a',
        'reported',
        '-',
      ],
      ['7', `store-level durable insert (core \`insertEntry\`, no MCP), p50 at ${sizesLabel}`, per((s) => ms(s.store.ours.p50)), 'reported', '-'],
    ],
  );

  const perSize = table(
    ['entries', 'log_progress p50 / p90 / p99', 'over no-op', 'store insert p50 / p90 / p99', 'better-sqlite3 FULL p50 / p99', 'store over FULL', 'better-sqlite3 NORMAL p50'],
    rows.map((s) => [
      s.count.toLocaleString('en-US'),
      `${ms(s.mcp.log.p50)} / ${ms(s.mcp.log.p90)} / ${ms(s.mcp.log.p99)}`,
      ratio(s.mcp.log.p50 / r.noop.p50),
      `${ms(s.store.ours.p50)} / ${ms(s.store.ours.p90)} / ${ms(s.store.ours.p99)}`,
      s.store.full ? `${ms(s.store.full.p50)} / ${ms(s.store.full.p99)}` : 'n/a',
      s.store.full ? ratio(s.store.ours.p50 / s.store.full.p50) : 'n/a',
      s.store.normal ? ms(s.store.normal.p50) : 'n/a',
    ]),
  );

  const search = r.search
    ? table(
        ['query', 'hits', 'MCP p50', 'MCP p90', 'runs', 'in-process p50', 'FTS4 count alone p50', 'under 20 ms'],
        searchRows.map((s) => [s.q.label, s.hits ?? '?', showP50(s), s.timedOut ? '-' : ms(s.mcp.p90), s.mcp.n, s.store, s.floor, verdict(s.p50 < 20)]),
      )
    : '';

  const refs = [
    ['append 2.6 KB (one journal record) + fdatasync on this disk, in the store blocks, p50 / p99', `${ms(r.disk.p50)} / ${ms(r.disk.p99)}`],
    [`first tool call after spawn (opens the ledger), at ${sizesLabel}`, per((s) => ms(s.mcp.openMs))],
    ...r.memory.map((m) => [
      `server memory at ${kEntries(m.size)}: RSS / peak; snapshot + journal`,
      `${mb(m.rss)} / ${mb(m.hwm)}; ${mb(m.bytes.snapshot)} + ${mb(m.bytes.journal)}`,
    ]),
  ];
  if (r.stall) {
    refs.push([
      `slowest cheap call in the ${STALL_WATCH_MS / 1000} s after the last write at ${kEntries(MAX_SIZE)} (the idle snapshot, ${mb(r.stall.bytes.snapshot)})`,
      `${ms(r.stall.worst.ms)} at ${r.stall.worst.at.toFixed(1)} s (typical ${ms(r.stall.typical)}, ${r.stall.calls} calls)`,
    ]);
  }
  for (const s of rows) {
    refs.push([
      `bulk load to ${kEntries(s.size)} (core engine, ${LOAD_BATCH.toLocaleString('en-US')} entries per transaction); snapshot`,
      `${(s.load.ms / 1000).toFixed(1)} s for ${s.load.added.toLocaleString('en-US')} entries; ${mb(s.load.bytes.snapshot)} written in ${ms(s.load.compactMs)}`,
    ]);
  }
  const references = table(['reference', 'measured'], refs);

  const cpu = os.cpus();
  const header =
    `${QUICK ? 'Quick run (smaller sizes, fewer calls: a smoke test, not the figures)' : 'Full run'} of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
    `Node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'cpu'}, load average ${os.loadavg()[2].toFixed(1)} (15 min); ` +
    `${((Date.now() - started) / 60000).toFixed(1)} min. Entries of ~1.5 KB of Zipf-distributed English-like text; ` +
    `better-sqlite3 ${r.twin.version ?? 'not available'}. Compared figures were taken in alternating blocks of ${BLOCK} calls in this one run ` +
    `(MCP: the no-op and one server per size; store: every size and its twin), so read the ratios: absolute times move with the machine's load.`;

  return [
    header,
    '',
    targets,
    '',
    'Per ledger size (entries when measured):',
    '',
    perSize,
    '',
    ...(search
      ? [
          `\`search_logs\` at ${kEntries(r.search.size)} entries, through MCP; in-process is the same \`ProgressService.searchLogs\` call without MCP; "FTS4 count alone" is \`SELECT count(*) ... MATCH\` on the same ledger, the part no plan above the index can avoid:`,
          '',
          search,
          '',
        ]
      : []),
    references,
  ].join('\n');
}

function writeOutputs(markdown) {
  const dir = path.join(benchDir, 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
  const body = `# Benchmark results\n\n${markdown}\n`;
  fs.writeFileSync(path.join(dir, 'latest.md'), body);
  fs.writeFileSync(path.join(dir, `${stamp}${QUICK ? '-quick' : ''}.md`), body);
  if (WRITE_README) {
    const readme = path.join(root, 'README.md');
    const text = fs.readFileSync(readme, 'utf8');
    const start = '<!-- bench:start -->';
    const end = '<!-- bench:end -->';
    const a = text.indexOf(start);
    const b = text.indexOf(end);
    if (a < 0 || b < a) {
      say('README.md has no bench:start / bench:end block; not written');
    } else {
      fs.writeFileSync(readme, `${text.slice(0, a + start.length)}\n${markdown}\n${text.slice(b)}`);
      say('README.md bench block updated');
    }
  }
  say(`tables written to bench/results/latest.md and bench/results/${stamp}${QUICK ? '-quick' : ''}.md`);
}

try {
  await main();
  const markdown = report();
  process.stdout.write(`\n${markdown}\n`);
  writeOutputs(markdown);
  if (profileDir) say(`CPU profiles of the servers: ${path.relative(root, profileDir)} (summarise with node bench/profileSummary.mjs FILE)`);
} catch (err) {
  process.stderr.write(`bench: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
