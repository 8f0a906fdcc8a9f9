#!/usr/bin/env node
// The extension's own figures (README "Performance", issue 3): the size and contents of the .vsix, the
// extension's activation time in a real VS Code, and the extension host's memory once it has
// opened a large ledger and filled the Progress Log from it, set against the ledger file's size.
//
//   node bench/extension.mjs [--entries=N] [--skip-package]
//
// Packages with `npm run package` (unless --skip-package and agent-progress.vsix exists), fills
// a temporary ledger with N entries (default 100,000) through the storage engine's bulk loader,
// then runs bench/vscode/*.test.ts inside VS Code (the integration harness: code-server and
// headless Chromium, see scripts/vscode/README.md) with the user's agentProgress.ledgerPath set to
// that ledger (a machine setting: a workspace's own is ignored). Tables: stdout, bench/results/extension-latest.md and a dated copy.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCorpus } from './corpus.mjs';
import { loadHarness } from './harnessLoader.mjs';

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..');
const argv = process.argv.slice(2);
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = argv.filter((a) => !/^--(entries=\d+|skip-package)$/.test(a));
if (unknown.length > 0) {
  process.stderr.write(`Unknown argument(s): ${unknown.join(' ')}\nUsage: node bench/extension.mjs [--entries=N] [--skip-package]\n`);
  process.exit(2);
}
const ENTRIES = Number(option('entries') ?? 100_000);
const say = (line) => process.stderr.write(`bench: ${line}\n`);
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** Names and uncompressed sizes of a zip's entries, from its central directory. */
function zipEntries(file) {
  const buf = fs.readFileSync(file);
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${i}`);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    entries.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLength), size });
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

async function fillLedger(file) {
  const harness = await loadHarness();
  const corpus = createCorpus({ total: ENTRIES });
  const loader = await harness.openBulkLoader(file);
  const t0 = performance.now();
  for (let done = 0; done < ENTRIES; ) {
    const batch = [];
    for (let k = 0; k < 1_000 && done + k < ENTRIES; k++) batch.push({ ...corpus.make(done + k), id: randomBytes(9).toString('base64url') });
    await loader.insertMany(batch);
    done += batch.length;
  }
  await loader.compact();
  const count = loader.count();
  await loader.close();
  say(`ledger of ${count} entries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return count;
}

async function main() {
  const vsix = path.join(root, 'agent-progress.vsix');
  if (!argv.includes('--skip-package') || !fs.existsSync(vsix)) {
    say('packaging (npm run package)');
    run('npm', ['run', '--silent', 'package']);
  }
  const vsixBytes = fs.statSync(vsix).size;
  const entries = zipEntries(vsix);
  const biggest = [...entries].sort((a, b) => b.size - a.size).slice(0, 6);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-extension-'));
  try {
    const ledger = path.join(tmp, 'ledger', 'data.db');
    fs.mkdirSync(path.dirname(ledger), { recursive: true, mode: 0o700 });
    const count = await fillLedger(ledger);
    const workspace = path.join(tmp, 'workspace');
    fs.mkdirSync(workspace, { recursive: true });
    const userSettings = path.join(tmp, 'user-settings.json');
    fs.writeFileSync(userSettings, JSON.stringify({ 'agentProgress.ledgerPath': ledger }));

    say('measuring inside VS Code');
    run(process.execPath, ['esbuild.mjs']);
    run(process.execPath, ['scripts/vscode/buildIntegrationTests.mjs', '--src=bench/vscode', '--out=out/bench-vscode', '--index=test/integration/index.ts']);
    const out = path.join(tmp, 'figures.json');
    run(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      ['test/integration/runTest.ts', '--tests=out/bench-vscode', `--workspace=${workspace}`, `--user-settings=${userSettings}`],
      { BENCH_OUT: out },
    );
    const f = JSON.parse(fs.readFileSync(out, 'utf8'));
    if (path.resolve(f.ledgerPath) !== path.resolve(ledger)) throw new Error(`the extension opened ${f.ledgerPath}, not ${ledger}`);

    const m = f.memory;
    const rows = [
      [
        '.vsix size (target under 5 MB)',
        `${mb(vsixBytes)} (${entries.length} files; largest: ${biggest.map((e) => `${e.name.replace(/^extension\//, '')} ${mb(e.size)}`).join(', ')})`,
      ],
      ['activation: activate() to its return (target under 100 ms, ledger opened lazily)', `${f.activationMs.toFixed(1)} ms`],
      [`first use: open the ledger of ${count.toLocaleString('en-US')} entries (${mb(f.ledgerBytes)})`, `${f.openMs.toFixed(0)} ms (${f.hostLine})`],
      ['first use: Progress Log projects and the first page of entries', `${f.treeMs.toFixed(0)} ms (${f.treeRows} rows)`],
      [
        'extension host RSS: before activation / activated / ledger open and view filled',
        `${m.beforeActivation.rss.toFixed(0)} MB / ${m.activated.rss.toFixed(0)} MB / ${m.ledgerOpen.rss.toFixed(0)} MB`,
      ],
      [
        'extension host RSS added by the open ledger, against the ledger file (target under 2x)',
        `${(m.ledgerOpen.rss - m.activated.rss).toFixed(0)} MB for ${mb(f.ledgerBytes)} = ${((m.ledgerOpen.rss - m.activated.rss) / (f.ledgerBytes / 1024 / 1024)).toFixed(2)}x (whole host: ${(m.ledgerOpen.rss / (f.ledgerBytes / 1024 / 1024)).toFixed(2)}x)`,
      ],
      ['extension host heap / external (WASM memory) with the ledger open', `${m.ledgerOpen.heapUsed.toFixed(0)} MB / ${m.ledgerOpen.external.toFixed(0)} MB`],
    ];
    const stamp = new Date().toISOString().slice(0, 16).replace(/[T:]/g, '-');
    const md = [
      `# Extension figures, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `node bench/extension.mjs --entries=${ENTRIES}; VS Code: code-server's extension host (Node ${process.versions.node} outside; see scripts/vscode/README.md).`,
      '',
      '| what | measured |',
      '|---|---|',
      ...rows.map(([k, v]) => `| ${k} | ${v} |`),
      '',
    ].join('\n');
    process.stdout.write(md);
    fs.mkdirSync(path.join(benchDir, 'results'), { recursive: true });
    fs.writeFileSync(path.join(benchDir, 'results', 'extension-latest.md'), md);
    fs.writeFileSync(path.join(benchDir, 'results', `extension-${stamp}.md`), md);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench/extension.mjs: ${err.message ?? err}\n`);
  process.exit(1);
});
