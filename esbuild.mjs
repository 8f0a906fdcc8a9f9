// One build for every runtime: the MCP server and the CLI (plain Node, no node_modules needed at
// run time), the extension (Node in VS Code's extension host, `vscode` external) and the webviews
// (browser), with the sql.js WASM file copied beside them. `--watch` rebuilds on change.

import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BUNDLE_ALIASES } from './scripts/bundleAliases.mjs';
import { pureSchemas } from './scripts/pureSchemas.mjs';

// src/core/vendor.ts, kept in step: the libraries bundled apart and their file names.
const VENDORED = ['openai', 'pg', 'sql.js'];
const vendorFile = (name) => `vendor-${name.replace(/[^a-z]/g, '')}.js`;

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const node = {
  bundle: true,
  platform: 'node',
  alias: BUNDLE_ALIASES,
  target: 'node20',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  legalComments: 'linked',
  logLevel: 'warning',
  // The build's time tells builds of one version apart: a client of a newer build replaces an older ledger host.
  define: { AGENT_PROGRESS_VERSION: JSON.stringify(pkg.version), AGENT_PROGRESS_BUILD: JSON.stringify(String(process.env.AGENT_PROGRESS_BUILD_STAMP ?? Date.now())) },
  // sql.js probes for these in browsers only.
  external: [],
};

/**
 * V8 keeps a script's source in memory for as long as the process lives, as one byte a character
 * when the text is all ASCII and as two otherwise: one non-ASCII character left in a comment of a
 * dependency doubles what a server, the host and the CLI hold for their bundle. esbuild escapes
 * strings but keeps comments and regular expression literals as written: comments are made ASCII
 * here (one '?' per UTF-16 unit, so source map columns stay true) and any other non-ASCII text fails
 * the build.
 */
function keepAscii(file) {
  const text = readFileSync(file, 'utf8');
  if (!/[\u0080-\uffff]/.test(text)) return;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!/[\u0080-\uffff]/.test(line)) return;
    if (!/^\s*(\/\/|\/\*|\*)/.test(line)) throw new Error(`${file}:${i + 1} has non-ASCII text outside a comment (write it as \\u escapes): ${line.trim().slice(0, 120)}`);
    lines[i] = line.replace(/[\u0080-\uffff]/g, '?');
  });
  writeFileSync(file, lines.join('\n'));
}

const builds = [
  // dist/server.js and dist/cli.js are launchers that run their bundle with V8's code cache (src/core/codeCache.ts).
  { ...node, entryPoints: { server: 'src/mcp/launch.ts', cli: 'src/cli/launch.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  // The SDK's schemas that nothing in a bundle reads are dropped (scripts/pureSchemas.mjs).
  {
    ...node,
    entryPoints: { 'server-main': 'src/mcp/main.ts', 'cli-main': 'src/cli/main.ts' },
    outdir: 'dist',
    plugins: [pureSchemas(/@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](esm|cjs)[\\/]types\.js$/)],
  },
  { ...node, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist', external: ['vscode'], metafile: true },
  { ...node, entryPoints: { core: 'src/extension/coreBundle.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { ledgerHost: 'src/core/host/main.ts' }, outdir: 'dist' },
  // Libraries only some processes load, each a bundle of its own (src/core/vendor.ts), so that
  // the others neither parse nor hold their source.
  ...VENDORED.map((name) => ({ ...node, entryPoints: { [vendorFile(name).replace(/\.js$/, '')]: require.resolve(name) }, outdir: 'dist' })),
  {
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: production ? false : 'linked',
    minify: production,
    logLevel: 'warning',
    entryPoints: { entry: 'src/webview/entry/main.ts', workflow: 'src/webview/workflow/main.ts', session: 'src/webview/session/main.ts', task: 'src/webview/task/main.ts' },
    outdir: 'dist/webview',
  },
];

// A production build starts from an empty dist/ so that no stale source map is packaged.
if (production) rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join('dist', 'sql-wasm.wasm'));

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
  console.error('esbuild: watching');
} else {
  const started = Date.now();
  const results = await Promise.all(builds.map((options) => esbuild.build(options)));
  // The extension shell must stay light: core, zod, sql.js and openai live in dist/core.js.
  const shell = results.find((r) => r.metafile)?.metafile;
  const heavy = Object.keys(shell?.inputs ?? {}).filter((f) => /node_modules\/(zod|sql\.js|openai|nanoid)\/|src\/core\/(storage|progress|services|traces)/.test(f));
  if (heavy.length > 0) throw new Error(`dist/extension.js pulls in what belongs in dist/core.js: ${heavy.slice(0, 5).join(', ')}`);
  for (const file of [
    'dist/server.js',
    'dist/cli.js',
    'dist/server-main.js',
    'dist/cli-main.js',
    'dist/core.js',
    'dist/ledgerHost.js',
    'dist/extension.js',
    ...VENDORED.map((n) => `dist/${vendorFile(n)}`),
  ])
    keepAscii(file);
  // What is bundled apart must not also be inside the bundles that load it.
  for (const file of ['dist/server-main.js', 'dist/cli-main.js', 'dist/core.js', 'dist/ledgerHost.js']) {
    const inside = VENDORED.filter((name) => readFileSync(file, 'utf8').includes(`// node_modules/${name}/`));
    if (inside.length > 0 && !production) throw new Error(`${file} bundles ${inside.join(', ')}, which load from dist/vendor-*.js (src/core/vendor.ts)`);
  }
  for (const file of ['dist/server.js', 'dist/cli.js']) chmodSync(file, 0o755);
  console.error(`esbuild: built dist/ in ${Date.now() - started} ms`);
}
