// Ranked full-text search checked against a plain reference: a generated corpus with Zipf word
// frequencies, every query kind (terms common to rare, two terms, phrases, prefixes, negation, OR),
// the expected hits and their BM25 order computed here from the texts alone (tokenizing, matching
// and scoring written out plainly, as FTS4's matchinfo defines the numbers), and the ledger's
// answers compared whole: total, top 20 and the next page. The ledger answers from its term index
// (sqlite/termIndex.ts), which follows appended entries; the comparison is repeated after appends
// by another handle, a non-ASCII entry, a deletion and a restore, and against the SQL path that
// ranks every hit (a date filter that excludes nothing sends the query there; the saved hits of
// rankedHits.ts answer what the term index declines). On PostgreSQL
// the matches are compared whole (totals and every hit, through an archive and a restore) and the
// order, ts_rank's and not BM25's, by its top-20 agreement with the reference (README).

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import pg from 'pg';
import { openLedger } from '../../../../src/core/storage/openLedger';
import { PgEngine } from '../../../../src/core/storage/postgres/engine';
import { PgProgressStore, PHRASE_WORDS_KEY } from '../../../../src/core/storage/postgres/progressRepo';
import { PG_SCHEMAS } from '../../../../src/core/storage/postgres/schemas';
import { ENTRY_SEARCH_SQL, fullTextTsQuery, RANK_WEIGHTS, searchWords } from '../../../../src/core/storage/postgres/search';
import { unicode61Tokens } from '../../../../src/core/storage/sqlite/rankedHits';
import { loadSqlJs } from '../../../../src/core/storage/sqlite/sqlJs';
import type { SqliteEngine } from '../../../../src/core/storage/sqlite/engine';
import { parseFullText } from '../../../../src/core/storage/sqlite/search';
import type { TermIndex } from '../../../../src/core/storage/sqlite/termIndex';
import type { Ledger } from '../../../../src/core/storage/store';
import type { EntryPage } from '../../../../src/core/progress/types';
import { usePostgres } from '../../../helpers/postgres';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { BASE, extraDoc, makeCorpus, POSITION_QUERIES, positionDocs, queriesFor, rng, run, tokens, vocabulary, type Doc } from '../../../helpers/searchCorpus';

// ---- the reference: FTS4's unicode61 tokens, its query semantics and matchinfo-based BM25 ----

interface RefPhrase {
  words: string[];
  prefix: boolean;
}

/** The query syntax the tools accept: words ANDed, "phrases", prefix*, -exclude, OR (loosest). */
function parseQuery(text: string): { groups: RefPhrase[][]; negatives: RefPhrase[] } {
  const groups: RefPhrase[][] = [[]];
  const negatives: RefPhrase[] = [];
  for (const m of text.matchAll(/(-?)"([^"]*)"|(\S+)/g)) {
    if (m[3] === 'OR') {
      if (groups[groups.length - 1]!.length > 0) groups.push([]);
      continue;
    }
    const raw = m[2] ?? m[3]!;
    const negate = m[2] !== undefined ? m[1] === '-' : raw.startsWith('-');
    const phrase = { words: tokens(raw), prefix: m[2] === undefined && raw.endsWith('*') };
    if (phrase.words.length === 0) continue;
    (negate ? negatives : groups[groups.length - 1]!).push(phrase);
  }
  if (groups[groups.length - 1]!.length === 0) groups.pop();
  return { groups, negatives };
}

function occurrences(column: string[], p: RefPhrase): number {
  let n = 0;
  for (let i = 0; i + p.words.length <= column.length; i++) {
    if (p.words.every((w, k) => (p.prefix && k === p.words.length - 1 ? column[i + k]!.startsWith(w) : column[i + k] === w))) n++;
  }
  return n;
}

function reference(docs: readonly Doc[], text: string, offset: number, limit: number): { total: number; ids: string[] } {
  const q = parseQuery(text);
  const phrases = q.groups.flat();
  const columns = docs.map((d) => [tokens(d.title), tokens(d.content)]);
  const n = docs.length;
  const weights = [2, 1];
  const avg = [0, 1].map((j) => Math.floor((columns.reduce((s, c) => s + c[j]!.length, 0) + Math.floor(n / 2)) / n));
  const tf = columns.map((cols) => phrases.map((p) => cols.map((c) => occurrences(c, p))));
  const withHit = phrases.map((_, i) => [0, 1].map((j) => tf.filter((t) => t[i]![j]! > 0).length));
  const hits: { doc: Doc; score: number }[] = [];
  docs.forEach((doc, d) => {
    const has = (i: number): boolean => tf[d]![i]!.some((x) => x > 0);
    let at = 0;
    const groupsOk = q.groups.map((g) => g.map(() => has(at++)).every(Boolean)).some(Boolean);
    const excluded = q.negatives.some((p) => columns[d]!.some((c) => occurrences(c, p) > 0));
    if (!groupsOk || excluded) return;
    let score = 0;
    for (let i = 0; i < phrases.length; i++) {
      for (let j = 0; j < 2; j++) {
        const f = tf[d]![i]![j]!;
        if (f === 0) continue;
        const idf = Math.max(1e-6, Math.log((n - withHit[i]![j]! + 0.5) / (withHit[i]![j]! + 0.5) + 1));
        score += weights[j]! * idf * ((f * (1.2 + 1)) / (f + 1.2 * (1 - 0.75 + (0.75 * columns[d]![j]!.length) / (avg[j]! || 1))));
      }
    }
    hits.push({ doc, score });
  });
  hits.sort((a, b) => b.score - a.score || (a.doc.createdAt < b.doc.createdAt ? 1 : a.doc.createdAt > b.doc.createdAt ? -1 : b.doc.seq - a.doc.seq));
  return { total: hits.length, ids: hits.slice(offset, offset + limit).map((h) => h.doc.id) };
}

// ---- the comparison ----

type TermStats = TermIndex['stats'];

/**
 * Writes `docs` to a ledger in order, numbering them from `first` (`seq`: the reference's order of
 * ties), each in the project `projectOf` names ('p' unless given). Returns the next number.
 */
async function writeDocs(l: Ledger, docs: readonly Doc[], first = 0, projectOf: (i: number) => string = () => 'p'): Promise<number> {
  let seq = first;
  for (const [i, d] of docs.entries()) {
    d.seq = seq++;
    await l.progress.insertEntry({ id: d.id, projectId: projectOf(i), title: d.title, content: d.content, createdAt: d.createdAt, tags: [], agentId: null });
  }
  return seq;
}

