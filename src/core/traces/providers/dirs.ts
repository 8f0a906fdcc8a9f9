// Directory listing for discovery: a missing or unreadable folder is simply empty.

import * as fs from 'node:fs';
import { readRegularFile } from '../../regularFile';

/** Side files (workspace.json, projects.json, .project_root) are small; larger ones are not read. */
const MAX_SIDE_FILE_BYTES = 16 << 20;

export async function listDir(dir: string): Promise<fs.Dirent[]> {
  try {
    return await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

export async function readText(file: string): Promise<string | undefined> {
  try {
    return (await readRegularFile(file, { maxBytes: MAX_SIDE_FILE_BYTES, what: 'The file' })).toString('utf8');
  } catch {
    return undefined;
  }
}

export function isDir(d: fs.Dirent): boolean {
  return d.isDirectory();
}

export function isFile(d: fs.Dirent): boolean {
  return d.isFile();
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
