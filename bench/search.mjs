// Search at scale (issue 15), side by side with a baseline build in the same run: `search_logs`
// through real MCP clients over stdio to two servers, this checkout's dist/server.js and the
// baseline's (by default `main`, exported with git archive into a temp folder and built there),
// each on its own copy of one ledger of N entries (Zipf vocabulary, bench/corpus.mjs). Per query
// kind: the first call (nothing saved yet), then the p50 of repeated calls taken round-robin with
// the other queries and alternating between the servers, and for the ranked text queries the p50
// of a search right after a `log_progress` (the ledger changed since the last search). Also
// log_progress itself on both, in alternating blocks, as the ratio of their p50s. Prints Markdown
// tables and writes them to bench/results/search-latest.md; never asserts on time. With --postgres,
// a third server answers the same calls from a PostgreSQL database holding the same ledger (a
// throwaway cluster, bench/pgCluster.mjs, or --url; its schema made by this checkout's openLedger,
// filled with the same entries by multi-row INSERTs building the same tsvectors as insertEntry,
// then ANALYZEd as autovacuum would): its own columns, the hit counts compared with the others'.
// That third server opens PostgreSQL itself (AGENT_PROGRESS_LEDGER_HOST=off: ranking in SQL). A
// fourth is a stdio server as agents and VS Code start it, through the ledger host of that
// database (its folder in a private runtime folder of this run), which ranks from its index in
// memory once built. A fifth shares that database: this checkout's team server
// (`dist/server.js --http 0`), through a real client over Streamable HTTP, which ranks from its own
// index. Both indexes are waited for before any timed call; how many of the new queries the
// PostgreSQL servers answered alike, and the team server's /metrics search_index values at the end.
//
//   node bench/search.mjs [--size 100000] [--calls 30] [--baseline main|none] [--postgres [--url postgres://...]] [--keep]
//   npm run bench:search            (builds dist/ first)

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { BENCH_PROJECT, createCorpus } from './corpus.mjs';
import { loadAverage } from './loadAverage.mjs';
import { createDatabase, startCluster } from './pgCluster.mjs';
import { loadPostgres } from './pgLoad.mjs';

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
if (argv.includes('--help') || argv.includes('-h')) {
  process.stderr.write('Usage: node bench/search.mjs [--size N] [--calls N] [--baseline REF|none] [--postgres [--url postgres://...]] [--keep]\n(see bench/README.md)\n');
  process.exit(0);
}
const SIZE = Number(option('--size', '100000'));
const CALLS = Number(option('--calls', '30'));
const AFTER_WRITE_CALLS = Math.max(5, Math.floor(CALLS / 3));
const LOG_CALLS = 300;
const BASELINE = option('--baseline', 'main');
const KEEP = argv.includes('--keep');
const POSTGRES = argv.includes('--postgres');
const GIVEN_URL = option('--url', process.env.AGENT_PROGRESS_BENCH_DATABASE_URL);
const cleanups = [];
if (!(SIZE >= 100) || !(CALLS >= 3)) {
  process.stderr.write('bench: --size must be at least 100 and --calls at least 3\n');
  process.exit(2);
}
const say = (line) => process.stderr.write(`bench: ${line}\n`);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-search-'));
const clients = new Set();
async function cleanup() {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const f of cleanups) await f();
  if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
  else say(`kept ${work}`);
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

