// Libraries that only some processes use (openai for summaries by an endpoint, pg for PostgreSQL,
// sql.js for the direct engine) ship as bundles of their own beside ours (dist/vendor-<name>.js,
// esbuild.mjs): V8 keeps every script it loads in memory for the life of the process, so a server
// or CLI that never calls them does not hold their 0.7 MB of source. From source (tests), or where
// the file is not beside the bundle (the integration tests' bundle), the package itself.

import * as fs from 'node:fs';
import * as path from 'node:path';

export const VENDORED = ['openai', 'pg', 'sql.js'] as const;
export type Vendored = (typeof VENDORED)[number];

/** The file name of a vendored library's bundle: vendor-openai.js, vendor-pg.js, vendor-sqljs.js. */
export function vendorFile(name: Vendored): string {
  return `vendor-${name.replace(/[^a-z]/g, '')}.js`;
}

/** Loads a vendored library: its bundle beside this one, else the package. */
export function loadVendored<T>(name: Vendored): T {
  const beside = path.join(__dirname, vendorFile(name));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, outside the bundle
  if (!__filename.endsWith('.ts') && fs.existsSync(beside)) return require(beside) as T;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the package, from source or node_modules
    return require(name) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(`${vendorFile(name)} was not found beside ${__dirname} (it holds ${name}); reinstall Agent Progress`);
  }
}
