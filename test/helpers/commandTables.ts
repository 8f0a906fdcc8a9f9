// The check that ties commands together: every id in CommandIds is contributed in package.json and
// listed by its name in exactly one feature's command table (src/extension/<feature>/feature.ts,
// `COMMANDS: CommandTable<...> = { name, ... }`), and nothing else calls registerCommand. Pure, so a
// test can run it on a table with an extra name.

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface CommandSources {
  /** CommandIds: name → id. */
  ids: Record<string, string>;
  /** The command ids package.json contributes. */
  contributed: string[];
  /** Every source file of src/extension, by path relative to it. */
  files: Map<string, string>;
}

export function extensionSources(root: string): Map<string, string> {
  const dir = path.join(root, 'src', 'extension');
  const files = new Map<string, string>();
  for (const d of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (d.isFile() && d.name.endsWith('.ts'))
      files.set(path.relative(dir, path.join(d.parentPath, d.name)).split(path.sep).join('/'), fs.readFileSync(path.join(d.parentPath, d.name), 'utf8'));
  }
  return files;
}

/** What is wrong, one line each; empty when the manifest, the ids and the tables agree. */
export function commandProblems({ ids, contributed, files }: CommandSources): string[] {
  const problems: string[] = [];
  const idValues = Object.values(ids);
  for (const id of idValues) if (!contributed.includes(id)) problems.push(`${id} is not contributed in package.json`);
  for (const id of contributed) if (!idValues.includes(id)) problems.push(`${id} is contributed but not in CommandIds`);
  const tables = [...files].filter(([file]) => /^[A-Za-z]+\/feature\.ts$/.test(file));
  const listed = tables.flatMap(([file, text]) => {
    const table = /export const COMMANDS: CommandTable<\w+> = \{([^}]*)\};/.exec(text)?.[1] ?? '';
    return table
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
      .map((name) => ({ name, file }));
  });
  for (const [name] of Object.entries(ids)) {
    const tablesOf = listed.filter((l) => l.name === name).map((l) => l.file);
    if (tablesOf.length !== 1) problems.push(`CommandIds.${name} is in ${tablesOf.length} command tables${tablesOf.length ? ` (${tablesOf.join(', ')})` : ''}`);
  }
  const registering = [...files].filter(([, text]) => /registerCommand\(/.test(text)).map(([file]) => file);
  if (registering.join() !== 'feature.ts') problems.push(`registerCommand is called outside feature.ts: ${registering.join(', ')}`);
  return problems;
}
