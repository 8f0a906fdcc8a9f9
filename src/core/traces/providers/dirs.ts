// Directory listing for discovery: a missing or unreadable folder is simply empty.

import * as fs from 'node:fs';

export async function listDir(dir: string): Promise<fs.Dirent[]> {
  try {
    return await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

export async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
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
