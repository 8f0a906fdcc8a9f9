// Reads a transcript's complete lines from a byte offset, in chunks, without ever opening the file
// for writing. A last line without its newline is not consumed: a writer may still be appending it
// (or was killed mid-line); it is read again, whole, once its newline arrives.

import { openRegular } from '../regularFile';

const CHUNK = 1 << 20;
/** A transcript that is one JSON document is read whole; larger than this, it is not read. */
const MAX_WHOLE_BYTES = 256 << 20;

export interface LineRead {
  /** The offset after the last complete line read: where the next read starts. */
  consumedTo: number;
  /** Bytes after consumedTo that form no complete line yet. */
  pendingBytes: number;
  /** Bytes read from disk. */
  bytesRead: number;
}

/**
 * Calls onLine for every complete line in [start, end) (end defaults to the file's size now).
 * onLine may return false to stop early; consumedTo then points after the line that stopped it.
 */
export async function readLines(file: string, start: number, end: number | undefined, onLine: (text: string, offset: number) => boolean | void): Promise<LineRead> {
  const handle = await openRegular(file, 'The transcript');
  try {
    const size = end ?? (await handle.stat()).size;
    let position = start;
    let carry: Buffer = Buffer.alloc(0);
    let carryStart = start;
    let consumedTo = start;
    let bytesRead = 0;
    const buffer = Buffer.allocUnsafe(CHUNK);
    while (position < size) {
      const want = Math.min(CHUNK, size - position);
      const { bytesRead: n } = await handle.read(buffer, 0, want, position);
      if (n === 0) break;
      bytesRead += n;
      position += n;
      const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
      let lineStart = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, lineStart);
        if (nl < 0) break;
        let lineEnd = nl;
        if (lineEnd > lineStart && data[lineEnd - 1] === 0x0d) lineEnd--;
        let from = lineStart;
        // A byte order mark at the very start of the file.
        if (carryStart + from === 0 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) from = 3;
        const text = data.toString('utf8', from, lineEnd);
        const offset = carryStart + lineStart;
        lineStart = nl + 1;
        consumedTo = carryStart + lineStart;
        if (onLine(text, offset) === false) {
          return { consumedTo, pendingBytes: size - consumedTo, bytesRead };
        }
      }
      carry = Buffer.from(data.subarray(lineStart));
      carryStart += lineStart;
    }
    return { consumedTo, pendingBytes: size - consumedTo, bytesRead };
  } finally {
    await handle.close();
  }
}

/** The whole file as text (for formats that are one JSON document), read-only. */
export async function readWhole(file: string, end?: number): Promise<{ text: string; bytesRead: number }> {
  const handle = await openRegular(file, 'The transcript');
  try {
    const size = end ?? (await handle.stat()).size;
    if (size > MAX_WHOLE_BYTES) throw new Error(`${file} is larger than ${MAX_WHOLE_BYTES} bytes`);
    const buffer = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const { bytesRead } = await handle.read(buffer, got, size - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    let text = buffer.toString('utf8', 0, got);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { text, bytesRead: got };
  } finally {
    await handle.close();
  }
}

/** JSON.parse that returns undefined instead of throwing. */
export function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An ISO timestamp from an ISO string or epoch milliseconds; undefined for anything else. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  if (typeof value === 'string' && value.length >= 10) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : new Date(t).toISOString();
  }
  return undefined;
}
