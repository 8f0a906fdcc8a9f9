// Files that name their owner process (the host's pid file, the start lock), created exclusively
// and whole: the content goes to a temp file first and is hard-linked into place, so the name
// never exists empty or half written (a reader that met an empty lock used to wait 5 s for it).

import * as fs from 'node:fs';
import { FILE_MODE, tempPathFor } from '../storage/files';

export interface Owner {
  pid: number;
  at: number;
  [key: string]: unknown;
}

/** Creates `file` with `owner` as its content unless it exists. Returns false when it exists. */
export function createOwnerFile(file: string, owner: Owner): boolean {
  const tmp = tempPathFor(file);
  fs.writeFileSync(tmp, JSON.stringify(owner), { mode: FILE_MODE, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV') {
      // A file system without hard links: exclusive create, then write (the window is tiny).
      try {
        fs.writeFileSync(file, JSON.stringify(owner), { mode: FILE_MODE, flag: 'wx' });
        return true;
      } catch (inner) {
        if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw inner;
      }
    }
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

export function readOwnerFile(file: string): Owner | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Owner;
    return typeof value.pid === 'number' && typeof value.at === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

export { processAlive } from '../storage/fileLock';

/** Removes `file` if it still holds what was read as `seen` (a newer owner's file is left alone). */
export function removeIfSame(file: string, seen: Owner | undefined): void {
  const now = readOwnerFile(file);
  const same = seen === undefined ? now === undefined : now !== undefined && now.pid === seen.pid && now.at === seen.at;
  if (same) fs.rmSync(file, { force: true });
}