// ---- builds -------------------------------------------------------------------------------------

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${r.stderr}`);
  return r.stdout;
}

/** The baseline's source (git archive of REF) in a temp folder, built with this checkout's node_modules. */
function buildBaseline(ref) {
  const dir = path.join(work, 'baseline');
  fs.mkdirSync(dir);
  const commit = run('git', ['rev-parse', '--short', ref], root).trim();
  const tar = path.join(work, 'baseline.tar');
  run('git', ['archive', '--format=tar', '-o', tar, ref], root);
  run('tar', ['-xf', tar, '-C', dir], root);
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  run(process.execPath, ['esbuild.mjs'], dir);
  return { dir, label: `${ref} (${commit})` };
}

// ---- the ledger ---------------------------------------------------------------------------------

const corpus = createCorpus({ total: SIZE });

/** Fills a ledger with the corpus through a build's own bench harness (its schema), then snapshots it. */
async function load(buildDir, file) {
  const { loadHarness } = await import(path.join(buildDir, 'bench', 'harnessLoader.mjs'));
  const harness = await loadHarness();
  const loader = await harness.openBulkLoader(file);
  const t0 = performance.now();
  for (let i = 0; i < SIZE; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(SIZE, i + 1000); k++) batch.push({ ...corpus.make(k), id: `h${String(k).padStart(9, '0')}` });
    await loader.insertMany(batch);
    if ((i / 1000) % 20 === 19) say(`  loaded ${i + 1000}`);
  }
  await loader.compact();
  await loader.close();
  return performance.now() - t0;
}

function copyLedger(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  for (const suffix of ['', '.journal']) if (fs.existsSync(from + suffix)) fs.copyFileSync(from + suffix, to + suffix);
}

// ---- MCP ----------------------------------------------------------------------------------------

/** A real SDK client on `transport`; `log` gives the server's last log lines for errors. */
async function attach(label, transport, log) {
  const client = new Client({ name: 'bench-search', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  clients.add(client);
  return {
    label,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
      if (result.isError) throw new Error(`${label} ${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}\n${log()}`);
      return result;
    },
  };
}

/**
 * The private runtime folder (XDG_RUNTIME_DIR) of every server and CLI this run starts: a
 * PostgreSQL ledger's host keeps its folder there, and leaves once it is removed with the run's.
 */
const runtime = path.join(work, 'runtime');
fs.mkdirSync(runtime, { recursive: true, mode: 0o700 });

async function connect(label, serverJs, dbPath, databaseUrl, env = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverJs, '--toolset', 'progress'],
    env: {
      ...(databaseUrl ? { AGENT_PROGRESS_DATABASE_URL: databaseUrl } : { AGENT_PROGRESS_DB_PATH: dbPath }),
      AGENT_PROGRESS_LOG_LEVEL: 'warn',
      NODE_OPTIONS: '',
      PATH: process.env.PATH ?? '',
      XDG_RUNTIME_DIR: runtime,
      ...env,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c) => (stderr = (stderr + c.toString()).slice(-4000)));
  return attach(label, transport, () => stderr);
}

/**
 * The team server: `serverJs --http 0 --toolset progress` on `databaseUrl` (the stdio server's
 * env, a bearer token, info logs: JSON with --http), a process stopped by the cleanups (SIGTERM,
 * its graceful shutdown, then SIGKILL after 20 s). Resolves once it listens: its port, the token,
 * and `indexBuilt(deadlineMs)`, which waits for its log line "Ranked search answers from memory
 * ... built in N ms" (it builds the index in the background once it listens, PostgreSQL's SQL
 * answering until then): N, or undefined (it logged that ranked search stays with PostgreSQL, or
 * nothing by the deadline).
 */
async function startTeamServer(serverJs, databaseUrl) {
  const token = randomBytes(24).toString('hex');
  const child = spawn(process.execPath, [serverJs, '--http', '0', '--toolset', 'progress'], {
    env: {
      AGENT_PROGRESS_DATABASE_URL: databaseUrl,
      AGENT_PROGRESS_HTTP_TOKEN: token,
      AGENT_PROGRESS_LOG_LEVEL: 'info',
      NODE_OPTIONS: '',
      PATH: process.env.PATH ?? '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // First in line: it stops before the throwaway cluster under it.
  cleanups.unshift(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  });
  let log = '';
  let port;
  let built;
  let refused = false;
  child.stderr.on('data', (c) => {
    log = (log + c.toString()).slice(-16_000);
    port ??= /"port":(\d+)/.exec(log)?.[1];
    built ??= /Ranked search answers from memory[^\n]*?built in (\d+) ms/.exec(log)?.[1];
    refused ||= log.includes('Ranked search stays with PostgreSQL');
  });
  const until = (done, deadlineMs) =>
    poll(() => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the team server exited:\n${log}`);
      return done() || undefined;
    }, deadlineMs);
  if (!(await until(() => port !== undefined, 30_000))) throw new Error(`the team server did not listen within 30 s:\n${log}`);
  return {
    port: Number(port),
    token,
    log: () => log.slice(-4000),
    async indexBuilt(deadlineMs) {
      await until(() => built !== undefined || refused, deadlineMs);
      return built === undefined ? undefined : Number(built);
    },
  };
}

