#!/usr/bin/env node
// The traces indexer on 1,000 generated sessions (600 Claude Code, 400 Codex, in their real
// layouts): a first index, a rescan with nothing changed, an incremental re-index after 100
// sessions grew and 10 arrived, and what the tools then cost. Prints a Markdown table (and writes
// bench/results/traces-latest.md); never asserts on time.
//
//   node bench/traces.mjs [--sessions=N] [--keep]

import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..');
const flags = Object.fromEntries(
  process.argv
    .slice(2)
    .map((a) => /^--([^=]+)(?:=(.*))?$/.exec(a))
    .filter(Boolean)
    .map((m) => [m[1], m[2] ?? true]),
);
const TOTAL = Number(flags.sessions ?? 1000);
const say = (m) => process.stderr.write(`${m}\n`);

async function loadHarness() {
  const esbuild = await import('esbuild');
  const outfile = path.join(benchDir, '.build', 'tracesHarness.cjs');
  await esbuild.build({
    entryPoints: [path.join(benchDir, 'tracesHarness.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    define: { AGENT_PROGRESS_VERSION: JSON.stringify('bench') },
  });
  process.env.AGENT_PROGRESS_SQLJS_WASM = path.join(root, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');
  return createRequire(import.meta.url)(outfile);
}

function pct(list, p) {
  const s = [...list].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const ms = (n) => (n >= 100 ? `${n.toFixed(0)} ms` : n >= 10 ? `${n.toFixed(1)} ms` : `${n.toFixed(2)} ms`);
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

async function repeat(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) times.push((await timed(fn)).ms);
  return { p50: pct(times, 50), p90: pct(times, 90) };
}

const h = await loadHarness();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-traces-'));
const cleanup = () => (flags.keep ? say(`kept ${home}`) : fs.rmSync(home, { recursive: true, force: true }));
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  say(`generating ${TOTAL} sessions in ${home}`);
  const random = h.rng(7);
  const claude = [];
  const started = performance.now();
  for (let i = 0; i < TOTAL; i++) {
    const start = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000);
    const cwd = `/home/dev/project-${i % 25}`;
    if (i % 5 < 3) {
      claude.push(
        h.writeClaude(home, {
          seed: 1000 + i,
          start,
          cwd,
          turns: 3 + Math.floor(random() * 6),
          callsPerTurn: 2 + Math.floor(random() * 4),
          outputBytes: 500 + Math.floor(random() * 3500),
          failEvery: 7,
        }),
      );
    } else {
      h.writeCodex(home, { seed: 5000 + i, start, cwd, turns: 2 + Math.floor(random() * 7) });
    }
  }
  const files = fs.readdirSync(home, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const bytes = files.reduce((n, e) => n + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
  say(`generated ${files.length} files, ${mb(bytes)} in ${(performance.now() - started).toFixed(0)} ms`);

  const homes = h.resolveTraceHomes({ env: { AGENT_PROGRESS_TRACES_HOME: home } });
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const service = new h.TraceService({ homes, logger: h.silentLogger, minRefreshMs: 0 });
  const first = await timed(() => service.refresh(true));
  globalThis.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  const sessions = service.index.sessions.length;

  const rescan = await timed(() => service.refresh(true));
  const rescans = await repeat(10, () => service.refresh(true));

  // 100 sessions grow by one turn; 10 new sessions arrive.
  let appended = 0;
  for (const s of claude.slice(0, 100)) {
    const extra = h.claudeLines({ id: s.id, seed: 9, turns: 1, callsPerTurn: 2, start: new Date(s.end) }).lines.join('\n') + '\n';
    fs.appendFileSync(s.file, extra);
    appended += Buffer.byteLength(extra);
  }
  for (let i = 0; i < 10; i++) h.writeClaude(home, { seed: 90_000 + i, start: new Date(Date.UTC(2027, 0, 1 + i)), cwd: '/home/dev/new', turns: 4 });
  const incremental = await timed(() => service.refresh(true));

  const fresh = new h.TraceService({ homes, logger: h.silentLogger, minRefreshMs: 0 });
  const restart = await timed(() => fresh.refresh(true));

  // The tools as the server runs them: a rescan at most once a second (its default).
  const server = new h.TraceService({ homes, logger: h.silentLogger });
  await server.refresh(true);
  const id = server.index.sessions[500].id;
  const list = await repeat(50, () => server.listSessions({ limit: 10 }));
  const summary = await repeat(50, () => server.getSessionDetails({ session_id: id.slice(0, 8) }));
  const analyze = await repeat(50, () => server.analyzeSession({ session_id: id }));
  const steps = await repeat(20, () => server.getSessionDetails({ session_id: id, detail_level: 'steps' }));
  const searchOne = await repeat(5, () => server.searchEventPreviews({ query: 'npm test -- 0-1', session_id: id }));
  const searchCold = await timed(() => server.searchEventPreviews({ query: 'no-such-text-anywhere', limit: 10 }).catch(() => undefined));
  const searchAll = await repeat(3, () => server.searchEventPreviews({ query: 'no-such-text-anywhere', limit: 10 }).catch(() => undefined));
  const searchCommon = await repeat(10, () => server.searchEventPreviews({ query: 'checkout', limit: 10 }));

  // One real server process (dist/server.js --toolset traces) on the same folders: its memory.
  let serverMemory = 'not measured (needs dist/server.js and /proc)';
  const serverJs = path.join(root, 'dist', 'server.js');
  if (fs.existsSync(serverJs) && fs.existsSync('/proc/self/status')) {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [serverJs, '--toolset', 'traces'],
      env: { PATH: process.env.PATH ?? '', AGENT_PROGRESS_TRACES_HOME: home, AGENT_PROGRESS_DB_PATH: path.join(home, 'ledger', 'data.db'), AGENT_PROGRESS_LOG_LEVEL: 'error' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const vm = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${transport.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    const idle = vm('VmRSS');
    const t = performance.now();
    await client.callTool({ name: 'list_sessions', arguments: { limit: 10 } });
    const firstCall = performance.now() - t;
    const indexed = vm('VmRSS');
    await client.callTool({ name: 'search_event_previews', arguments: { query: 'no-such-text-anywhere' } });
    await client.callTool({ name: 'get_session_details', arguments: { session_id: id, detail_level: 'steps' } });
    serverMemory = `RSS ${mb(idle)} started, ${mb(indexed)} after the first call (indexing took ${ms(firstCall)}), ${mb(vm('VmRSS'))} after a full search (peak ${mb(vm('VmHWM'))})`;
    await client.close();
  }

  const rows = [
    ['corpus', `${files.length} files (${TOTAL} sessions: 600 Claude Code, 400 Codex), ${mb(bytes)}`],
    [
      'first index (every file read)',
      `${ms(first.ms)} for ${sessions} sessions = ${(first.ms / sessions).toFixed(2)} ms per session, ${(bytes / 1048576 / (first.ms / 1000)).toFixed(0)} MB/s; ${first.value.bytesRead.toLocaleString('en-US')} bytes read`,
    ],
    ['rescan, nothing changed (stat only)', `${ms(rescan.ms)} first; p50 ${ms(rescans.p50)} / p90 ${ms(rescans.p90)} over 10; 0 bytes read (${rescan.value.bytesRead})`],
    [
      'incremental re-index: 100 grown, 10 new',
      `${ms(incremental.ms)}; ${incremental.value.tailed} files read from their last offset, ${incremental.value.parsed} new files read whole; ${incremental.value.bytesRead.toLocaleString('en-US')} bytes read (${appended.toLocaleString('en-US')} appended + the new files)`,
    ],
    ['restart (a new process, no cache)', `${ms(restart.ms)}`],
    ['one traces server (dist/server.js) on these folders', serverMemory],
    [
      'index memory (heap after first index, less before)',
      globalThis.gc ? mb(heapAfter - heapBefore) : `${mb(heapAfter - heapBefore)} (run with --expose-gc for a steadier figure)`,
    ],
    ['list_sessions (10), p50 / p90 (the tools rescan at most once a second, as in the server)', `${ms(list.p50)} / ${ms(list.p90)}`],
    ['get_session_details summary, p50 / p90', `${ms(summary.p50)} / ${ms(summary.p90)}`],
    ['analyze_session, p50 / p90', `${ms(analyze.p50)} / ${ms(analyze.p90)}`],
    ['get_session_details steps (reads the transcript), p50 / p90', `${ms(steps.p50)} / ${ms(steps.p90)}`],
    ['search_event_previews in one session, p50', ms(searchOne.p50)],
    ['search_event_previews, a common word (page fills early), p50', ms(searchCommon.p50)],
    [
      'search_event_previews, no match: scans every transcript, first (reads the files) / again (parsed events of the sessions that fit the cache: 24 MB of transcripts)',
      `${ms(searchCold.ms)} / ${ms(searchAll.p50)}`,
    ],
  ];
  const table = [
    `Traces bench of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg()[0].toFixed(1)}.`,
    '',
    '| what | measured |',
    '|---|---|',
    ...rows.map(([a, b]) => `| ${a} | ${b} |`),
  ].join('\n');
  console.log(table);
  fs.mkdirSync(path.join(benchDir, 'results'), { recursive: true });
  fs.writeFileSync(path.join(benchDir, 'results', 'traces-latest.md'), table + '\n');
} finally {
  cleanup();
}
