// Entries whose vector may have lost positions (a word 256 times or more, or past the 16,383rd
// word), or whose title positions do not come first: the PostgreSQL memory index (memoryIndex.ts)
// leaves a phrase to SQL when such an entry in the search's scope holds all its words. It seeks
// those few entries in the phrase's lists, or, when there are more than a bound, walks the
// entries holding the phrase's words; both ways must refuse the same searches, including a phrase
// of two frequent words read from their pairs.

import * as assert from 'node:assert/strict';
import { MemoryIndex, type IndexRow } from '../../../../src/core/storage/postgres/memoryIndex';

const row = (n: number, project: string, search: string, lost = false): IndexRow => ({
  n: String(n),
  project_id: project,
  created_at: `2026-11-${String(1 + (n % 28)).padStart(2, '0')}T00:00:00.000Z`,
  search,
  lost,
});

/** 300 entries of p with "alpha beta" in the content, every third with "gamma" after; entry 150 of q lost positions, entry 160 of q lost them with only "alpha". */
function build(oddSought: number): MemoryIndex {
  const index = new MemoryIndex({ oddSought });
  for (let n = 1; n <= 300; n++) {
    if (n === 150) index.add(row(n, 'q', "'alpha':1B 'beta':2B 'delta':3B", true));
    else if (n === 160) index.add(row(n, 'q', "'alpha':1B 'delta':3B", true));
    else index.add(row(n, 'p', n % 3 === 0 ? "'alpha':1B 'beta':2B 'gamma':3B 'title':1A" : "'alpha':2B 'beta':3B 'word':1A"));
  }
  index.preparePairs();
  return index;
}

describe('phrases over entries that may have lost positions, in the PostgreSQL memory index', () => {
  for (const [label, bound] of [
    ['each sought in the lists', 4096],
    ['the lists walked (more than the bound)', 0],
  ] as const) {
    it(`refuses a phrase an odd entry in scope holds, and answers the others (${label})`, () => {
      const index = build(bound);
      const all = { projectId: undefined };
      // Both frequent: read from their pairs, refused all the same.
      assert.ok(index.frequentCount >= 2, 'alpha and beta are frequent');
      assert.equal(index.search("'alpha':B <-> 'beta':B", all, 1000, 0, 20), undefined, 'the pairs of two frequent words');
      assert.equal(index.search("'alpha' <-> 'beta'", all, 1000, 0, 20), undefined, 'a phrase without weights');
      assert.equal(index.search("'alpha':A <-> 'beta':A | 'alpha':B <-> 'beta':B", all, 1000, 0, 20), undefined, 'the form the store writes');
      assert.equal(index.search("'alpha' <-> 'delta'", all, 1000, 0, 20), undefined, 'held by both odd entries');
      // Out of scope, or not holding every word of the phrase: answered.
      const inP = index.search("'alpha':B <-> 'beta':B", { projectId: 'p' }, 1000, 0, 20);
      assert.equal(inP?.total, 298, 'the odd entries are in another project');
      const gamma = index.search("'beta' <-> 'gamma'", all, 1000, 0, 20);
      assert.equal(gamma?.total, 99, 'no odd entry holds gamma (every third entry, 150 aside)');
      const dated = index.search("'alpha' <-> 'beta'", { projectId: undefined, from: '2026-11-01T00:00:00.000Z', to: '2026-11-01T23:59:59.999Z' }, 1000, 0, 20);
      assert.ok(dated && dated.total > 0 && dated.rows.every((r) => r.n % 28 === 0), 'entry 150 (the 11th) is outside the dates');
      assert.equal(index.search("'alpha' & 'beta'", all, 1000, 0, 20)?.total, 299, 'no phrase: the odd entry is matched by its lexemes');
    });
  }
});