/** The team server's search_index values from its /metrics (one read). */
async function searchIndexMetrics(team) {
  const res = await fetch(`http://127.0.0.1:${team.port}/metrics`, { headers: { Authorization: `Bearer ${team.token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`/metrics answered ${res.status}: ${text}`);
  const value = (name) => new RegExp(`^agent_progress_search_index_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? '-';
  return { entries: value('entries'), building: value('building'), answers: value('answers_total') };
}

/**
 * Waits until the ledger host of `file` logged that its term index is built ("prepared ranked
 * search in N ms", host.log beside the ledger), up to `deadlineMs`: the N it logged, or undefined
 * (a build without that line, or still building). Every build measured gets the same state: the
 * servers start one after another, and a host started first had built its index while the next
 * one was still opening its ledger, so its typed words met a built index and the other's the saved
 * hits (one word typed, quiet bench: whichever build started second took 46-150 ms p50 against
 * 13-24 for the first, either order).
 */
async function hostPrepared(file, deadlineMs, log = `${file}.host/host.log`) {
  return poll(() => {
    const m = /prepared ranked search in (\d+) ms/.exec(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '');
    return m ? Number(m[1]) : undefined;
  }, deadlineMs);
}

/** What `probe` gives first (not undefined), probing every 200 ms; undefined after `deadlineMs`. */
async function poll(probe, deadlineMs) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > end) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const p50 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};
const ms = (x) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : x.toFixed(0)) : '-');

let fresh = 0;
function logArgs() {
  const e = corpus.make(50_000_000 + fresh++);
  return { projectId: e.projectId, title: e.title, content: e.content, tags: e.tags, agentId: e.agentId };
}

// ---- the queries --------------------------------------------------------------------------------

function queries() {
  const v = corpus.vocab;
  const common = v.contentWords[0];
  const middle = v.contentWords[150];
  const rare = v.contentWords[1200];
  const ident = v.identifiers.filter((id) => !id.includes('_'))[40];
  const q = (kind, label, args, goal) => ({ kind, label, args: { projectId: BENCH_PROJECT, limit: 20, ...args }, goal });
  return [
    q('title', `title: common word "${common}"`, { query: common }, 20),
    q('title', 'title: "ing" (3 letters)', { query: 'ing' }, 20),
    q('title', 'title: "ed" (2 letters)', { query: 'ed' }, 20),
    q('title', `title: rare word "${rare}"`, { query: rare }, 20),
    q('title', `title "${common}" + tag "auth" + one year`, { query: common, tags: ['auth'], startDate: '2025-01-01', endDate: '2025-12-31' }, 20),
    q('text', 'text: "the" (in every entry)', { text: 'the' }, 50),
    q('text', `text: common word "${common}"`, { text: common }, 20),
    q('text', `text: medium word "${middle}"`, { text: middle }, 20),
    q('text', `text: rare identifier "${ident}"`, { text: ident }, 20),
    q('text', `text: two words "${middle} ${common}"`, { text: `${middle} ${common}` }, 20),
    q('text', `text: phrase "the ${common}"`, { text: `"the ${common}"` }, 20),
    q('text', `text: prefix "${middle.slice(0, 4)}*"`, { text: `${middle.slice(0, 4)}*` }, 20),
    q('text', `text: negation "${common} -the"`, { text: `${common} -the` }, 20),
    q('text', `text: "${common} OR ${middle}"`, { text: `${common} OR ${middle}` }, 20),
  ];
}

/**
 * Ranked queries as the palette sends them while a word is typed (quickSearch: the last word a
 * prefix from its third letter on), none of them searched before, and the other query forms with
 * words not used elsewhere: what every keystroke costs the first time.
 */
