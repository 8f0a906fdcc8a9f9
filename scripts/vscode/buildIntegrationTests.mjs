#!/usr/bin/env node
// Bundles the integration tests (TypeScript, test/integration/**/*.test.ts) and their in-host
// entry (test/integration/index.ts) to CommonJS in out/integration/, one file per test, for the
// VS Code extension host to require. `vscode` (given by the host) and `mocha` (loaded from
// node_modules, so that the tests share index.js's instance) stay external.
//   node scripts/vscode/buildIntegrationTests.mjs [--src=test/integration] [--out=out/integration] [--index=FILE]
// --index is the in-host entry (default: index.ts in --src); bench/extension.mjs bundles its own
// measurements from bench/vscode with test/integration/index.ts.

import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE_ALIASES } from '../bundleAliases.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const srcDir = path.resolve(root, arg('src', 'test/integration'));
const outDir = path.resolve(root, arg('out', 'out/integration'));

function find(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return find(full);
    return /\.test\.(ts|mts|js)$/.test(e.name) ? [full] : [];
  });
}

const started = Date.now();
const index = path.resolve(root, arg('index', path.join(srcDir, 'index.ts')));
if (!fs.existsSync(index)) throw new Error(`no in-host entry: ${index}`);
const tests = find(srcDir).sort();
// Start clean: a deleted test must not keep running from an old bundle.
fs.rmSync(outDir, { recursive: true, force: true });
await esbuild.build({
  // index.js at the top of outDir, each test at its path under srcDir: the entry finds them there.
  entryPoints: [{ in: index, out: 'index' }, ...tests.map((t) => ({ in: t, out: path.relative(srcDir, t).replace(/\.(ts|mts|js)$/, '') }))],
  outdir: outDir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'inline',
  external: ['vscode', 'mocha'],
  alias: BUNDLE_ALIASES,
  logLevel: 'warning',
});
console.error(`integration tests: bundled ${tests.length} test file(s) and index.js into ${path.relative(root, outDir) || outDir} in ${Date.now() - started} ms`);
