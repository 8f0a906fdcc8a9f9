import * as assert from 'node:assert/strict';
import { decodeHeader, encodeHeader, encodeRecord, HEADER_SIZE, parseRecordAt } from '../../../../src/core/storage/sqlite/journal';
import { crc32, crc32Portable } from '../../../../src/core/storage/sqlite/crc32';

describe('journal format', () => {
  it('round-trips a header and refuses a damaged one', () => {
    const head = encodeHeader({ generation: 7, baseSeq: 12345 });
    assert.equal(head.length, HEADER_SIZE);
    assert.deepEqual(decodeHeader(head), { generation: 7, baseSeq: 12345 });
    const bad = Buffer.from(head);
    bad[9] = bad[9]! ^ 0xff;
    assert.match(decodeHeader(bad) as string, /checksum/);
    assert.match(decodeHeader(Buffer.from('not a journal at all, really no')) as string, /shorter|magic/);
  });

  it('round-trips records with text, numbers, nulls and blobs', () => {
    const rec = encodeRecord({ seq: 3, time: 99, ops: [['INSERT INTO t VALUES (?, ?, ?, ?)', ['é😀<b>', 1.5, null, new Uint8Array([0, 1, 255])]]], changes: 2, maintenance: true });
    const step = parseRecordAt(rec, 0);
    assert.equal(step.kind, 'record');
    if (step.kind !== 'record') return;
    assert.equal(step.size, rec.length);
    assert.equal(step.record.seq, 3);
    assert.equal(step.record.changes, 2);
    assert.equal(step.record.maintenance, true);
    const [sql, params] = step.record.ops[0]!;
    assert.equal(sql, 'INSERT INTO t VALUES (?, ?, ?, ?)');
    assert.deepEqual(params.slice(0, 3), ['é😀<b>', 1.5, null]);
    assert.deepEqual([...(params[3] as Uint8Array)], [0, 1, 255]);
  });

  it('tells an incomplete tail from a damaged record', () => {
    const rec = encodeRecord({ seq: 1, time: 1, ops: [['SELECT 1', []]], changes: 1, maintenance: false });
    assert.equal(parseRecordAt(rec.subarray(0, rec.length - 1), 0).kind, 'incomplete');
    assert.equal(parseRecordAt(rec.subarray(0, 4), 0).kind, 'incomplete');
    const flipped = Buffer.from(rec);
    flipped[rec.length - 2] = flipped[rec.length - 2]! ^ 0x01;
    assert.equal(parseRecordAt(flipped, 0).kind, 'bad');
    assert.equal(parseRecordAt(Buffer.alloc(16), 0).kind, 'bad');
  });

  it('computes the same CRC-32 natively and portably', () => {
    const data = Buffer.from('The quick brown fox jumps over the lazy dog');
    assert.equal(crc32(data), 0x414fa339);
    assert.equal(crc32Portable(data), 0x414fa339);
  });
});
