// Loads bench/harness.ts (the storage engine from source) bundled like dist/: esbuild, node20,
// cjs, into bench/.build/harness.cjs. Shared by bench/run.mjs and bench/extension.mjs.

import { createRequire } from 'node:module';
import path from 'node:path';

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..');

export async function loadHarness() {
  const esbuild = await import('esbuild');
  const outfile = path.join(benchDir, '.build', 'harness.cjs');
  await esbuild.build({
    entryPoints: [path.join(benchDir, 'harness.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    define: { AGENT_PROGRESS_VERSION: JSON.stringify('bench') },
  });
  // The same WASM file the server loads.
  process.env.AGENT_PROGRESS_SQLJS_WASM = path.join(root, 'dist', 'sql-wasm.wasm');
  return createRequire(import.meta.url)(outfile);
}