describe('ranked search against a plain reference', function () {
  this.timeout(240_000);
  useTempDirs();
  const opened: Ledger[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });
  const open = async (file: string): Promise<Ledger> => {
    const l = await openLedger({ file, checkpoint: false });
    opened.push(l);
    return l;
  };
  // The term index answers every query (words, phrases, any script); the saved hits only what it declines.
  const termStats = (l: Ledger): TermStats => ({ ...(l.progress as unknown as { terms: TermIndex }).terms.stats });

  async function compareAll(l: Ledger, docs: readonly Doc[], queries: readonly string[], label: string): Promise<number> {
    let agreed = 0;
    for (const text of queries) {
      for (const [offset, limit] of [
        [0, 20],
        [20, 20],
      ] as const) {
        const want = reference(docs, text, offset, limit);
        const got: EntryPage = await l.progress.searchEntries({ projectId: undefined, text, limit, offset });
        assert.equal(got.total, want.total, `${label}: total of ${text}`);
        assert.deepEqual(
          got.entries.map((e) => e.id),
          want.ids,
          `${label}: ${text} at ${offset}`,
        );
        // The SQL path ranks every hit with FTS4 itself; the term index must give the same page,
        // snippets included.
        const sql = await l.progress.searchEntries({ projectId: undefined, text, limit, offset, startDate: '1970-01-01' });
        assert.deepEqual(got, sql, `${label}: ${text} at ${offset} through SQL`);
        agreed++;
      }
    }
    return agreed;
  }

  it('gives the top 20 and the total of full BM25 for every query kind, through appends, a deletion and a restore', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const a = await open(file);
    const words = vocabulary(rng(3), 500);
    const docs = makeCorpus(1200, 1, words);
    docs.push({ id: 'accent-1', title: 'Café crème', content: 'The café served crème brûlée and naïve tests.', createdAt: new Date(BASE).toISOString(), seq: 0 });
    let seq = await writeDocs(a, docs);
    const queries = queriesFor(words, docs);
    const n = queries.length * 2;
    assert.equal(await compareAll(a, docs, queries, 'first'), n);
    const empty = queries.filter((q) => reference(docs, q, 0, 1).total === 0).length;
    assert.equal(empty, 1);
    assert.deepEqual(termStats(a), { builds: 1, followed: 0, answered: 2 * queries.length, declined: 0, phrasesExtended: 0 });

    // Answered again: nothing rebuilt.
    assert.equal(await compareAll(a, docs, queries, 'again'), n);
    assert.equal(termStats(a).builds, 1);

    // Entries appended by another handle on the same ledger: followed, not rebuilt.
    const b = await open(file);
    const more = makeCorpus(60, 2, words);
    seq = await writeDocs(b, more, seq);
    docs.push(...more);
    await b.progress.flushIndex();
    assert.equal(await compareAll(a, docs, queries, 'appended'), n);
    // A query with non-ASCII words is tokenized by unicode61 itself: the term index's too.
    assert.equal(queries.filter((q) => /[^a-z0-9 "*()-]/i.test(q)).length, 1);
    assert.equal(termStats(a).declined, 0);
    // The term index read the segments FTS4 wrote since.
    assert.equal(termStats(a).builds, 1);
    assert.ok(termStats(a).followed > 0);

    // A non-ASCII entry.
    const accent = {
      id: 'accent-2',
      title: 'Naïve café test',
      content: 'Über caching of the queue, café style.',
      createdAt: new Date(BASE + 5 * 60_000).toISOString(),
      seq: seq++,
    };
    docs.push(accent);
    await b.progress.insertEntry({ ...accent, projectId: 'p', tags: [], agentId: null });
    assert.equal(await compareAll(a, docs, queries, 'non-ASCII'), n);
    // The term index holds FTS4's own tokens, whatever the script: followed, not rebuilt.
    assert.equal(termStats(a).builds, 1);

    // A deletion (retention) rebuilds the term index.
    const before = new Date(BASE + 60 * 60_000).toISOString();
    const removed = await b.transfer.archiveEntriesBefore({ before }, new Date(BASE + 10 ** 9).toISOString());
    assert.ok(removed > 100, `archived ${removed}`);
    const kept = docs.filter((d) => d.createdAt >= before);
    assert.equal(await compareAll(a, kept, queries, 'archived'), n);
    assert.equal(termStats(a).builds, 2, 'a deletion rebuilds the term index');

    // Restored entries come back with new rowids (the end of the insertion order).
    await b.transfer.restoreArchived();
    const restored = docs.filter((d) => d.createdAt < before);
    const back = [...kept, ...restored.map((d) => ({ ...d, seq: seq++ }))];
    assert.equal(await compareAll(a, back, queries, 'restored'), n);
    assert.equal(termStats(a).declined, 0);
    assert.ok(termStats(a).answered > 0);
  });

  it('builds the term index in steps, answering a search made during the build from the fallback before the build ends', async () => {
    const l = await open(path.join(tempDir(), 'data.db'));
    const words = vocabulary(rng(21), 300);
    const docs = makeCorpus(400, 23, words);
    await writeDocs(l, docs);
    await l.progress.flushIndex();
    const terms = (l.progress as unknown as { terms: TermIndex }).terms;
    // One step of work per slice, so that the build pauses after each batch of blocks.
    terms.sliceMs = 0;
    const text = `"${tokens(docs[3]!.content).slice(1, 3).join(' ')}" ${words[2]!}`;
    let during: Promise<{ page: EntryPage; building: boolean; answered: number }> | undefined;
    let slices = 0;
    terms.progress = (n) => {
      slices = n;
      during ??= l.progress.searchEntries({ projectId: undefined, text, limit: 20 }).then((page) => ({ page, building: terms.building, answered: terms.stats.answered }));
    };
    await l.progress.prepareSearch();
    assert.ok(slices >= 3, `slices: ${slices}`);
    assert.ok(during, 'the build paused');
    const got = await during;
    // Answered while the build was under way, by the saved hits, as the reference ranks it.
    assert.equal(got.building, true);
    assert.equal(got.answered, 0);
    const want = reference(docs, text, 0, 20);
    assert.equal(got.page.total, want.total);
    assert.ok(want.total > 0);
    assert.deepEqual(
      got.page.entries.map((e) => e.id),
      want.ids,
    );
    assert.ok(termStats(l).declined >= 1);
    // Built: the same answer from the index.
    assert.equal(terms.building, false);
    assert.deepEqual(await l.progress.searchEntries({ projectId: undefined, text, limit: 20 }), got.page);
    assert.deepEqual(termStats(l), { builds: 1, followed: 0, answered: 1, declined: termStats(l).declined, phrasesExtended: 0 });
  });

  it('starts the stepped build over when another handle deletes entries under it, then answers from the index it built after', async () => {
    const file = path.join(tempDir(), 'data.db');
    const l = await open(file);
    const words = vocabulary(rng(31), 500);
    const docs = makeCorpus(500, 33, words);
    await writeDocs(l, docs);
    await l.progress.flushIndex();
    const other = await open(file);
    const terms = (l.progress as unknown as { terms: TermIndex }).terms;
    terms.sliceMs = 0;
    const before = docs.map((d) => d.createdAt).sort()[250]!;
    let archived: number | undefined;
    let pauses = 0;
    // At the build's first pause, another handle (a direct client beside the host) archives half.
    terms.progress = async () => {
      pauses++;
      archived ??= await other.transfer.archiveEntriesBefore({ before }, new Date(BASE + 10 ** 9).toISOString());
    };
    await l.progress.prepareSearch();
    assert.ok(pauses >= 3, `pauses: ${pauses}`);
    assert.ok(archived !== undefined && archived > 200, `archived ${archived}`);
    assert.equal(terms.building, false);
    assert.equal(termStats(l).builds, 2, 'the build started over after the deletion');
    const kept = docs.filter((d) => d.createdAt >= before);
    const queries = queriesFor(words, kept);
    assert.equal(await compareAll(l, kept, queries, 'after the restart'), queries.length * 2);
    // Every query answered by the index built in steps: no other build, none left to the saved hits.
    assert.equal(termStats(l).builds, 2);
    assert.equal(termStats(l).declined, 0);
    assert.equal(termStats(l).answered, queries.length * 2);
  });

  it('follows entries written after a build without copying the index into new buffers', async () => {
    const l = await open(path.join(tempDir(), 'data.db'));
    const words = vocabulary(rng(41), 300);
    const docs = makeCorpus(300, 43, words);
    await writeDocs(l, docs);
    const text = words[1]!;
    assert.deepEqual(
      (await l.progress.searchEntries({ projectId: undefined, text, limit: 20 })).entries.map((e) => e.id),
      reference(docs, text, 0, 20).ids,
    );
    const terms = (l.progress as unknown as { terms: { state: Record<string, { data: ArrayLike<number> }> } }).terms;
    const arrays = ['bytes', 'pos', 'runStart', 'runEnd', 'runNext', 'runPos', 'runLast', 'runSkip', 'skipDoc', 'skipAt', 'skipPos'];
    const built = new Map(arrays.map((name) => [name, terms.state[name]!.data]));
    for (let k = 0; k < 3; k++) {
      const late = {
        id: `late-${k}`,
        title: `${text} ${words[k + 2]!}`,
        content: `${text} ${words[0]!} ${text}`,
        createdAt: new Date(BASE + 10 ** 8 + k).toISOString(),
        seq: docs.length,
      };
      docs.push(late);
      await l.progress.insertEntry({ ...late, projectId: 'p', tags: [], agentId: null });
      const got = await l.progress.searchEntries({ projectId: undefined, text, limit: 20 });
      assert.equal(got.total, reference(docs, text, 0, 20).total);
      assert.deepEqual(
        got.entries.map((e) => e.id),
        reference(docs, text, 0, 20).ids,
      );
    }
    assert.deepEqual([termStats(l).builds, termStats(l).followed], [1, 3]);
    // The same buffers: a build keeps room for what follows it.
    for (const name of arrays) assert.equal(terms.state[name]!.data, built.get(name), `${name} was copied`);
  });

  /**
   * The phrase tests' ledger, empty: its file, a handle, a vocabulary of 400 words (seed
   * `wordSeed`), the reference's documents, hand-written entries `<prefix>-<k>`, and `append`,
   * which writes documents through a handle in order, adds them to the reference's and, for
   * another handle, flushes its index. Returns the next sequence number.
   */
  async function phraseLedger(prefix: string, wordSeed: number) {
    const file = path.join(tempDir(), 'data.db');
    const l = await open(file);
    const words = vocabulary(rng(wordSeed), 400);
    const docs: Doc[] = [];
    const extra = (k: number, title: string, content: string): Doc => extraDoc(prefix, k, title, content);
    let seq = 0;
    const append = async (handle: Ledger, more: Doc[]): Promise<number> => {
      seq = await writeDocs(handle, more, seq);
      docs.push(...more);
      if (handle !== l) await handle.progress.flushIndex();
      return seq;
    };
    return { file, l, words, docs, extra, append };
  }

  it('answers phrases of two frequent words from their pair postings as full BM25 does, in the title or the content, through appends', async () => {
    const { file, l, words, docs, extra, append } = await phraseLedger('pair', 5);
    const [w0, w1, w2, w3] = [words[0]!, words[1]!, words[2]!, words[3]!];
    // The pairs in the title only, in the content only, across the two columns (no phrase), repeated.
    await append(l, [
      ...makeCorpus(500, 9, words),
      extra(0, `Cache ${w0} ${w1} queue`, 'fix tests'),
      extra(1, 'Cache queue', `tests ${w0} ${w1} ${w0} ${w1} ${w1} ${w0}`),
      extra(2, `Queue ${w0}`, `${w1} cache`),
    ]);
    const queries = [
      `"${w0} ${w1}"`,
      `"${w1} ${w0}"`,
      `"${w0} ${w0}"`,
      `"${w2} ${w3}"`,
      `"${w3} ${w2}"`,
      `"${w0} ${w1.slice(0, 2)}*"`,
      `"${w0} ${w1} ${w2}"`,
      `"${w0} ${w1}" cache`,
      `${w2} -"${w0} ${w1}"`,
      `"${w2} ${w0}" OR queue`,
    ];
    const n = queries.length * 2;
    assert.equal(await compareAll(l, docs, queries, 'first'), n);
    const pairs = (l.progress as unknown as { terms: { state: { pairs?: { terms: number[]; lists: unknown[] } } } }).terms.state.pairs;
    assert.ok(pairs && pairs.terms.length > 4 && pairs.lists.filter(Boolean).length > 4, 'the frequent words pairs are kept');

    // Entries appended by another handle, with the pairs in each column: followed, not rebuilt.
    const b = await open(file);
    const seq = await append(b, [...makeCorpus(40, 10, words), extra(3, `${w1} ${w0} ${w1}`, 'cache'), extra(4, 'queue', `${w2} ${w3} ${w2} ${w3}`)]);
    assert.equal(await compareAll(l, docs, queries, 'appended'), n);
    assert.deepEqual([termStats(l).builds, termStats(l).declined], [1, 0]);
    assert.ok(termStats(l).followed > 0);
    assert.ok(seq > docs.length - 1);
  });

  it('adds to a phrase its counts in the entries appended since it was searched, instead of counting it over every entry again, as full BM25 does', async () => {
    const { file, l, words, docs, extra, append } = await phraseLedger('ext', 11);
    // Words past the sixteen most frequent (no pair postings), and the most frequent with one of them.
    const [a, b, c, d] = [words[20]!, words[21]!, words[30]!, words[0]!];
    await append(l, [...makeCorpus(400, 9, words), extra(0, `Cache ${a} ${b} queue`, 'fix tests'), extra(1, 'Cache queue', `tests ${a} ${b} ${c} ${a} ${b}`)]);
    const queries = [
      `"${a} ${b}"`,
      `"${b} ${a}"`,
      `"${a} ${b} ${c}"`,
      `"${d} ${a}"`,
      `"${a} ${b.slice(0, 2)}*"`,
      `"${a} ${b}" cache`,
      `${c} -"${a} ${b}"`,
      `"${c} ${a}" OR queue`,
      `"${a} zzzunseen"`,
    ];
    const n = queries.length * 2;
    assert.equal(await compareAll(l, docs, queries, 'first'), n);
    const before = termStats(l).phrasesExtended;
    // Two rounds of entries appended by another handle, the phrases in either column or not at all.
    const other = await open(file);
    for (let round = 0; round < 2; round++) {
      await append(other, [
        ...makeCorpus(30, 20 + round, words),
        extra(10 + round, `${a} ${b} ${a} ${b}`, `${d} ${a} ${b} ${c}`),
        extra(20 + round, 'queue', `${c} ${a} then ${b} ${a}`),
      ]);
      assert.equal(await compareAll(l, docs, queries, `appended, round ${round}`), n);
    }
    assert.ok(termStats(l).phrasesExtended - before >= 2, `phrases extended ${termStats(l).phrasesExtended - before} times`);
    // One phrase searched, one entry appended, the phrase searched again: its counts extended, once.
    const phrase = [`"${a} ${b}"`];
    assert.equal(await compareAll(l, docs, phrase, 'one phrase'), 2);
    const seq = await append(other, [extra(30, `${b} ${a} ${b}`, `${a} ${b}`)]);
    const extended = termStats(l).phrasesExtended;
    assert.equal(await compareAll(l, docs, phrase, 'one phrase, appended'), 2);
    assert.equal(termStats(l).phrasesExtended, extended + 1);
    assert.equal(termStats(l).builds, 1, 'followed, never rebuilt');
    assert.ok(seq > docs.length - 1);
  });

  it('ranks within a project that holds part of the ledger the same way', async () => {
    const dir = tempDir();
    const l = await open(path.join(dir, 'data.db'));
    const words = vocabulary(rng(5), 300);
    const docs = makeCorpus(300, 7, words);
    let seq = await writeDocs(l, docs, 0, (i) => (i % 3 === 0 ? 'other' : 'p'));
    // BM25's numbers are the whole index's; the project filter only chooses among the hits.
    for (const text of [words[0]!, words[2]!, `${words[1]!} -${words[0]!}`]) {
      const all = reference(docs, text, 0, docs.length);
      const inP = new Set(docs.filter((_, i) => i % 3 !== 0).map((d) => d.id));
      const want = all.ids.filter((id) => inP.has(id));
      for (const offset of [0, 20]) {
        const got = await l.progress.searchEntries({ projectId: 'p', text, limit: 20, offset });
        assert.equal(got.total, want.length);
        assert.deepEqual(
          got.entries.map((e) => e.id),
          want.slice(offset, offset + 20),
        );
        assert.deepEqual(got, await l.progress.searchEntries({ projectId: 'p', text, limit: 20, offset, startDate: '1970-01-01' }), `${text} through SQL`);
      }
      // The other project, from the same index.
      const inOther = all.ids.filter((id) => !inP.has(id));
      assert.deepEqual(
        (await l.progress.searchEntries({ projectId: 'other', text, limit: 20 })).entries.map((e) => e.id),
        inOther.slice(0, 20),
      );
    }
    assert.equal(termStats(l).builds, 1, 'one build for every query, whichever project');
    assert.equal(termStats(l).declined, 0);
    // An entry appended to one project is followed, in that project only.
    const late = { id: 'late', title: `${words[0]!} ${words[0]!} ${words[0]!}`, content: words[0]!, createdAt: new Date(BASE + 10 ** 8).toISOString(), seq: seq++ };
    docs.push(late);
    await l.progress.insertEntry({ ...late, projectId: 'other', tags: [], agentId: null });
    const top = await l.progress.searchEntries({ projectId: 'other', text: words[0]!, limit: 1 });
    assert.equal(top.entries[0]?.id, reference(docs, words[0]!, 0, 1).ids[0]);
    assert.equal(top.entries[0]?.id, 'late');
    assert.ok(!(await l.progress.searchEntries({ projectId: 'p', text: words[0]!, limit: 50 })).entries.some((e) => e.id === 'late'));
    assert.deepEqual([termStats(l).builds, termStats(l).declined], [1, 0]);
  });
  it('finds a phrase in an entry holding one of its words more often than any entry before, from the term index as FTS4 does', async () => {
    const l = await open(path.join(tempDir(), 'data.db'));
    const docs = [...makeCorpus(150, 1, vocabulary(rng(3), 500)), ...positionDocs()];
    await writeDocs(l, docs);
    // The term index reads a word's positions in an entry into a buffer that grows for the entry
    // with the most so far: a phrase's other words must be matched against the grown one.
    assert.equal(await compareAll(l, docs, POSITION_QUERIES, 'positions'), POSITION_QUERIES.length * 2);
    assert.equal(termStats(l).declined, 0);
  });

  it('answers words, prefixes as typed, phrases, AND, OR and negation from the term index as full BM25 and the SQL plan do, through appends, a deletion and a restore', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const a = await open(file);
    const words = vocabulary(rng(11), 400);
    const docs = makeCorpus(900, 13, words);
    let seq = 0;
    const insert = async (l: Ledger, d: Doc): Promise<void> => {
      d.seq = seq++;
      if (!docs.includes(d)) docs.push(d);
      await l.progress.insertEntry({ id: d.id, projectId: 'p', title: d.title, content: d.content, createdAt: d.createdAt, tags: [], agentId: null });
    };
    // A phrase split between the title and the content (FTS4 keeps positions per column: no hit),
    // the same words side by side in a title and in a content, a word repeated.
    docs.push(
      { id: 'cross-1', title: `Ends with ${words[2]!} crossa`, content: `crossb ${words[0]!} starts here`, createdAt: new Date(BASE + 3 * 60_000).toISOString(), seq: 0 },
      { id: 'cross-2', title: 'crossb crossa here', content: `${words[0]!} crossa crossb crossa crossa crossa`, createdAt: new Date(BASE + 4 * 60_000).toISOString(), seq: 0 },
      // Words outside ASCII: accents unicode61 removes, Cyrillic and Greek it lower-cases, Han.
      {
        id: 'script-1',
        title: 'Привет мир, Crème brûlée',
        content: `Über ${words[1]!} café-crème naïve ПРИВЕТ 東京 ΑΘΗΝΑ`,
        createdAt: new Date(BASE + 5 * 60_000).toISOString(),
        seq: 0,
      },
      { id: 'script-2', title: 'Cafe creme', content: `привет ${words[0]!} cafés athens Αθηνα 東京 tokyo naive`, createdAt: new Date(BASE + 6 * 60_000).toISOString(), seq: 0 },
    );
    for (const d of [...docs]) await insert(a, d);
    assert.deepEqual(reference(docs, '"crossa crossb"', 0, 20).ids, ['cross-2'], 'the reference keeps phrases within a column');
    const pair = tokens(docs[5]!.content).slice(2, 4);
    const titled = tokens(docs[9]!.title).slice(1, 3);
    const triple = tokens(docs[11]!.content).slice(0, 3);
    // Phrases with the most common word (a posting in nearly every entry, so a skip entry every
    // 128 entries of each of its runs) in entries at and beside those blocks' boundaries: the
    // word and the one after it, the one before it too, and two words of a title.
    const skipping = [127, 128, 129, 256, 257, 385, 641, 899].flatMap((k) => {
      const t = tokens(docs[k]!.content);
      const at = t.indexOf(words[0]!, 1);
      return at > 0 && at + 1 < t.length ? [`"${t[at]!} ${t[at + 1]!}"`, `"${t[at - 1]!} ${t[at]!} ${t[at + 1]!}"`] : [];
    });
    assert.ok(skipping.length >= 12, `phrases near skip boundaries: ${skipping.length}`);
    const titledLate = tokens(docs[385]!.title).slice(0, 2);
    // What the palette sends while a word is typed (the last word a prefix from its third letter),
    // and the other forms of words only.
    const typed = (before: string, word: string): string[] => Array.from({ length: word.length }, (_, k) => `${before}${word.slice(0, k + 1)}${k + 1 >= 3 ? '*' : ''}`);
    const queries = [
      ...typed('', words[2]!),
      ...typed('', words[45]!),
      ...typed(`${words[30]!} `, words[7]!),
      words[0]!,
      `${words[1]!} ${words[50]!} ${words[3]!}`,
      `${words[60]!} OR ${words[200]!}`,
      `${words[4]!} ${words[5]!.slice(0, 3)}* OR ${words[90]!}`,
      `${words[1]!} -${words[6]!}`,
      `${words[2]!.slice(0, 2)}* -${words[0]!}`,
      `${words[8]!} ${words[8]!}`,
      'naive',
      'cafe*',
      'zzzznothing*',
      // Phrases: of content words, of title words, of three, with the most common word (in every
      // entry), a common word twice (overlapping occurrences counted), a prefix as the last word
      // (a-b* is the phrase "a b*"), across the title/content boundary, negated, in OR groups.
      `"${pair.join(' ')}"`,
      `"${titled.join(' ')}"`,
      `"${triple.join(' ')}"`,
      `"${words[0]!} ${words[40]!}"`,
      `"${words[1]!} ${words[0]!}"`,
      `"${words[0]!} ${words[0]!}"`,
      `"${words[0]!} ${words[1]!}"`,
      `"${words[2]!} ${words[0]!} ${words[1]!}"`,
      `"${titledLate.join(' ')}"`,
      ...skipping,
      `${pair[0]!}-${pair[1]!.slice(0, 2)}*`,
      `${words[0]!}-${words[1]!.slice(0, 1)}*`,
      '"crossa crossb"',
      '"crossb crossa"',
      `"${words[2]!} crossa crossb"`,
      `${words[1]!} -"${pair.join(' ')}"`,
      `"${titled.join(' ')}" OR "${triple.join(' ')}" ${words[3]!}`,
      `"${pair.join(' ')} zzzznothing"`,
      // Words outside ASCII, as unicode61 folds them (the index holds its tokens; the query's too).
      'café',
      'CAFÉ*',
      'Crème',
      '"crème brûlée"',
      'café-crème',
      'naïve -über',
      'привет',
      'ПРИВ*',
      '東京',
      '"東京 tokyo"',
      'ΑΘΗΝΑ OR athens',
      `über ${words[1]!}`,
    ];
    const sql = await loadSqlJs();
    const engine = (l: Ledger): SqliteEngine => (l.progress as unknown as { engine: SqliteEngine }).engine;
    const index = (l: Ledger): TermIndex => (l.progress as unknown as { terms: TermIndex }).terms;
    async function compare(l: Ledger, label: string): Promise<void> {
      for (const text of queries) {
        for (const offset of [0, 20]) {
          const want = reference(docs, text, offset, 20);
          const got = await l.progress.searchEntries({ projectId: undefined, text, limit: 20, offset });
          assert.equal(got.total, want.total, `${label}: total of ${text}`);
          assert.deepEqual(
            got.entries.map((e) => e.id),
            want.ids,
            `${label}: ${text} at ${offset}`,
          );
          assert.deepEqual(got, await l.progress.searchEntries({ projectId: undefined, text, limit: 20, offset, startDate: '1970-01-01' }), `${label}: ${text} through SQL`);
          // Answered by the term index itself, not left to the saved hits.
          const query = parseFullText(text)!;
          const fromTerms = engine(l).read((tx) => index(l).page(tx, query, offset, 20, undefined, (t) => unicode61Tokens(sql, t)));
          assert.ok(fromTerms, `${label}: ${text} answered by the term index`);
        }
      }
    }
    await compare(a, 'first');
    // The runs of the most common word are long enough to have skip entries, which phrases pass.
    const skips = (l: Ledger): number => (index(l) as unknown as { state: { skipDoc: { length: number } } }).state.skipDoc.length;
    assert.ok(skips(a) >= 10, `skip entries: ${skips(a)}`);
    assert.equal(termStats(a).builds, 1);
    assert.equal(termStats(a).declined, 0, 'no query left to the saved hits');

    // Entries appended by another handle, one with accents: FTS4's segments written since are read.
    const b = await open(file);
    const more = makeCorpus(40, 17, words);
    more.push({ id: 'accent-3', title: 'Naïve café', content: `Crème ${words[2]!} brûlée, ${words[45]!} naïve.`, createdAt: new Date(BASE + 7 * 60_000).toISOString(), seq: 0 });
    for (const d of more) await insert(b, d);
    await b.progress.flushIndex();
    await compare(a, 'appended');
    assert.deepEqual([termStats(a).builds, termStats(a).declined], [1, 0]);
    assert.ok(termStats(a).followed >= 1);

    // A deletion rebuilds it; restored entries (new rowids) are appended again.
    const before = new Date(BASE + 90 * 60_000).toISOString();
    const removed = await b.transfer.archiveEntriesBefore({ before }, new Date(BASE + 10 ** 9).toISOString());
    assert.ok(removed > 100, `archived ${removed}`);
    const kept = docs.filter((d) => d.createdAt >= before);
    const gone = docs.filter((d) => d.createdAt < before);
    docs.length = 0;
    docs.push(...kept);
    await compare(a, 'archived');
    assert.equal(termStats(a).builds, 2);
    await b.transfer.restoreArchived();
    for (const d of gone) docs.push({ ...d, seq: seq++ });
    await compare(a, 'restored');
    assert.equal(termStats(a).declined, 0);
  });
});

