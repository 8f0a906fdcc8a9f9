// What the .vsix ships of dist/ (.vscodeignore): the bundles, the libraries bundled apart
// (vendor-*.js) and sql.js's WASM, copied into a folder for a test that runs a bundle with no
// node_modules anywhere above it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './stdioServer';

/** Copies the shipped files of dist/ into `to` (which must exist); returns `to`. */
export function copyShippedDist(to: string): string {
  for (const file of fs.readdirSync(path.join(ROOT, 'dist')).filter((f) => /\.(js|wasm)$/.test(f))) fs.copyFileSync(path.join(ROOT, 'dist', file), path.join(to, file));
  return to;
}
