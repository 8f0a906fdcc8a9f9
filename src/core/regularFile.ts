// Reading files a person or a workspace names: regular files only (a device such as /dev/zero,
// a FIFO or a socket is refused, also behind a symlink), never more than a hard byte cap, and
// never blocking on open. The one helper for every file core reads whole.

import * as fs from 'node:fs';
import { invalidArgument, type LedgerError } from './errors';

/** What a non-regular file is, in words for a message; undefined for a regular file. */
export function specialKind(st: fs.Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer (POSIX; 0 on Windows).
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * Opens `file` (following symlinks) only when it is a regular file: what it names is checked
 * before the open and again on the descriptor. ENOENT and permission errors pass through.
 */
export function openRegularSync(file: string, what: string, flags: 'r' | 'r+' = 'r'): number {
  const before = fs.statSync(file);
  const kind = specialKind(before);
  if (kind) throw notRegular(file, what, kind);
  const fd = fs.openSync(file, (flags === 'r' ? fs.constants.O_RDONLY : fs.constants.O_RDWR) | NONBLOCK);
  const st = fs.fstatSync(fd);
  const now = specialKind(st);
  if (now) {
    fs.closeSync(fd);
    throw notRegular(file, what, now);
  }
  return fd;
}

export function notRegular(file: string, what: string, kind: string): LedgerError {
  return invalidArgument(`${what} ${file} is ${kind}, not a regular file: it was left untouched. Give the path of a regular file.`, { path: file });
}

/** Reads at most `maxBytes` from the open descriptor; more than that is refused, naming the file. */
function readCapped(fd: number, file: string, what: string, maxBytes: number): Buffer {
  const size = fs.fstatSync(fd).size;
  if (size > maxBytes) throw tooLarge(file, what, maxBytes);
  // Read past the reported size too: the size of some files (in /proc, or growing) says nothing.
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.alloc(Math.min(Math.max(size + 1, 64 << 10), maxBytes + 1));
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, maxBytes + 1 - total), null);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw tooLarge(file, what, maxBytes);
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(file: string, what: string, maxBytes: number): LedgerError {
  return invalidArgument(`${what} ${file} is larger than ${maxBytes} bytes; it was not read.`, { path: file, maxBytes });
}

/** The whole of a regular file of at most `maxBytes`. `what` names it in errors ("The review definition"). */
export function readRegularFileSync(file: string, options: { maxBytes: number; what: string }): Buffer {
  const fd = openRegularSync(file, options.what);
  try {
    return readCapped(fd, file, options.what, options.maxBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** The same as text (UTF-8). */
export function readRegularTextSync(file: string, options: { maxBytes: number; what: string }): string {
  return readRegularFileSync(file, options).toString('utf8');
}

/** Opens a regular file for reading without blocking the event loop; the caller closes the handle. */
export async function openRegular(file: string, what: string): Promise<fs.promises.FileHandle> {
  const kind = specialKind(await fs.promises.stat(file));
  if (kind) throw notRegular(file, what, kind);
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | NONBLOCK);
  const now = specialKind(await handle.stat());
  if (now) {
    await handle.close();
    throw notRegular(file, what, now);
  }
  return handle;
}

/** The asynchronous form, for callers that must not block the event loop on a large file. */
export async function readRegularFile(file: string, options: { maxBytes: number; what: string }): Promise<Buffer> {
  const handle = await openRegular(file, options.what);
  try {
    const st = await handle.stat();
    if (st.size > options.maxBytes) throw tooLarge(file, options.what, options.maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(Math.min(Math.max(st.size + 1, 64 << 10), options.maxBytes + 1));
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, options.maxBytes + 1 - total), null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(file, options.what, options.maxBytes);
      chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