describe('ranked search against a plain reference on PostgreSQL', function () {
  this.timeout(240_000);
  useTempDirs();
  const server = usePostgres();
  const opened: Ledger[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });

  /** Every hit of each query, as the reference finds them, and the top-20 overlap with BM25's top 20. */
  async function compareMatches(l: Ledger, docs: readonly Doc[], queries: readonly string[], label: string): Promise<number[]> {
    const agreement: number[] = [];
    for (const text of queries) {
      const want = reference(docs, text, 0, docs.length);
      const all = await l.progress.searchEntries({ projectId: undefined, text, limit: Math.max(1, want.total), offset: 0 });
      assert.equal(all.total, want.total, `${label}: total of ${text}`);
      assert.deepEqual(all.entries.map((e) => e.id).sort(), [...want.ids].sort(), `${label}: the hits of ${text}`);
      // Pages are slices of one order.
      const first = await l.progress.searchEntries({ projectId: undefined, text, limit: 20, offset: 0 });
      const second = await l.progress.searchEntries({ projectId: undefined, text, limit: 20, offset: 20 });
      assert.deepEqual(
        [...first.entries, ...second.entries].map((e) => e.id),
        all.entries.slice(0, 40).map((e) => e.id),
        `${label}: pages of ${text}`,
      );
      if (want.total === 0) continue;
      const top = new Set(first.entries.map((e) => e.id));
      const best = want.ids.slice(0, 20);
      agreement.push(best.filter((id) => top.has(id)).length / best.length);
    }
    return agreement;
  }

  /** A PostgreSQL ledger holding the 1,200-entry bench-like corpus and then `extra`, in that order. */
  async function corpusLedger(extra: Doc[] = []): Promise<{ url: string; l: Ledger; words: string[]; docs: Doc[] }> {
    const url = await server().createDatabase();
    const l = await openLedger({ file: '/unused', databaseUrl: url });
    opened.push(l);
    const words = vocabulary(rng(3), 500);
    const docs = [...makeCorpus(1200, 1, words), ...extra];
    await writeDocs(l, docs);
    return { url, l, words, docs };
  }

  it("finds exactly the reference's hits for every query kind, through an archive and a restore, and reports its top-20 agreement with BM25", async () => {
    const { l, words, docs } = await corpusLedger([
      { id: 'accent-1', title: 'Café crème', content: 'The café served crème brûlée and naïve tests.', createdAt: new Date(BASE).toISOString(), seq: 0 },
    ]);
    const queries = queriesFor(words, docs);
    const agreement = await compareMatches(l, docs, queries, 'first');
    assert.equal(agreement.length, queries.length - 1);
    const mean = agreement.reduce((a, b) => a + b, 0) / agreement.length;
    console.log(`      top-20 agreement of ts_rank with BM25: mean ${mean.toFixed(3)}, per query ${agreement.map((a) => a.toFixed(2)).join(' ')}`);
    // Phrases whose hits are few enough to all be in the top 20, and the rare term, agree whole.
    assert.ok(agreement.filter((a) => a === 1).length >= 4, agreement.join(' '));
    assert.ok(mean >= 0.5, `mean top-20 agreement ${mean}`);

    const before = new Date(BASE + 60 * 60_000).toISOString();
    const removed = await l.transfer.archiveEntriesBefore({ before }, new Date(BASE + 10 ** 9).toISOString());
    assert.ok(removed > 100, `archived ${removed}`);
    await compareMatches(
      l,
      docs.filter((d) => d.createdAt >= before),
      queries,
      'archived',
    );
    await l.transfer.restoreArchived();
    await compareMatches(l, docs, queries, 'restored');
  });

  it('ranks the best hits by the title first and ts_rank next: exactly ts_rank up to the candidate count, and its top-20 agreement beyond', async () => {
    const { url, l, words, docs } = await corpusLedger();
    // The same store with 100 candidates, so that most queries of this corpus go past them.
    const candidates = 100;
    const store = new PgProgressStore((l.progress as unknown as { engine: PgEngine }).engine, candidates);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const agreement: number[] = [];
    try {
      for (const text of queriesFor(words, docs)) {
        const tsquery = fullTextTsQuery(text);
        if (!tsquery) continue;
        // ts_rank over every hit, as the store ranked before the two stages.
        const full = (
          await client.query<{ id: string }>(
            "SELECT id FROM log_entries WHERE search @@ to_tsquery('simple', $2) ORDER BY ts_rank($1, search, to_tsquery('simple', $2), 1) DESC, created_at DESC, n DESC",
            [RANK_WEIGHTS, tsquery],
          )
        ).rows.map((r) => r.id);
        if (full.length === 0) continue;
        const all = await store.searchEntries({ projectId: undefined, text, limit: full.length });
        assert.equal(all.total, full.length, text);
        assert.deepEqual(all.entries.map((e) => e.id).sort(), [...full].sort(), `the hits of ${text}`);
        const first = await store.searchEntries({ projectId: undefined, text, limit: 20 });
        const second = await store.searchEntries({ projectId: undefined, text, limit: 20, offset: 20 });
        assert.deepEqual(
          [...first.entries, ...second.entries].map((e) => e.id),
          all.entries.slice(0, 40).map((e) => e.id),
          `pages of ${text}`,
        );
        const top = first.entries.map((e) => e.id);
        if (full.length <= candidates) assert.deepEqual(top, full.slice(0, 20), `${text}: ${full.length} hits are all ranked`);
        else agreement.push(full.slice(0, 20).filter((id) => top.includes(id)).length / 20);
      }
    } finally {
      await client.end();
    }
    const mean = agreement.reduce((a, b) => a + b, 0) / agreement.length;
    console.log(
      `      top-20 agreement with ts_rank over every hit, past ${candidates} candidates: mean ${mean.toFixed(3)}, per query ${agreement.map((a) => a.toFixed(2)).join(' ')}`,
    );
    assert.ok(agreement.length >= 8, `queries past the candidates: ${agreement.length}`);
    assert.ok(mean >= 0.6, `mean top-20 agreement ${mean}`);
  });

  it('finds phrases after 256 of a word or past the 16,383rd word, as the embedded engine does, in totals and pages', async () => {
    const { url, l, docs } = await corpusLedger(positionDocs());
    await (l.progress as PgProgressStore).phraseWordsPass;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Phrase words are kept for those entries only (the split one and the early phrase have 256 pings or more too).
      const kept = (await client.query<{ id: string }>('SELECT id FROM log_entries WHERE phrase_words IS NOT NULL ORDER BY id')).rows.map((r) => r.id);
      assert.deepEqual(kept, ['pos-0', 'pos-1', 'pos-2', 'pos-3', 'pos-4', 'pos-5', 'pos-6']);
    } finally {
      await client.end();
    }
    assert.ok(reference(docs, '"ping pong"', 0, 10).total >= 3, 'the reference finds them');
    await compareMatches(l, docs, POSITION_QUERIES, 'positions');
    // The embedded engine finds the same entries, from its term index and from FTS4 itself (a
    // date filter sends its search there).
    const embedded = await openLedger({ file: path.join(tempDir(), 'data.db'), checkpoint: false });
    opened.push(embedded);
    await writeDocs(embedded, docs);
    for (const text of POSITION_QUERIES) {
      const got = await l.progress.searchEntries({ projectId: undefined, text, limit: docs.length });
      for (const startDate of [undefined, '1970-01-01']) {
        const want = await embedded.progress.searchEntries({ projectId: undefined, text, limit: docs.length, ...(startDate ? { startDate } : {}) });
        assert.equal(got.total, want.total, `total of ${text} (${startDate ?? 'term index'})`);
        assert.deepEqual(got.entries.map((e) => e.id).sort(), want.entries.map((e) => e.id).sort(), `the hits of ${text} (${startDate ?? 'term index'})`);
      }
    }
  });

  it('gives phrase words after open to the entries a ledger held before they existed, in batches, and finds their phrases from then on', async () => {
    // The ledger as the build before wrote it: progress schema 5, entries with no phrase words.
    const url = await schema5Database();
    const docs = [...makeCorpus(300, 1, vocabulary(rng(3), 500)), ...positionDocs()];
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      for (const [i, d] of docs.entries()) {
        d.seq = i;
        await insertWithoutPhraseWords(writer, d);
      }
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    const { l, marked } = await openPg(url);
    const store = l.progress as PgProgressStore;
    assert.equal(marked, 7);
    await compareMatches(l, docs, POSITION_QUERIES, 'marked after open');

    // A pass left half done (its entries unmarked again) goes on in batches from where it was.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("UPDATE log_entries SET phrase_words = NULL WHERE id IN ('pos-1', 'pos-3')");
      // Answered before, from saved answers that marking must not outlive.
      const missed = await l.progress.searchEntries({ projectId: 'p', text: '"ping pong" OR "alpha beta gamma"', limit: 20 });
      assert.deepEqual(missed.entries.map((e) => e.id).sort(), ['pos-0', 'pos-6']);
      const { rows } = await client.query<{ n: string }>("SELECT n FROM log_entries WHERE id = 'pos-0'");
      await client.query("INSERT INTO ap_meta (key, value) SELECT 'phrase_words_pass', $1 || ' ' || max(n) FROM log_entries", [rows[0]!.n]);
      assert.equal(await store.markPhraseWords({ batch: 3 }), 2);
      assert.equal((await client.query("SELECT 1 FROM ap_meta WHERE key = 'phrase_words_pass'")).rowCount, 0, 'done');
    } finally {
      await client.end();
    }
    const found = await l.progress.searchEntries({ projectId: 'p', text: '"ping pong" OR "alpha beta gamma"', limit: 20 });
    assert.deepEqual(found.entries.map((e) => e.id).sort(), ['pos-0', 'pos-1', 'pos-3', 'pos-6']);
    await compareMatches(l, docs, POSITION_QUERIES, 'marked in batches');
  });

  /** A new database holding the ledger's schema as the build before left it: progress migrations up to 5, before phrase words. */
  async function schema5Database(): Promise<string> {
    const url = await server().createDatabase();
    const old = await PgEngine.open({ url, schemas: PG_SCHEMAS.map((s) => (s.name === 'progress' ? { ...s, migrations: s.migrations.filter((m) => m.version <= 5) } : s)) });
    await old.close();
    return url;
  }

  /** `sql`'s `?` placeholders as node-postgres numbers them, from `$first` on. */
  function numbered(sql: string, first: number): string {
    let k = first;
    return sql.replace(/\?/g, () => `$${k++}`);
  }

  /** Writes a doc by plain SQL as a writer without phrase words does (a server of schema 5, a bulk load): phrase_words stays NULL. */
  async function insertWithoutPhraseWords(client: pg.Client | pg.PoolClient, d: Doc, projectId = 'p'): Promise<number> {
    await client.query('INSERT INTO projects (project_id, name, created_at) VALUES ($1, $1, $2) ON CONFLICT DO NOTHING', [projectId, d.createdAt]);
    const { rows } = await client.query<{ n: string }>(
      `INSERT INTO log_entries (id, project_id, created_at, title, title_fold, content, search)
       VALUES ($1, $2, $3, $4, $5, $6, ${numbered(ENTRY_SEARCH_SQL, 7)}) RETURNING n`,
      [d.id, projectId, d.createdAt, d.title, d.title.toLowerCase(), d.content, searchWords(d.title), searchWords(d.content)],
    );
    return Number(rows[0]!.n);
  }

  async function metaValue(client: pg.Client, key: string): Promise<string | undefined> {
    return (await client.query<{ value: string }>('SELECT value FROM ap_meta WHERE key = $1', [key])).rows[0]?.value;
  }

  async function hitsOf(l: Ledger, text: string): Promise<string[]> {
    return (await l.progress.searchEntries({ projectId: undefined, text, limit: 50 })).entries.map((e) => e.id).sort();
  }

  async function openPg(url: string): Promise<{ l: Ledger; marked: number }> {
    const l = await openLedger({ file: '/unused', databaseUrl: url });
    opened.push(l);
    return { l, marked: (await (l.progress as PgProgressStore).phraseWordsPass) ?? -1 };
  }

  it('gives phrase words, on the next open, to an entry written without them after this build opened the database', async () => {
    const url = await server().createDatabase();
    const first = await openPg(url);
    const docs = makeCorpus(20, 1, vocabulary(rng(5), 200));
    await writeDocs(first.l, docs);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // As a server of the build before would write it, after migration 6: no phrase words.
      const late = positionDocs()[0]!;
      await insertWithoutPhraseWords(client, late);
      const last = async (): Promise<number> => Number((await client.query<{ n: string }>('SELECT max(n) AS n FROM log_entries')).rows[0]!.n);
      assert.deepEqual(await hitsOf(first.l, '"ping pong"'), [], 'missed until looked over');
      const second = await openPg(url);
      assert.equal(second.marked, 1);
      assert.deepEqual(await hitsOf(second.l, '"ping pong"'), ['pos-0']);
      assert.deepEqual(await hitsOf(first.l, '"ping pong"'), ['pos-0'], 'the other server finds it too');
      assert.equal(await metaValue(client, PHRASE_WORDS_KEY), `${await last()} ${await last()} ${await last()} ${await last()} -`, 'checked up to the last entry');
      // Entries written by this build since, and one more without phrase words: the next open looks at those only.
      await writeDocs(second.l, [extraDoc('new', 0, 'Fresh', 'words'), extraDoc('new', 1, `Again ${run(260, 'ping')} pong`, 'x')]);
      const bulk = { ...positionDocs()[3]!, id: 'bulk-3' };
      await insertWithoutPhraseWords(client, bulk);
      await client.query("UPDATE log_entries SET phrase_words = NULL WHERE id = 'pos-0'");
      const third = await openPg(url);
      assert.equal(third.marked, 1, 'the new entries only, not pos-0 before the mark');
      assert.deepEqual(await hitsOf(third.l, '"alpha beta gamma"'), ['bulk-3']);
      assert.deepEqual(await hitsOf(third.l, '"ping pong"'), ['new-1']);
      const mark = await metaValue(client, PHRASE_WORDS_KEY);
      const fourth = await openPg(url);
      assert.equal(fourth.marked, 0);
      assert.equal(await metaValue(client, PHRASE_WORDS_KEY), mark, 'an open with nothing new writes nothing');
    } finally {
      await client.end();
    }
  });

  it('goes on with a pass the build before left under way (its phrase_words_pass key) and finishes it', async () => {
    const url = await schema5Database();
    const docs = [...makeCorpus(30, 1, vocabulary(rng(3), 300)), ...positionDocs()];
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const ns = new Map<string, number>();
      for (const d of docs) ns.set(d.id, await insertWithoutPhraseWords(client, d));
      // Migration 6 without a pass after it (it writes the key '0 <largest n>')...
      const migrated = await PgEngine.open({ url, schemas: PG_SCHEMAS });
      await migrated.close();
      const max = ns.get('pos-7')!;
      assert.equal(await metaValue(client, 'phrase_words_pass'), `0 ${max}`);
      // ...then the build before looked over the entries up to pos-1 (and marked those two) and stopped.
      for (const id of ['pos-0', 'pos-1']) {
        const d = docs.find((x) => x.id === id)!;
        await client.query('UPDATE log_entries SET phrase_words = $1 WHERE id = $2', [`${searchWords(d.title)}\n${searchWords(d.content)}`, id]);
      }
      // pos-2 is left unmarked below the point it reached: a resumed pass does not look there again.
      await client.query("UPDATE ap_meta SET value = $1 WHERE key = 'phrase_words_pass'", [`${ns.get('pos-2')} ${max}`]);
      const { l, marked } = await openPg(url);
      assert.equal(marked, 4, 'pos-3 to pos-6');
      assert.equal(await metaValue(client, 'phrase_words_pass'), undefined, 'the old key is gone');
      assert.equal(await metaValue(client, PHRASE_WORDS_KEY), `${max} ${max} ${max} ${max} -`);
      const unmarked = (await client.query<{ id: string }>('SELECT id FROM log_entries WHERE phrase_words IS NULL AND id LIKE $1 ORDER BY id', ['pos-%'])).rows.map((r) => r.id);
      assert.deepEqual(unmarked, ['pos-2', 'pos-7']);
      assert.deepEqual(await hitsOf(l, '"alpha beta gamma"'), ['pos-3']);
      assert.deepEqual(await hitsOf(l, '"ping pong"'), ['pos-0', 'pos-1', 'pos-6']);
    } finally {
      await client.end();
    }
  });

  it('looks again at an entry whose transaction commits after a later entry was looked over', async () => {
    const url = await server().createDatabase();
    const first = await openPg(url);
    await writeDocs(first.l, [extraDoc('early', 0, 'Early', 'entry')]);
    const slow = new pg.Client({ connectionString: url });
    const other = new pg.Client({ connectionString: url });
    await slow.connect();
    await other.connect();
    try {
      // A writer draws its entry number and has not committed when a later entry is written.
      await slow.query('BEGIN');
      const n = await insertWithoutPhraseWords(slow, positionDocs()[0]!);
      // (Another project: the two would take turns on the project's row otherwise.)
      const later = await insertWithoutPhraseWords(other, extraDoc('later', 0, 'Later', 'entry'), 'q');
      assert.ok(later > n);
      const second = await openPg(url);
      assert.equal(second.marked, 0);
      const mark = (await metaValue(other, PHRASE_WORDS_KEY))!.split(' ');
      assert.ok(Number(mark[0]) < n, `the mark ${mark.join(' ')} stays before the uncommitted entry ${n}`);
      assert.notEqual(mark[4], '-', 'the writer is remembered');
      await slow.query('COMMIT');
      const third = await openPg(url);
      assert.equal(third.marked, 1);
      assert.deepEqual(await hitsOf(third.l, '"ping pong"'), ['pos-0']);
      assert.equal(await metaValue(other, PHRASE_WORDS_KEY), `${later} ${later} ${later} ${later} -`);
    } finally {
      await slow.end();
      await other.end();
    }
  });

  it('re-indexes, once on open, entries whose words an older build kept with their diacritics', async () => {
    const url = await server().createDatabase();
    const first = await openLedger({ file: '/unused', databaseUrl: url });
    opened.push(first);
    await first.progress.insertEntry({
      id: 'old-1',
      projectId: 'p',
      title: 'Naïve café',
      content: 'crème brûlée',
      createdAt: new Date(BASE).toISOString(),
      tags: [],
      agentId: null,
    });
    await first.progress.insertEntry({ id: 'plain', projectId: 'p', title: 'Plain cafe', content: 'no accents', createdAt: new Date(BASE).toISOString(), tags: [], agentId: null });
    // What the earlier build stored: words lowercased with their diacritics, and no version mark.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        "UPDATE log_entries SET search = setweight(to_tsvector('simple', 'naïve café'), 'A') || setweight(to_tsvector('simple', 'crème brûlée'), 'B') WHERE id = 'old-1'",
      );
      await client.query("DELETE FROM ap_meta WHERE key = 'search_words'");
    } finally {
      await client.end();
    }
    const ids = async (l: Ledger, text: string): Promise<string[]> => (await l.progress.searchEntries({ projectId: undefined, text, limit: 10 })).entries.map((e) => e.id).sort();
    assert.deepEqual(await ids(first, 'cafe'), ['plain'], 'the old vector does not match the folded word');
    const second = await openLedger({ file: '/unused', databaseUrl: url });
    opened.push(second);
    assert.deepEqual(await ids(second, 'cafe'), ['old-1', 'plain']);
    assert.deepEqual(await ids(second, '"creme brulee"'), ['old-1']);
    assert.deepEqual(await ids(second, 'naïve'), ['old-1']);
  });
});
