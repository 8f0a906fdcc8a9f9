// How long workflow snapshots take on a generated repository of 10,000 files (as every bench:
// figures printed, never asserted). Outside git: the checksum snapshot the first time (every file
// read and hashed), again with the previous manifest as cache (stat only), and after a few edits;
// the diff of two manifests. In git, for comparison: the working-tree snapshot of start_task on
// the same tree, committed. Separate from bench/run.mjs.
//
//   npx tsx bench/workflowSnapshots.ts [--files 10000] [--runs 5]
//
// Prints a Markdown table and writes it to bench/results/workflow-snapshots.md.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checksumSnapshot, diffManifests, type Manifest } from '../src/core/workflow/checksumSnapshot';
import { findRepository, snapshotWorkingTree } from '../src/core/workflow/git';
import { Snapshotter } from '../src/core/workflow/snapshots';
import { generateTree } from '../test/helpers/fileTree';
import { gitTestEnv } from '../test/helpers/gitRepo';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const FILES = arg('files', 10_000);
const RUNS = arg('runs', 5);

function stats(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
  return `${fmt(median)} ms (min ${fmt(sorted[0]!)}, max ${fmt(sorted[sorted.length - 1]!)})`;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-snap-'));
  try {
    const root = path.join(dir, 'tree');
    const t0 = performance.now();
    const { files } = generateTree(root, { files: FILES, ignoredFiles: 2_000 });
    const bytes = files.reduce((n, f) => n + fs.statSync(path.join(root, f)).size, 0);
    process.stderr.write(`generated ${FILES} files (${(bytes / 1e6).toFixed(1)} MB) + 2,000 ignored in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    // Files written just now are never trusted from a cache (coarse clocks): age them, as a real repository's are.
    const past = new Date(Date.now() - 3_600_000);
    for (const f of [...files, '.gitignore']) fs.utimesSync(path.join(root, f), past, past);

    const cold: number[] = [];
    const warm: number[] = [];
    const edited: number[] = [];
    const diffs: number[] = [];
    let cache: Manifest | undefined;
    let hashedWarm = 0;
    for (let run = 0; run < RUNS; run++) {
      const [c, first] = await time(() => checksumSnapshot(root));
      cold.push(c);
      const [w, second] = await time(() => checksumSnapshot(root, { cache: first.manifest }));
      warm.push(w);
      hashedWarm = second.hashed;
      for (let i = 0; i < 10; i++) fs.appendFileSync(path.join(root, files[(run * 10 + i) % files.length]!), `// edit ${run}\n`);
      const [e, third] = await time(() => checksumSnapshot(root, { cache: second.manifest }));
      edited.push(e);
      const [d, changes] = await time(async () => diffManifests(second.manifest, third.manifest));
      diffs.push(d);
      if (changes.length !== 10) throw new Error(`expected 10 changes, got ${changes.length}`);
      cache = third.manifest;
    }

    // What start_task does outside git: the walk, then the manifest gzipped and written atomically beside the ledger.
    const snapshotter = new Snapshotter({ workspace: root, manifestDir: path.join(dir, 'ledger', 'data.db.snapshots') });
    const whole: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      fs.appendFileSync(path.join(root, files[run]!), `// whole ${run}\n`);
      const [t, taken] = await time(() => snapshotter.take(`whole${run}`));
      if (taken.snapshot.type !== 'checksum') throw new Error(`expected a checksum snapshot, got ${taken.snapshot.type}`);
      whole.push(t);
    }
    const manifestBytes = fs.statSync(path.join(dir, 'ledger', 'data.db.snapshots', `whole${RUNS - 1}.json.gz`)).size;

    // The same tree in git: what start_task does there (temporary index from the real one, write-tree, ref).
    const env = gitTestEnv();
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root, env });
    execFileSync('git', ['add', '-A'], { cwd: root, env });
    execFileSync('git', ['commit', '-q', '-m', 'tree'], { cwd: root, env });
    const repo = (await findRepository(root))!;
    const gitTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      fs.appendFileSync(path.join(root, files[run]!), `// git edit ${run}\n`);
      const [g] = await time(() => snapshotWorkingTree(repo, `bench${run}`));
      gitTimes.push(g);
    }

    const lines = [
      `Workflow snapshots on a generated tree of ${FILES.toLocaleString('en-US')} files (${(bytes / 1e6).toFixed(1)} MB; 2,000 more ignored by .gitignore or the default excludes), ${RUNS} runs each.`,
      `Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg()[0]!.toFixed(1)}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Files were in the OS page cache.`,
      '',
      '| snapshot | median (min, max) |',
      '|---|---|',
      `| checksum, first (every file read and MD5-hashed) | ${stats(cold)} |`,
      `| checksum, with the previous manifest as cache, nothing changed (stat only; ${hashedWarm} files modified under 2 s before the cache was taken were read again) | ${stats(warm)} |`,
      `| checksum, cache, 10 files edited (complete_task's usual case) | ${stats(edited)} |`,
      `| diff of two manifests (10 changes) | ${stats(diffs)} |`,
      `| start_task outside git, whole (walk with cache, manifest gzipped to ${(manifestBytes / 1024).toFixed(0)} KB and written atomically beside the ledger) | ${stats(whole)} |`,
      `| git: working tree snapshot (temporary index from the real one, add -A, write-tree, update-ref), 1 file edited | ${stats(gitTimes)} |`,
      '',
      `Manifest of ${cache?.files.size.toLocaleString('en-US')} files. bench/workflowSnapshots.ts measures; it asserts nothing.`,
    ];
    const table = lines.join('\n') + '\n';
    process.stdout.write(table);
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, 'results', 'workflow-snapshots.md'), `# Workflow snapshots\n\n${table}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
