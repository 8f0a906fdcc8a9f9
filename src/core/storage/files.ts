// File-system helpers for the ledger: private directories (0700) and files (0600), atomic
// replacement (temp file, fsync, rename, fsync of the directory). Synchronous on purpose:
// callers hold the ledger lock and must not yield while they do.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Creates the directory and its missing parents with mode 0700; existing ones are left alone. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
}

/**
 * The identity of a folder (device and inode, `dev:ino`), or undefined when there is none at
 * `dir`: a folder removed and made again at the same path has another identity.
 */
export function folderIdentity(dir: string): string | undefined {
  try {
    const st = fs.statSync(dir, { bigint: true });
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; its rename is durable without this.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function tempPathFor(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export function writeAllSync(fd: number, data: Uint8Array, position: number): void {
  let done = 0;
  while (done < data.length) {
    done += fs.writeSync(fd, data, done, data.length - done, position + done);
  }
}

/** Writes `data` to `file` so that a crash leaves either the old or the new content, never a mix. */
export function writeFileAtomicSync(file: string, data: Uint8Array): void {
  const tmp = tempPathFor(file);
  const fd = fs.openSync(tmp, 'wx', FILE_MODE);
  try {
    writeAllSync(fd, data, 0);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  renameWithRetrySync(tmp, file);
  fsyncDir(path.dirname(file));
}

/** Windows refuses a rename while another process briefly has the target open; retry a little. */
export function renameWithRetrySync(from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'EPERM' || code === 'EBUSY' || code === 'EACCES') && attempt < 20 && process.platform === 'win32') {
        const until = Date.now() + 10 * (attempt + 1);
        while (Date.now() < until) {
          // brief synchronous back-off; the caller holds the ledger lock
        }
        continue;
      }
      throw err;
    }
  }
}

export function timestampForFileName(date = new Date()): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}
