// The write journal's on-disk format: a 32-byte header, then records of
// [payload length u32][crc32 u32][UTF-8 JSON payload]. Pure encoding and parsing; no file I/O.

import { crc32 } from './crc32';

export const JOURNAL_MAGIC = 0x4a4c5041; // "APLJ" little-endian
export const JOURNAL_FORMAT = 1;
export const HEADER_SIZE = 32;
export const RECORD_HEAD = 8;
/** A record larger than this is taken as corruption, not as data. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export type SqlValue = string | number | null | Uint8Array;
export type EncodedValue = string | number | null | { b: string };
/** One statement of a transaction: SQL text and its bound parameters. */
export type Op = [sql: string, params: SqlValue[]];

export interface JournalHeader {
  generation: number;
  baseSeq: number;
}

export interface JournalRecord {
  seq: number;
  time: number;
  ops: Op[];
  /** Data changes so far, this record included; maintenance records (indexing) do not count. */
  changes: number;
  /** Upkeep that changes no data (index batches): views need not refresh for it. */
  maintenance: boolean;
}

export function encodeHeader(header: JournalHeader): Buffer {
  const buf = Buffer.alloc(HEADER_SIZE);
  buf.writeUInt32LE(JOURNAL_MAGIC, 0);
  buf.writeUInt32LE(JOURNAL_FORMAT, 4);
  buf.writeBigUInt64LE(BigInt(header.generation), 8);
  buf.writeBigUInt64LE(BigInt(header.baseSeq), 16);
  buf.writeUInt32LE(crc32(buf.subarray(0, 24)), 24);
  return buf;
}

/** Parses a header, or says why it is not one. */
export function decodeHeader(buf: Buffer): JournalHeader | string {
  if (buf.length < HEADER_SIZE) return 'the journal header is shorter than 32 bytes';
  if (buf.readUInt32LE(0) !== JOURNAL_MAGIC) return 'the journal does not start with the Agent Progress magic number';
  const format = buf.readUInt32LE(4);
  if (format !== JOURNAL_FORMAT) return `the journal has format ${format}; this build reads format ${JOURNAL_FORMAT}`;
  if (buf.readUInt32LE(24) !== crc32(buf.subarray(0, 24))) return 'the journal header checksum does not match';
  return { generation: Number(buf.readBigUInt64LE(8)), baseSeq: Number(buf.readBigUInt64LE(16)) };
}

function encodeValue(v: SqlValue): EncodedValue {
  if (v instanceof Uint8Array) return { b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  return v;
}

function decodeValue(v: EncodedValue): SqlValue {
  if (v !== null && typeof v === 'object') return new Uint8Array(Buffer.from(v.b, 'base64'));
  return v;
}

export function encodeRecord(record: JournalRecord): Buffer {
  const payload = Buffer.from(
    JSON.stringify({
      s: record.seq,
      t: record.time,
      c: record.changes,
      ...(record.maintenance ? { m: 1 } : {}),
      o: record.ops.map(([sql, params]) => [sql, params.map(encodeValue)]),
    }),
    'utf8',
  );
  const out = Buffer.allocUnsafe(RECORD_HEAD + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  payload.copy(out, RECORD_HEAD);
  return out;
}

export type ParseStep = { kind: 'record'; record: JournalRecord; size: number } | { kind: 'incomplete'; needed: number } | { kind: 'bad'; reason: string };

/** Parses the record starting at `buf[at]`. `incomplete` means more bytes are needed. */
export function parseRecordAt(buf: Buffer, at: number): ParseStep {
  if (buf.length - at < RECORD_HEAD) return { kind: 'incomplete', needed: RECORD_HEAD };
  const len = buf.readUInt32LE(at);
  if (len === 0 || len > MAX_RECORD_BYTES) return { kind: 'bad', reason: `record length ${len} is out of range` };
  if (buf.length - at < RECORD_HEAD + len) return { kind: 'incomplete', needed: RECORD_HEAD + len };
  const payload = buf.subarray(at + RECORD_HEAD, at + RECORD_HEAD + len);
  if (crc32(payload) !== buf.readUInt32LE(at + 4)) return { kind: 'bad', reason: 'record checksum does not match' };
  let raw: { s?: unknown; t?: unknown; o?: unknown; c?: unknown; m?: unknown };
  try {
    raw = JSON.parse(payload.toString('utf8')) as typeof raw;
  } catch {
    return { kind: 'bad', reason: 'record payload is not JSON' };
  }
  if (typeof raw.s !== 'number' || typeof raw.t !== 'number' || typeof raw.c !== 'number' || !Array.isArray(raw.o)) {
    return { kind: 'bad', reason: 'record payload lacks seq, time, changes or ops' };
  }
  const ops = (raw.o as [string, EncodedValue[]][]).map(([sql, params]): Op => [sql, params.map(decodeValue)]);
  return { kind: 'record', record: { seq: raw.s, time: raw.t, ops, changes: raw.c, maintenance: raw.m === 1 }, size: RECORD_HEAD + len };
}
