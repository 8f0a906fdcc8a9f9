// A measured try of Node's user-land startup snapshot for the servers' start (issue 14), not a
// feature: builds a snapshot blob of dist/server-main.js in a temp folder (the bundle evaluated,
// its modules initialised, main() left to run after deserialisation) and times spawn to first
// answer (initialize + search_logs, a warm host) of `node dist/server.js` against
// `node --snapshot-blob BLOB dist/server.js`, interleaved, with and without NODE_EXTRA_CA_CERTS,
// with the PSS of each server at its first answer. Prints a Markdown table; asserts nothing.
// Usage: node bench/snapshotProbe.mjs [--rounds N] (needs dist/; uses a throwaway ledger and host).

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadAverage } from './loadAverage.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.join(root, 'dist');
const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 6;
const PER_ROUND = 5;
const LEAN = ['--max-semi-space-size=1'];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-snapshot-'));
const environment = {
  ...process.env,
  AGENT_PROGRESS_DB_PATH: path.join(dir, 'data.db'),
  AGENT_PROGRESS_CODE_CACHE: path.join(dir, 'code-cache'),
  AGENT_PROGRESS_HOST_IDLE_MS: '600000',
  MALLOC_MMAP_THRESHOLD_: '131072',
};
const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutCa } = environment;

/** The blob: the bundle with its main() kept for the deserialised process instead of run. */
function buildBlob() {
  const bundle = path.join(dist, 'server-main.js');
  const source = fs.readFileSync(bundle, 'latin1');
  const guard = 'if (isMainBundle(module, require.main)) {';
  if (!source.includes(guard)) throw new Error(`${bundle} has no "${guard}": the probe no longer fits the bundle`);
  fs.writeFileSync(path.join(dir, 'bundle.js'), source.replace(guard, 'globalThis.__apMain = main;\nif (false) {'));
  const entry = path.join(dir, 'entry.js');
  fs.writeFileSync(
    entry,
    `const fs = require('fs'); const vm = require('vm'); const v8 = require('v8');
const BUNDLE = ${JSON.stringify(bundle)};
const src = fs.readFileSync(${JSON.stringify(path.join(dir, 'bundle.js'))}, 'latin1');
let realRequire = require; // the builder's require loads built-in modules only
const fn = vm.runInThisContext('(function (exports, require, module, __filename, __dirname) { ' + src + '\\n})', { filename: BUNDLE });
const mod = { exports: {}, filename: BUNDLE, id: BUNDLE };
fn.call(mod.exports, mod.exports, (id) => realRequire(id), mod, BUNDLE, ${JSON.stringify(dist)});
v8.startupSnapshot.setDeserializeMainFunction(() => {
  realRequire = require('module').createRequire(BUNDLE);
  globalThis.__apMain().catch((e) => { process.stderr.write(String(e) + '\\n'); process.exit(1); });
});
`,
  );
  const blob = path.join(dir, 'server.blob');
  const started = performance.now();
  const run = spawnSync(process.execPath, [...LEAN, '--snapshot-blob', blob, '--build-snapshot', entry], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`--build-snapshot failed: ${run.stderr}`);
  return { blob, ms: performance.now() - started, bytes: fs.statSync(blob).size };
}

/** Spawn to first answer of one server; its PSS then. */
function once(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let sent = false;
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before answering: ${out}`)));
    child.stdout.on('data', (data) => {
      out += data;
      if (out.includes('"id":2')) {
        const ms = performance.now() - started;
        const rollup = fs.readFileSync(`/proc/${child.pid}/smaps_rollup`, 'utf8');
        child.removeAllListeners('exit');
        child.kill();
        resolve({ ms, pss: Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024 });
      } else if (out.includes('"id":1') && !sent) {
        sent = true;
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_logs', arguments: { projectId: 'bench', limit: 5 } } })}\n`,
        );
      }
    });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };
    child.stdin.write(`${JSON.stringify(init)}\n`);
  });
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadAverage(', ');

async function main() {
  const loadBefore = load();
  const { blob, ms: buildMs, bytes } = buildBlob();
  const server = path.join(dist, 'server.js');
  const variants = [
    ['code-cache launcher', [...LEAN, server, '--toolset', 'progress'], environment],
    ['startup snapshot', [...LEAN, '--snapshot-blob', blob, server, '--toolset', 'progress'], environment],
  ];
  if (extraCa !== undefined) {
    variants.push(['code-cache launcher, without NODE_EXTRA_CA_CERTS', variants[0][1], withoutCa]);
    variants.push(['startup snapshot, without NODE_EXTRA_CA_CERTS', variants[1][1], withoutCa]);
  }
  // Warm-up: the host, the code cache of this command line.
  for (const [, args, env] of variants) await once(args, env);
  const times = variants.map(() => []);
  const pss = variants.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let v = 0; v < variants.length; v++) {
      for (let i = 0; i < PER_ROUND; i++) {
        const { ms, pss: p } = await once(variants[v][1], variants[v][2]);
        times[v].push(ms);
        pss[v].push(p);
      }
    }
  }
  console.log(`Startup snapshot probe, ${os.cpus().length} cores, load average ${loadBefore} at the start, ${load()} at the end`);
  console.log(`blob: ${(bytes / 1048576).toFixed(1)} MB, built in ${buildMs.toFixed(0)} ms\n`);
  console.log('| start | spawn to first answer, p50 | PSS at first answer, p50 |\n|---|---|---|');
  variants.forEach(([name], v) => console.log(`| ${name} | ${p50(times[v]).toFixed(0)} ms (${times[v].length} starts) | ${(p50(pss[v]) / 1048576).toFixed(1)} MB |`));
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'host', 'stop'], { env: environment });
    fs.rmSync(dir, { recursive: true, force: true });
  });
