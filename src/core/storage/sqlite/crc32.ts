// CRC-32 (IEEE) for journal records; zlib.crc32 where the runtime has it, a table otherwise.

import type * as Zlib from 'node:zlib';

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

export function crc32Portable(data: Uint8Array): number {
  const t = crcTable();
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

let native: ((data: Uint8Array) => number) | null | undefined;

export function crc32(data: Uint8Array): number {
  // node:zlib loads on the first record: what only reads JOURNAL_MAGIC (a client of the ledger host) does not load it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in, loaded on first use
  native ??= (require('node:zlib') as typeof Zlib & { crc32?: (data: Uint8Array) => number }).crc32 ?? null;
  return native ? native(data) >>> 0 : crc32Portable(data);
}
