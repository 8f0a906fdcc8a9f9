// Prints the README's tool table, rendered from the toolset descriptors (src/mcp/toolsTable.ts);
// `--write` replaces the block in README.md. Run with tsx, as the bench does:
//   node --import tsx scripts/toolsTable.mjs --write

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { toolsTable, withToolsTable } = await import('../src/mcp/toolsTable.ts');

const table = toolsTable();
if (process.argv.includes('--write')) {
  const file = path.join(root, 'README.md');
  const next = withToolsTable(readFileSync(file, 'utf8'), table);
  if (next === undefined) throw new Error('README.md lacks the tools markers');
  writeFileSync(file, next);
} else {
  process.stdout.write(table + '\n');
}