function newQueries(used) {
  const v = corpus.vocab;
  const plain = v.identifiers.filter((id) => !id.includes('_'));
  const typed = [v.contentWords[3], v.contentWords[60], v.contentWords[400], plain[7]];
  const out = [];
  const seen = new Set(used);
  const add = (kind, text) => {
    if (seen.has(text)) return;
    seen.add(text);
    out.push({ kind, text });
  };
  const typing = (before, word) => {
    for (let n = 1; n <= word.length; n++) add(before ? 'two words, the last typed' : 'one word typed', `${before}${word.slice(0, n)}${n >= 3 ? '*' : ''}`);
  };
  for (const w of typed) typing('', w);
  typing(`${v.contentWords[25]} `, v.contentWords[90]);
  typing(`${v.contentWords[200]} `, v.contentWords[5]);
  for (let k = 0; k < 6; k++) {
    add('term', v.contentWords[500 + 37 * k]);
    add('two terms', `${v.contentWords[30 + k]} ${v.contentWords[700 + k]}`);
    add('OR', `${v.contentWords[10 + k]} OR ${v.contentWords[800 + k]}`);
    add('negation', `${v.contentWords[20 + k]} -${v.contentWords[2 + k]}`);
  }
  for (let k = 0; k < 6; k++) add('phrase', `"the ${v.contentWords[3 + 41 * k]}"`);
  for (let k = 0; k < 3; k++) add('phrase of two words in most entries', `"${v.functionWords[1 + k]} the"`);
  add('term in most entries', v.functionWords[1]);
  add('term in most entries', v.functionWords[2]);
  add('term in most entries', v.functionWords[3]);
  return out;
}

// ---- main ---------------------------------------------------------------------------------------

