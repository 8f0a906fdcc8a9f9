// Generated source trees for checksum-snapshot tests and benchmarks: many small files in nested
// folders, plus folders that a .gitignore (or the default excludes) leaves out.

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GeneratedTree {
  /** The files that count (relative paths), .gitignore excluded. */
  files: string[];
}

export function generateTree(root: string, options: { files: number; ignoredFiles: number; bytes?: number }): GeneratedTree {
  const files: string[] = [];
  const perDir = 50;
  const size = options.bytes ?? 600;
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n*.tmp\n');
  for (let i = 0; i < options.files; i++) {
    const d = Math.floor(i / perDir);
    const rel = `src/m${d % 20}/d${d}/file${i}.ts`;
    const full = path.join(root, rel);
    if (i % perDir === 0) fs.mkdirSync(path.dirname(full), { recursive: true });
    const line = `export const value${i} = ${i}; // abcdefghijklmnopqrstuvwxyz\n`;
    fs.writeFileSync(full, line.repeat(Math.max(1, Math.round(size / line.length))));
    files.push(rel);
  }
  for (let i = 0; i < options.ignoredFiles; i++) {
    const dir = i % 2 === 0 ? `build/chunk${i % 10}` : `node_modules/pkg${i % 10}`;
    if (i < 20) fs.mkdirSync(path.join(root, dir), { recursive: true });
    fs.writeFileSync(path.join(root, dir, `f${i}.js`), `ignored ${i}\n`);
  }
  fs.mkdirSync(path.join(root, 'moved'), { recursive: true });
  return { files };
}
