// The numbers the PostgreSQL memory index (memoryIndex.ts) has read past without an entry: writes
// that took a number and had not committed yet (or were rolled back). A search reads them again
// (holeList) and add() takes one that committed since; anything else below the largest number held
// is refused, and numbers too far below it are let go (the index is then built again instead).

import * as assert from 'node:assert/strict';
import { MemoryIndex, type IndexRow } from '../../../../src/core/storage/postgres/memoryIndex';

const row = (n: number, project = 'p'): IndexRow => ({ n: String(n), project_id: project, created_at: '2026-11-27T00:00:00.000Z', search: "'quokka':1B", lost: false });
const holesOf = (index: MemoryIndex): number[] => JSON.parse(index.holeList().replace('{', '[').replace('}', ']')) as number[];

describe('the holes of the PostgreSQL memory index', () => {
  it('keeps the numbers skipped over, takes an entry committed under one of them, and refuses any other number below the largest', () => {
    const index = new MemoryIndex();
    for (const n of [1, 2, 3]) index.add(row(n));
    assert.deepEqual(holesOf(index), []);
    index.add(row(7, 'q'));
    assert.deepEqual(holesOf(index), [4, 5, 6]);
    index.add(row(5));
    assert.deepEqual(holesOf(index), [4, 6]);
    assert.equal(index.maxN, 7, 'the largest number stays');
    assert.deepEqual([index.size, index.held.get('p'), index.held.get('q')], [5, 4, 1]);
    assert.throws(() => index.add(row(5)), /neither after 7 nor a hole/, 'held already');
    assert.throws(() => index.add(row(2)), /neither after 7 nor a hole/);
    index.add(row(8));
    assert.deepEqual(holesOf(index), [4, 6]);
    assert.equal(index.holeList(), '{4,6}');
  });

  it('lets go of numbers 256 below the largest, and keeps at most 64', () => {
    const index = new MemoryIndex();
    index.add(row(1));
    index.add(row(10));
    index.add(row(200));
    // 2..9 and 11..199 skipped: the 64 highest are kept.
    assert.deepEqual(
      holesOf(index),
      Array.from({ length: 64 }, (_, i) => 136 + i),
    );
    index.add(row(380));
    // 201..379 skipped too: the newest 64 numbers skipped are kept, those of before let go.
    assert.deepEqual(
      holesOf(index),
      Array.from({ length: 64 }, (_, i) => 316 + i),
    );
    index.add(row(700));
    assert.deepEqual(
      holesOf(index),
      Array.from({ length: 64 }, (_, i) => 636 + i),
    );
    index.add(row(701));
    index.add(row(1000));
    assert.ok(holesOf(index).every((n) => n > 1000 - 256));
    assert.throws(() => index.add(row(636)), /neither after 1000 nor a hole/, 'let go of');
    // A build that starts high (entries before it archived) keeps only the numbers just below its first.
    const high = new MemoryIndex();
    high.add(row(50_000));
    assert.deepEqual(
      holesOf(high),
      Array.from({ length: 64 }, (_, i) => 49_936 + i),
    );
    for (let n = 50_001; n <= 50_256; n++) high.add(row(n));
    assert.deepEqual(holesOf(high), [], 'gone once 256 numbers above them are held');
  });
});