async function main() {
  const ours = { dir: root, label: 'this checkout' };
  if (!fs.existsSync(path.join(root, 'dist', 'server.js'))) throw new Error('dist/server.js is missing: run node esbuild.mjs first (npm run bench:search does)');
  let baseline;
  if (BASELINE !== 'none') {
    say(`building the baseline ${BASELINE}`);
    baseline = buildBaseline(BASELINE);
  }
  const master = path.join(work, 'load', 'data.db');
  say(`loading ${SIZE} entries with ${baseline ? baseline.label : 'this checkout'}'s schema`);
  const loadMs = await load(baseline ? baseline.dir : root, master);
  say(`loaded in ${(loadMs / 1000).toFixed(0)} s`);
  const builds = baseline ? [baseline, ours] : [ours];
  const servers = [];
  const files = [];
  for (const [i, b] of builds.entries()) {
    const file = path.join(work, `ledger-${i}`, 'data.db');
    files.push(file);
    copyLedger(master, file);
    const s = await connect(b.label, path.join(b.dir, 'dist', 'server.js'), file);
    const open = await timed(() => s.call('search_logs', { projectId: BENCH_PROJECT, limit: 1 }));
    say(`${b.label}: first call (opens the ledger) ${ms(open.ms)} ms`);
    servers.push(s);
  }
  const oursAt = servers.length - 1;
  const prepared = [];
  for (const [k, file] of files.entries()) {
    const t0 = performance.now();
    const built = await hostPrepared(file, 180_000);
    prepared.push(built);
    say(
      `${servers[k].label}: ${built === undefined ? 'no term index reported by its ledger host' : `term index built by its ledger host in ${built} ms`} (waited ${ms(performance.now() - t0)} ms)`,
    );
  }
  // The embedded builds first, then with --postgres on one database: the stdio server opening it itself, the stdio server through its ledger host, and the team server.
  const embedded = servers.length;
  const pgAt = embedded;
  const pgHostAt = embedded + 1;
  const teamAt = embedded + 2;
  let team;
  let teamBuilt;
  let pgHostBuilt;
  if (POSTGRES) {
    const url = await createDatabase(GIVEN_URL ?? (await startCluster(cleanups)));
    say('loading the same entries into PostgreSQL');
    const copy = await timed(() => loadPostgres(url, corpus, SIZE, say));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const version = (await c.query('SHOW server_version')).rows[0].server_version.split(' ')[0];
    const trgm = (await c.query("SELECT 1 FROM pg_indexes WHERE indexname = 'idx_entries_title_trgm'")).rows.length > 0;
    await c.query('ANALYZE');
    await c.end();
    say(`loaded in ${(copy.ms / 1000).toFixed(0)} s; PostgreSQL ${version}, ${trgm ? 'with' : 'without'} the pg_trgm title index`);
    const s = await connect(`PostgreSQL ${version}`, path.join(root, 'dist', 'server.js'), undefined, url, { AGENT_PROGRESS_LEDGER_HOST: 'off' });
    const open = await timed(() => s.call('search_logs', { projectId: BENCH_PROJECT, limit: 1 }));
    say(`${s.label}: first call ${ms(open.ms)} ms`);
    servers.push(s);
    say('starting a stdio server through the ledger host of the same database');
    const h = await connect('PostgreSQL through its ledger host (index in memory)', path.join(root, 'dist', 'server.js'), undefined, url);
    const hOpen = await timed(() => h.call('search_logs', { projectId: BENCH_PROJECT, limit: 1 }));
    say(`${h.label}: first call (starts the host) ${ms(hOpen.ms)} ms`);
    servers.push(h);
    // Stopped before the cluster under it (and gone anyway once the run's runtime folder is).
    cleanups.unshift(async () => {
      spawnSync(process.execPath, [path.join(root, 'dist', 'cli.js'), 'host', 'stop'], {
        env: { AGENT_PROGRESS_DATABASE_URL: url, XDG_RUNTIME_DIR: runtime, PATH: process.env.PATH ?? '' },
        stdio: 'ignore',
        timeout: 30_000,
      });
    });
    const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
    const hostLog = () => {
      const dir = path.join(runtime, `agent-progress-${uid}`);
      const pg = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.startsWith('pg-')) : undefined;
      return pg ? path.join(dir, pg, 'host.log') : path.join(dir, 'none');
    };
    const th = performance.now();
    pgHostBuilt = await hostPrepared(undefined, 600_000, hostLog());
    say(
      `${h.label}: ${pgHostBuilt === undefined ? 'no index reported by its ledger host' : `index in memory built by its ledger host in ${pgHostBuilt} ms`} (waited ${ms(performance.now() - th)} ms)`,
    );
    say('starting the team server (--http) on the same database');
    team = await startTeamServer(path.join(root, 'dist', 'server.js'), url);
    const t0 = performance.now();
    teamBuilt = await team.indexBuilt(600_000);
    const label = 'PostgreSQL team server (index in memory)';
    say(
      `${label}: ${teamBuilt === undefined ? 'no index in memory reported (ranked search stays with PostgreSQL)' : `index in memory built in ${teamBuilt} ms`} (waited ${ms(performance.now() - t0)} ms)`,
    );
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${team.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${team.token}` } } });
    const t = await attach(label, transport, team.log);
    const tOpen = await timed(() => t.call('search_logs', { projectId: BENCH_PROJECT, limit: 1 }));
    say(`${t.label}: first call ${ms(tOpen.ms)} ms`);
    servers.push(t);
  }
  const qs = queries();
  const first = qs.map(() => servers.map(() => NaN));
  const hits = qs.map(() => servers.map(() => undefined));
  const times = qs.map(() => servers.map(() => []));
  say('first calls');
  for (const [i, q] of qs.entries()) {
    for (const [k, s] of servers.entries()) {
      const r = await timed(() => s.call('search_logs', q.args));
      first[i][k] = r.ms;
      hits[i][k] = r.value.structuredContent?.total;
    }
  }
  // The first ranked search of each build (ours builds its term index then).
  const firstRanked = first[qs.findIndex((q) => q.kind === 'text')];
  say('new queries, each searched once');
  const unseen = newQueries(qs.filter((q) => q.kind === 'text').map((q) => q.args.text));
  const freshTimes = unseen.map(() => servers.map(() => NaN));
  let freshDiffer = 0;
  let pgSame = 0;
  const pgDiffer = [];
  for (const [i, f] of unseen.entries()) {
    // Rotated by one each query, so that each server is called right after each other one as
    // often: the one called after the stdio server on SQL, whose search keeps PostgreSQL busy for
    // up to half a second, took 7 ms more for a phrase of two words in most entries, whichever
    // server it was (reversing the order every other query put the ledger host there for two of
    // that kind's three queries).
    const order = servers.map((_, k) => (k + i) % servers.length);
    // By server, not in the order called: the embedded builds come first.
    const answers = servers.map(() => '');
    for (const k of order) {
      const r = await timed(() => servers[k].call('search_logs', { projectId: BENCH_PROJECT, limit: 20, text: f.text }));
      freshTimes[i][k] = r.ms;
      const sc = r.value.structuredContent ?? {};
      answers[k] = JSON.stringify([sc.total, (sc.entries ?? []).map((e) => e.id)]);
    }
    if (new Set(answers.slice(0, embedded)).size > 1) freshDiffer++;
    if (!POSTGRES) continue;
    if (answers[pgAt] === answers[teamAt] && answers[pgAt] === answers[pgHostAt]) pgSame++;
    else {
      pgDiffer.push(f.text);
      say(`the PostgreSQL servers answered ${f.text} differently: stdio ${answers[pgAt]}, through the host ${answers[pgHostAt]}, team server ${answers[teamAt]}`);
    }
  }
  if (POSTGRES) {
    for (const [at, what] of [
      [pgHostAt, 'through the ledger host'],
      [teamAt, 'through the team server'],
    ]) {
      const slower = unseen.map((f, i) => [f.text, freshTimes[i][pgAt], freshTimes[i][at]]).filter(([, stdio, t]) => t > stdio);
      say(
        `new queries slower ${what} than the stdio server on SQL: ${slower.length} of ${unseen.length}${slower.map(([q, stdio, t]) => `; ${q} ${ms(t)} / ${ms(stdio)} ms`).join('')}`,
      );
    }
  }
  say(`${CALLS} rounds of every query`);
  for (let round = 0; round < CALLS; round++) {
    const order = round % 2 === 0 ? servers.map((_, k) => k) : servers.map((_, k) => servers.length - 1 - k);
    for (const [i, q] of qs.entries()) {
      for (const k of order) {
        const r = await timed(() => servers[k].call('search_logs', q.args));
        times[i][k].push(r.ms);
      }
    }
  }
  say('searches right after a write');
  const afterWrite = qs.map(() => servers.map(() => []));
  const textQs = qs.map((q, i) => [q, i]).filter(([q]) => q.kind === 'text');
  for (let round = 0; round < AFTER_WRITE_CALLS; round++) {
    for (const [q, i] of textQs) {
      for (const [k, s] of servers.entries()) {
        await s.call('log_progress', logArgs());
        const r = await timed(() => s.call('search_logs', q.args));
        afterWrite[i][k].push(r.ms);
      }
    }
  }
  say('log_progress in alternating blocks');
  const logs = servers.map(() => []);
  for (let done = 0; done < LOG_CALLS; done += 50) {
    for (const [k, s] of servers.entries()) {
      for (let n = 0; n < 50; n++) logs[k].push((await timed(() => s.call('log_progress', logArgs()))).ms);
    }
  }
  const metrics = team ? await searchIndexMetrics(team) : undefined;

  // ---- tables ----
  const names = servers.map((s) => s.label);
  const lines = [];
  lines.push(`### search_logs at ${SIZE.toLocaleString('en-US')} entries, through MCP (p50 of ${CALLS} calls; ms)`, '');
  const met = (x, goal) => (x <= goal ? 'yes' : '**no**');
  const head = [
    'query',
    'hits',
    ...names.flatMap((n) => [`${n} first`, `${n} p50`]),
    ...(oursAt > 0 ? ['p50 ratio'] : []),
    'goal',
    'met',
    ...(POSTGRES ? ['PostgreSQL met', 'host met', 'team server met'] : []),
  ];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const [i, q] of qs.entries()) {
    const p = servers.map((_, k) => p50(times[i][k]));
    const mine = p[oursAt];
    const agree = new Set(hits[i].map(String)).size === 1 ? String(hits[i][0]) : `${hits[i].join(' / ')} (differ)`;
    const row = [
      q.label,
      agree,
      ...servers.flatMap((_, k) => [ms(first[i][k]), ms(p[k])]),
      ...(oursAt > 0 ? [`${(p[0] / mine).toFixed(1)}x`] : []),
      `≤ ${q.goal}`,
      met(mine, q.goal),
      ...(POSTGRES ? [met(p[pgAt], q.goal), met(p[pgHostAt], q.goal), met(p[teamAt], q.goal)] : []),
    ];
    lines.push(`| ${row.join(' | ')} |`);
  }
  lines.push('', `### Ranked text: the first search of queries never searched before (${unseen.length} queries, each once per server; ms)`, '');
  lines.push(
    `Measured once each ledger host had built its term index (${servers
      .slice(0, embedded)
      .map((s, k) => `${s.label} ${prepared[k] === undefined ? 'not reported' : `in ${prepared[k]} ms`}`)
      .join(', ')}). First ranked search after the server started: ${servers
      .slice(0, embedded)
      .map((s, k) => `${s.label} ${ms(firstRanked[k])}`)
      .join(', ')}. Top 20 and total identical between the embedded builds: ${unseen.length - freshDiffer} of ${unseen.length} queries.${
      POSTGRES
        ? ` The PostgreSQL ledger host's index in memory ${pgHostBuilt === undefined ? 'was not reported built (its SQL answered)' : `was built in ${pgHostBuilt} ms`}, the team server's ${teamBuilt === undefined ? 'was not reported built (its SQL answered)' : `in ${teamBuilt} ms`}, both before any timed call; top 20 and total identical between the three PostgreSQL servers: ${pgSame} of ${unseen.length} queries${pgDiffer.length > 0 ? ` (differ: ${pgDiffer.map((t) => `\`${t}\``).join(', ')})` : ''}.`
        : ''
    }`,
    '',
  );
  const head3 = [
    'queries',
    'n',
    ...names.flatMap((n) => [`${n} p50`, `${n} p90`, `${n} max`]),
    'goal p50',
    'met',
    ...(POSTGRES ? ['PostgreSQL met', 'host met', 'team server met'] : []),
  ];
  lines.push(`| ${head3.join(' | ')} |`, `|${head3.map(() => '---').join('|')}|`);
  const p90 = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)];
  };
  for (const kind of [...new Set(unseen.map((f) => f.kind))]) {
    const at = unseen.map((f, i) => [f, i]).filter(([f]) => f.kind === kind);
    const per = servers.map((_, k) => at.map(([, i]) => freshTimes[i][k]));
    const goal = kind === 'term in most entries' ? 50 : 20;
    const pgMet = POSTGRES ? [pgAt, pgHostAt, teamAt].map((k) => met(p50(per[k]), goal)) : [];
    lines.push(`| ${[kind, at.length, ...per.flatMap((xs) => [ms(p50(xs)), ms(p90(xs)), ms(Math.max(...xs))]), `≤ ${goal}`, met(p50(per[oursAt]), goal), ...pgMet].join(' | ')} |`);
  }
  lines.push('', `### Ranked text right after a log_progress (p50 of ${AFTER_WRITE_CALLS}; ms)`, '');
  const head2 = ['query', ...names, 'goal', 'met', ...(POSTGRES ? ['PostgreSQL met', 'host met', 'team server met'] : [])];
  lines.push(`| ${head2.join(' | ')} |`, `|${head2.map(() => '---').join('|')}|`);
  for (const [q, i] of textQs) {
    const p = servers.map((_, k) => p50(afterWrite[i][k]));
    lines.push(
      `| ${[q.label, ...p.map(ms), `≤ ${q.goal}`, met(p[oursAt], q.goal), ...(POSTGRES ? [met(p[pgAt], q.goal), met(p[pgHostAt], q.goal), met(p[teamAt], q.goal)] : [])].join(' | ')} |`,
    );
  }
  const lp = logs.map(p50);
  lines.push('', `### log_progress at ${SIZE.toLocaleString('en-US')} entries (p50 of ${LOG_CALLS}, alternating blocks of 50; ms)`, '');
  lines.push(`| ${[...names, ...(oursAt > 0 ? ['ratio (this / baseline)'] : [])].join(' | ')} |`, `|${[...names, ...(oursAt > 0 ? [''] : [])].map(() => '---').join('|')}|`);
  lines.push(`| ${[...lp.map(ms), ...(oursAt > 0 ? [(lp[oursAt] / lp[0]).toFixed(2)] : [])].join(' | ')} |`);
  const loadAvg = loadAverage();
  lines.push(
    '',
    `Ledger loaded in ${(loadMs / 1000).toFixed(0)} s; node ${process.version}; ${os.cpus().length} cores; load average ${loadAvg} (1 / 5 / 15 min) at the end; ${new Date().toISOString()}.${
      metrics
        ? ` Team server's /metrics at the end: agent_progress_search_index_entries ${metrics.entries}, agent_progress_search_index_building ${metrics.building}, agent_progress_search_index_answers_total ${metrics.answers}.`
        : ''
    }`,
  );
  const text = lines.join('\n') + '\n';
  process.stdout.write(text);
  fs.mkdirSync(path.join(benchDir, 'results'), { recursive: true });
  fs.writeFileSync(path.join(benchDir, 'results', 'search-latest.md'), text);
}

try {
  await main();
} finally {
  await cleanup();
}
process.exit(0);
