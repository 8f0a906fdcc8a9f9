// The terms of ts_rank the PostgreSQL memory index (memoryIndex.ts) keeps for frequent words:
// by place in a word's list, or by entry for a word in half the entries or more (read directly
// for an OR's hits), within a budget of bytes. Whatever the budget (none, room for the lists as
// built but not for their growth, room for everything), every search gives the same page, to the
// score, as an index that keeps no terms and computes each from the positions.

import * as assert from 'node:assert/strict';
import { MemoryIndex, type IndexRow } from '../../../../src/core/storage/postgres/memoryIndex';

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
/** How often each word is drawn for a title word and a content word. */
const WEIGHTS = [0.45, 0.25, 0.12, 0.1, 0.08];

/** Entry `n`: a title of 1-4 words (A), a content of 5-30 (B), as `search::text` prints them. */
function entry(n: number, next: () => number): IndexRow {
  const positions = new Map<string, string[]>();
  const word = (): string => {
    let u = next();
    for (let i = 0; i < WORDS.length; i++) {
      if (u < WEIGHTS[i]!) return WORDS[i]!;
      u -= WEIGHTS[i]!;
    }
    return WORDS[0]!;
  };
  const title = 1 + Math.floor(next() * 4);
  const length = title + 5 + Math.floor(next() * 26);
  for (let p = 1; p <= length; p++) {
    const w = word();
    positions.set(w, [...(positions.get(w) ?? []), `${p}${p <= title ? 'A' : 'B'}`]);
  }
  const search = [...positions.keys()]
    .sort()
    .map((w) => `'${w}':${positions.get(w)!.join(',')}`)
    .join(' ');
  return { n: String(n), project_id: n % 3 === 0 ? 'q' : 'p', created_at: `2026-11-${String(1 + (n % 27)).padStart(2, '0')}T10:00:00.000Z`, search, lost: false };
}

const QUERIES = [
  "'alpha'",
  "'beta'",
  "'alpha' | 'beta'",
  "'alpha' | 'gamma' | 'omega'",
  "'alpha' & 'beta'",
  "'alpha' & !'delta'",
  "'alpha':A <-> 'beta':A | 'alpha':B <-> 'beta':B",
  "'beta':A <-> 'alpha':A | 'beta':B <-> 'alpha':B",
  "'gamma':A <-> 'alpha':A | 'gamma':B <-> 'alpha':B",
  "'al':*",
];
const SCOPES = [{ projectId: undefined }, { projectId: 'p' }, { projectId: 'q', from: '2026-11-05T00:00:00.000Z', to: '2026-11-20T23:59:59.999Z' }];

function answers(index: MemoryIndex): unknown[] {
  const out: unknown[] = [];
  for (const q of QUERIES)
    for (const scope of SCOPES)
      for (const [k, offset] of [
        [1000, 0],
        [30, 0],
        [30, 25],
      ] as const)
        out.push(index.search(q, scope, k, offset, 20));
  return out;
}

describe('the ranking terms kept by the PostgreSQL memory index', () => {
  it('give the same pages as terms computed from the positions, whatever the budget, as the lists grow', () => {
    const build = (budget: number): MemoryIndex => {
      const next = random(7);
      const index = new MemoryIndex({ termsBudget: budget });
      for (let n = 1; n <= 400; n++) index.add(entry(n, next));
      index.preparePairs();
      index.warm(30);
      return index;
    };
    // The lists of alpha (in most entries) and beta as built, kept by entry, with little room to spare.
    const reference = build(0);
    const tight = build(4 * 16 * 450 + 1000);
    const ample = build(64 << 20);
    for (const index of [reference, tight, ample]) answers(index);
    const first = answers(reference);
    assert.ok(first.every((a) => a !== undefined) && first.some((a) => (a as { total: number }).total > 100), 'every search answered, some with many hits');
    assert.deepEqual(answers(tight), first, 'the lists as built');
    assert.deepEqual(answers(ample), first, 'room for everything');
    // 300 more entries: the kept terms cover the first entries only, and the tight budget cannot grow them.
    for (const index of [reference, tight, ample]) {
      const next = random(11);
      for (let n = 401; n <= 700; n++) index.add(entry(n, next));
    }
    const grown = answers(reference);
    assert.notDeepEqual(grown, first);
    assert.deepEqual(answers(tight), grown, 'the lists grown past their room');
    assert.deepEqual(answers(ample), grown, 'room for everything, grown');
  });
});
