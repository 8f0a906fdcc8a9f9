// The in-memory ranked-search index of the PostgreSQL backend (PgProgressStore with
// `memoryIndex: true`) checked against the SQL path of the same store class on the same
// database: every query kind (words common to rare, prefixes, AND, OR, OR of AND-groups,
// exclusions, phrases of two and three words, prefix phrases, a phrase in titles only, accents, a
// word found nowhere), for every project, one project and a date window, pages before, across and
// past the ranked candidates. The answers must be the same whole (total, entries in order);
// `stats.indexAnswers` shows that the index really answered. Then the same after entries written
// by the ledger's own store and by another pool (the index catches up), after an archive and a
// restore (SQL until the rebuild, the index again after), and over entries whose vectors lost
// positions (phrases matched on their phrase words). The generated corpus is the one of
// searchReference.test.ts (test/helpers/searchCorpus.ts).

import * as assert from 'node:assert/strict';
import { openLedger } from '../../../../src/core/storage/openLedger';
import type { PgEngine } from '../../../../src/core/storage/postgres/engine';
import { insertRow, PgProgressStore } from '../../../../src/core/storage/postgres/progressRepo';
import { fullTextTsQuery, RANK_WEIGHTS } from '../../../../src/core/storage/postgres/search';
import type { Ledger } from '../../../../src/core/storage/store';
import type { EntryPage, EntryQuery, NewEntry } from '../../../../src/core/progress/types';
import { usePostgres } from '../../../helpers/postgres';
import { useTempDirs } from '../../../helpers/tmp';
import { BASE, extraDoc, makeCorpus, POSITION_QUERIES, positionDocs, queriesFor, rng, run, tokens, vocabulary, type Doc } from '../../../helpers/searchCorpus';

// ---- the corpus (as in searchReference.test.ts) ----

/** An ISO time `minute` minutes and `second` seconds after BASE. */
function at(minute: number, second = 0): string {
  return new Date(BASE + minute * 60_000 + second * 1000).toISOString();
}

/** Writes `docs` in order through a ledger, each to its project ('p' unless `projectOf` or the doc names another). */
async function writeDocs(l: Ledger, docs: readonly Doc[], projectOf: (i: number) => string = () => 'p'): Promise<void> {
  for (const [i, d] of docs.entries()) {
    await l.progress.insertEntry({
      id: d.id,
      projectId: d.projectId ?? projectOf(i),
      title: d.title,
      content: d.content,
      createdAt: d.createdAt,
      tags: d.tags ?? [],
      agentId: null,
    });
  }
}

// ---- the comparison ----

/** The candidates ranked by ts_rank in both stores: few, so that most pages of common words go past them. */
const CANDIDATES = 100;

/** Where a search was answered from, by the indexed store's counters. */
type Path = 'index' | 'saved' | 'sql';

interface Tally {
  index: number;
  saved: number;
  sql: number;
  /** Per query text, the paths its searches took. */
  byQuery: Map<string, Path[]>;
}

function tally(): Tally {
  return { index: 0, saved: 0, sql: 0, byQuery: new Map() };
}

const ids = (page: EntryPage): string[] => page.entries.map((e) => e.id);

/** A scope of a search: its project and date window, with a name for messages. */
interface Scope {
  name: string;
  projectId: string | undefined;
  startDate?: string;
  endDate?: string;
}

function scopeQuery(scope: Scope, text: string, limit: number, offset: number): EntryQuery {
  return {
    projectId: scope.projectId,
    text,
    limit,
    offset,
    ...(scope.startDate ? { startDate: scope.startDate } : {}),
    ...(scope.endDate ? { endDate: scope.endDate } : {}),
  };
}

/** The pages compared for a query with `total` hits: all of them, the first two of 20, across and past the candidates. */
function pagesFor(total: number): [limit: number, offset: number][] {
  const pages: [number, number][] = [
    [Math.max(1, total), 0],
    [20, 0],
    [20, 20],
    [20, CANDIDATES - 10],
    [20, CANDIDATES + 10],
  ];
  return pages.filter(([limit, offset], i) => pages.findIndex(([l, o]) => l === limit && o === offset) === i);
}

describe('the in-memory ranked-search index on PostgreSQL answers as its SQL path does', function () {
  this.timeout(240_000);
  useTempDirs();
  const server = usePostgres();
  const opened: Ledger[] = [];
  const indexedStores: PgProgressStore[] = [];
  afterEach(async () => {
    // A rebuild under way is waited for before the pool it reads from closes.
    await Promise.allSettled(indexedStores.splice(0).map((s) => s.prepareSearch()));
    while (opened.length > 0) await opened.pop()!.close();
  });

  const engineOf = (l: Ledger): PgEngine => (l.progress as unknown as { engine: PgEngine }).engine;

  async function openPg(url: string): Promise<Ledger> {
    const l = await openLedger({ file: '/unused', databaseUrl: url });
    opened.push(l);
    return l;
  }

  /** The SQL store and the indexed store (built) over one ledger's pool. */
  async function storesOf(l: Ledger, candidates = CANDIDATES): Promise<{ plain: PgProgressStore; indexed: PgProgressStore }> {
    const engine = engineOf(l);
    const plain = new PgProgressStore(engine, candidates);
    const indexed = new PgProgressStore(engine, candidates, { memoryIndex: true });
    indexedStores.push(indexed);
    await indexed.prepareSearch();
    return { plain, indexed };
  }

  /**
   * What went wrong, for a finding: the first position where the two pages differ, the ids there,
   * and each entry's ts_rank over its whole vector and its title (the first stage's score), size,
   * date and number.
   */
  async function mismatch(engine: PgEngine, q: EntryQuery, got: EntryPage, want: EntryPage): Promise<string> {
    const a = ids(got);
    const b = ids(want);
    let i = 0;
    while (i < Math.max(a.length, b.length) && a[i] === b[i]) i++;
    const lines = [
      `query ${JSON.stringify(q)}`,
      `  indexed: total ${got.total}, ${a.length} entries; plain: total ${want.total}, ${b.length} entries`,
      `  first difference at position ${i} (offset ${(q.offset ?? 0) + i}): indexed ${a[i] ?? '(none)'}, plain ${b[i] ?? '(none)'}`,
      `  indexed ids ${a.slice(Math.max(0, i - 2), i + 5).join(' ')}`,
      `  plain ids   ${b.slice(Math.max(0, i - 2), i + 5).join(' ')}`,
    ];
    const tsquery = q.text ? fullTextTsQuery(q.text) : undefined;
    const which = [a[i], b[i]].filter((x): x is string => x !== undefined);
    if (tsquery && which.length > 0) {
      const rows = await engine.read((tx) =>
        tx.all<{ id: string; n: string; rank: number; pre: number; search_size: number; created_at: string }>(
          `SELECT id, n::text AS n, ts_rank(?, search, to_tsquery('simple', ?), 1) AS rank, ts_rank(?, title_search, to_tsquery('simple', ?), 0) AS pre,
                  search_size, created_at FROM log_entries WHERE id IN (${which.map(() => '?').join(', ')})`,
          [RANK_WEIGHTS, tsquery, RANK_WEIGHTS, tsquery, ...which],
        ),
      );
      for (const r of rows) lines.push(`  ${r.id}: ts_rank ${r.rank}, title score ${r.pre}, search_size ${r.search_size}, created_at ${r.created_at}, n ${r.n}`);
    }
    return lines.join('\n');
  }

  /**
   * Searches `q` on both stores and asserts the same answer whole: total, ids in order, then every
   * field of every listing. Returns the path the indexed store took (by its counters).
   */
  async function same(engine: PgEngine, indexed: PgProgressStore, plain: PgProgressStore, q: EntryQuery): Promise<Path> {
    const before = { index: indexed.stats.indexAnswers, saved: indexed.stats.savedAnswers };
    const got = await indexed.searchEntries(q);
    const path: Path = indexed.stats.indexAnswers > before.index ? 'index' : indexed.stats.savedAnswers > before.saved ? 'saved' : 'sql';
    assert.ok(indexed.stats.indexAnswers - before.index + (indexed.stats.savedAnswers - before.saved) <= 1, `one search counted once: ${JSON.stringify(q)}`);
    const want = await plain.searchEntries(q);
    if (got.total !== want.total || ids(got).join(' ') !== ids(want).join(' ')) assert.fail(`indexed (${path}) and plain answers differ\n${await mismatch(engine, q, got, want)}`);
    assert.deepEqual(got, want, `the listings of ${JSON.stringify(q)} (${path})`);
    return path;
  }

  /** Compares every page of each query in each scope; the paths taken are added to `t`. */
  async function compareAll(engine: PgEngine, indexed: PgProgressStore, plain: PgProgressStore, queries: readonly string[], scopes: readonly Scope[], t: Tally): Promise<void> {
    for (const text of queries) {
      for (const scope of scopes) {
        const total = (await plain.searchEntries(scopeQuery(scope, text, 1, 0))).total;
        for (const [limit, offset] of pagesFor(total)) {
          const path = await same(engine, indexed, plain, scopeQuery(scope, text, limit, offset));
          t[path]++;
          const list = t.byQuery.get(text) ?? [];
          list.push(path);
          t.byQuery.set(text, list);
        }
      }
    }
  }

  function report(label: string, t: Tally): void {
    const declined = [...t.byQuery].filter(([, paths]) => paths.includes('sql')).map(([text, paths]) => `${text} (${paths.filter((p) => p === 'sql').length})`);
    console.log(
      `      ${label}: ${t.index} searches from the index, ${t.saved} from saved answers, ${t.sql} by SQL${declined.length > 0 ? `; by SQL: ${declined.join(', ')}` : ''}`,
    );
  }

  /** Asserts that one search (not searched before on `indexed`) is answered from the index, the same as plain's. */
  async function fromIndex(engine: PgEngine, indexed: PgProgressStore, plain: PgProgressStore, q: EntryQuery): Promise<void> {
    const before = indexed.stats.indexAnswers;
    const saved = indexed.stats.savedAnswers;
    await same(engine, indexed, plain, q);
    assert.equal(indexed.stats.savedAnswers, saved, `not a saved answer: ${JSON.stringify(q)}`);
    assert.equal(indexed.stats.indexAnswers, before + 1, `answered from the index: ${JSON.stringify(q)}`);
  }

  /**
   * Searches `base` with a new limit each time (no saved answer) until one is answered from the
   * index, each the same as plain's; fails after ten seconds.
   */
  async function eventuallyFromIndex(engine: PgEngine, indexed: PgProgressStore, plain: PgProgressStore, base: Omit<EntryQuery, 'limit'>, label: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    const paths: Path[] = [];
    for (let limit = 30; Date.now() < deadline; limit++) {
      paths.push(await same(engine, indexed, plain, { ...base, limit }));
      if (paths[paths.length - 1] === 'index') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`${label}: no search of ${JSON.stringify(base)} answered from the index within 10 s (${paths.join(' ')})`);
  }

  /** The corpus: 1,200 generated entries, a quarter of them in project 'q', the rest in 'p', then `extra`. */
  async function corpusLedger(extra: (words: string[]) => Doc[] = () => []): Promise<{ url: string; l: Ledger; words: string[]; docs: Doc[] }> {
    const url = await server().createDatabase();
    const l = await openPg(url);
    const words = vocabulary(rng(3), 500);
    const generated = makeCorpus(1200, 1, words).map((d, i) => ({ ...d, projectId: i % 4 === 1 ? 'q' : 'p' }));
    const docs = [...generated, ...extra(words)];
    await writeDocs(l, docs);
    return { url, l, words, docs };
  }

  /** Hand-written entries: accents, a word in titles and contents, a word repeated, a phrase in one title only, tags. */
  function handDocs(words: string[]): Doc[] {
    const [w0, w1, w5] = [words[0]!, words[1]!, words[5]!];
    return [
      { seq: 0, id: 'h-cafe-1', projectId: 'p', title: 'Café crème', content: 'The café served crème brûlée and naïve tests.', createdAt: at(100, 1), tags: ['food'] },
      {
        seq: 0,
        id: 'h-cafe-2',
        projectId: 'q',
        title: 'Naïve cafe planning',
        content: 'cafe cafe cafe, then crème brulee again on the café terrace.',
        createdAt: at(100, 2),
        tags: ['food'],
      },
      { seq: 0, id: 'h-cafe-3', projectId: 'p', title: 'Naive caching', content: `A CAFÉ near the queue; ${w0} ${w1} naive.`, createdAt: at(20) },
      { seq: 0, id: 'h-cafe-4', projectId: 'p', title: `${w0} ${w5}`, content: 'creme brulee, without accents, at the cafe', createdAt: at(320) },
      { seq: 0, id: 'h-light-1', projectId: 'p', title: 'Gingerbread lighthouse keeper', content: `${w0} marmalade ${w1} marmalade marmalade.`, createdAt: at(150), tags: ['jam'] },
      {
        seq: 0,
        id: 'h-light-2',
        projectId: 'q',
        title: 'Marmalade report',
        content: `Gingerbread alone; the lighthouse keeper later. ${w1} ${w1} ${w1}.`,
        createdAt: at(150),
        tags: ['jam', 'food'],
      },
      { seq: 0, id: 'h-light-3', projectId: 'p', title: 'Lighthouse', content: `marmalade ${run(30, 'marmalade')} ${w5}`, createdAt: at(150) },
      {
        seq: 0,
        id: 'h-light-4',
        projectId: 'q',
        title: `The ${w1} keeper`,
        content: `lighthouse ${w0} gingerbread, then gingerbread-lighthouse in the content.`,
        createdAt: at(40, 30),
      },
      { seq: 0, id: 'h-rep', projectId: 'p', title: `${w1} ${w1}`, content: run(60, w1), createdAt: at(200) },
    ];
  }

  it('gives the same answers as SQL for every query kind, in every project, one project and a date window, on pages before, across and past the candidates', async () => {
    const { l, words, docs } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const { plain, indexed } = await storesOf(l);
    const pair2 = tokens(docs[17]!.content).slice(3, 5);
    const triple2 = tokens(docs[23]!.content).slice(1, 4);
    const [w0, w1, w2] = [words[0]!, words[1]!, words[2]!];
    const rare = words[300]!;
    // The kinds every search of which the index must answer (words only, no phrase).
    const wordKinds = [
      w0, // common
      rare,
      `${words[7]!.slice(0, 2)}*`, // a short prefix, many hits
      `${w1} ${w2}`,
      `${words[5]!} OR ${words[200]!}`,
      `${w1} ${words[6]!} OR ${words[100]!}`,
      `${w0} -${w2}`,
    ];
    const queries = [
      ...new Set([
        ...queriesFor(words, docs),
        ...wordKinds,
        `${w1} ${words[40]!.slice(0, 3)}*`, // two words, the last a prefix
        `${w0} -"${pair2.join(' ')}"`,
        `"${pair2.join(' ')}"`,
        `"${triple2.join(' ')}"`,
        `"${pair2[0]!} ${pair2[1]!.slice(0, 2)}*"`, // quoted: the * is not a prefix
        `${pair2[0]!}-${pair2[1]!.slice(0, 2)}*`, // a phrase whose last word is a prefix
        `${triple2[0]!}-${triple2[1]!}-${triple2[2]!.slice(0, 1)}*`,
        '"gingerbread lighthouse"', // in one title (and hyphenated in a content)
        '"lighthouse keeper"', // a title and a content
        'gingerbread-lighthouse',
        'lighthouse',
        'marmalade', // repeated
        'marmalade OR lighthouse',
        `marmalade ${w1} OR gingerbread -keeper`,
        `marmalade OR ${rare} -lighthouse`,
        `"${w1} ${w1}"`,
        'café',
        'CAFÉ',
        'crème brûlée',
        '"creme brulee"',
        'naïve',
        'naive -cafe',
        'caf*',
        `"${w0} nothingmatchesthis"`,
        `nothingmatchesthis OR ${rare}`,
        '"naive caching"', // in one title only
      ]),
    ];
    const scopes: Scope[] = [
      { name: 'every project', projectId: undefined },
      { name: "project 'q'", projectId: 'q' },
      { name: 'every project, a window', projectId: undefined, startDate: at(30), endDate: at(250) },
      { name: "project 'p', a window", projectId: 'p', startDate: at(-10), endDate: at(150) },
    ];
    const t = tally();
    await compareAll(engine, indexed, plain, queries, scopes, t);
    report('every query kind', t);
    assert.equal(plain.stats.indexAnswers, 0, 'the plain store has no index');
    assert.ok(t.index > 0, 'the index answered');
    // Words, prefixes, AND, OR and exclusions: every fresh search from the index, whatever the scope and page.
    for (const text of wordKinds) {
      const paths = t.byQuery.get(text)!;
      assert.ok(!paths.includes('sql'), `${text}: ${paths.join(' ')}`);
      assert.ok(paths.filter((p) => p === 'index').length >= scopes.length * 3, `${text}: ${paths.join(' ')}`);
    }
    // The hits of common words go past the candidates in every scope.
    for (const scope of scopes) assert.ok((await plain.searchEntries(scopeQuery(scope, w0, 1, 0))).total > CANDIDATES + 30, scope.name);
    assert.equal((await plain.searchEntries(scopeQuery(scopes[0]!, 'nothingmatchesthis', 1, 0))).total, 0);
    assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: '"gingerbread lighthouse"', limit: 10 })).sort(), ['h-light-1', 'h-light-4']);
    assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: 'cafe', limit: 10 })).sort(), ['h-cafe-1', 'h-cafe-2', 'h-cafe-3', 'h-cafe-4']);

    // One fresh search adds exactly one index answer; the same search again is a saved answer.
    const sample: EntryQuery = { projectId: 'p', text: `${w1} ${rare}`, limit: 7, offset: 3 };
    await fromIndex(engine, indexed, plain, sample);
    const index = indexed.stats.indexAnswers;
    const saved = indexed.stats.savedAnswers;
    await same(engine, indexed, plain, sample);
    assert.equal(indexed.stats.savedAnswers, saved + 1, 'saved');
    assert.equal(indexed.stats.indexAnswers, index, 'a saved answer is not counted');

    // Tags and title substrings go the SQL way, with the same answers.
    for (const q of [
      { projectId: 'p', text: 'marmalade', tags: ['jam'], limit: 20 },
      { projectId: undefined, text: 'marmalade OR cafe', tags: ['FOOD'], limit: 20 },
      { projectId: undefined, text: w0, tags: ['jam'], limit: 3, offset: 1 },
      { projectId: undefined, text: w0, query: 'keeper', limit: 20 },
      { projectId: 'p', text: 'cafe', query: 'CAF', limit: 20 },
      { projectId: undefined, text: w1, query: w1.slice(0, 2), limit: 20, offset: 20 },
      { projectId: undefined, text: w1, query: w1.slice(0, 2), tags: ['jam'], startDate: at(0), limit: 20 },
    ] satisfies EntryQuery[]) {
      const before = indexed.stats.indexAnswers;
      assert.equal(await same(engine, indexed, plain, q), 'sql', JSON.stringify(q));
      assert.equal(indexed.stats.indexAnswers, before, `not from the index: ${JSON.stringify(q)}`);
    }
    assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: 'marmalade', tags: ['jam'], limit: 20 })).sort(), ['h-light-1', 'h-light-2']);
  });

  it('adds the entries written since by its own ledger and by another pool, and answers from the index with them', async () => {
    const { url, l, words, docs } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const { plain, indexed } = await storesOf(l);
    const [w0, w1] = [words[0]!, words[1]!];
    const rare = words[300]!;
    // Searched before the writes: the answers may be saved, and grow.
    const earlier: EntryQuery[] = [
      { projectId: 'p', text: rare, limit: 20 },
      { projectId: undefined, text: rare, limit: 20 },
      { projectId: 'q', text: `${w1} ${w0}`, limit: 20, offset: 20 },
    ];
    for (const q of earlier) await same(engine, indexed, plain, q);
    const other = await openPg(url);
    assert.notEqual(engineOf(other), engine, 'another pool');

    // A new hit of the rare word in 'p' (ranked first: in the title), a new word, a new project.
    await writeDocs(l, [
      { seq: 0, id: 'new-1', projectId: 'p', title: `${rare} ${rare} zephyrine`, content: `${w0} and ${rare}`, createdAt: at(500) },
      { seq: 0, id: 'new-2', projectId: 'r', title: 'Zephyrine in a new project', content: `${w0} ${w1} zephyrine ${rare}`, createdAt: at(501) },
    ]);
    await writeDocs(other, [
      { seq: 0, id: 'new-3', projectId: 'q', title: 'Other pool', content: `zephyrine ${w1} ${rare}, then "the lighthouse keeper"`, createdAt: at(502) },
      { seq: 0, id: 'new-4', projectId: 'p', title: `Older ${rare}`, content: 'dated among the others', createdAt: at(60) },
    ]);
    for (const q of earlier) await same(engine, indexed, plain, q);
    const before = indexed.stats.indexAnswers;
    await fromIndex(engine, indexed, plain, { projectId: 'p', text: rare, limit: 7 });
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: rare, limit: 9, offset: 1 });
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: 'zephyrine', limit: 10 });
    await fromIndex(engine, indexed, plain, { projectId: 'q', text: `zephyrine ${w1}`, limit: 10 });
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: `${w0} zephyrine`, limit: 5, startDate: at(400) });
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: w0, limit: 20, offset: CANDIDATES + 3 });
    const found = await indexed.searchEntries({ projectId: undefined, text: 'zephyrine', limit: 10, offset: 0 });
    assert.deepEqual(ids(found).sort(), ['new-1', 'new-2', 'new-3']);
    // The new project's own searches: the same answers, whichever way.
    const t = tally();
    await compareAll(engine, indexed, plain, ['zephyrine', `${w0} ${w1}`, rare], [{ name: "project 'r'", projectId: 'r' }], t);
    report("the new project 'r'", t);

    // Many more from the other pool, some ranked among the candidates, then every query kind again.
    const more = makeCorpus(150, 9, words).map((d, i) => ({ ...d, createdAt: at(200 + i), projectId: i % 3 === 0 ? 'q' : i % 3 === 1 ? 'p' : 'r' }));
    await writeDocs(other, more);
    const queries = queriesFor(words, [...docs, ...more]);
    const t2 = tally();
    await compareAll(
      engine,
      indexed,
      plain,
      queries,
      [
        { name: 'every project', projectId: undefined },
        { name: "project 'p'", projectId: 'p' },
        { name: "project 'r', a window", projectId: 'r', startDate: at(0), endDate: at(300) },
      ],
      t2,
    );
    report('after writes by another pool', t2);
    assert.ok(t2.index > 0, 'the index answered after the writes');
    assert.ok(indexed.stats.indexAnswers > before + 6 + t.index, 'grew');
  });

  it('answers searches made at once, after entries written by another pool, all from the index without building it again', async () => {
    const { url, l, words } = await corpusLedger(handDocs);
    const { plain, indexed } = await storesOf(l);
    const other = await openPg(url);
    await writeDocs(
      other,
      Array.from({ length: 20 }, (_, i) => ({
        seq: 0,
        id: `burst-${i}`,
        projectId: i % 2 === 0 ? 'p' : 'q',
        title: `${words[i]!} burst`,
        content: `${words[0]!} ${words[i + 1]!} burst`,
        createdAt: at(600 + i),
      })),
    );
    const queries: EntryQuery[] = Array.from({ length: 12 }, (_, i) => ({
      projectId: i % 3 === 0 ? undefined : i % 3 === 1 ? 'p' : 'q',
      text: `${words[i]!} OR burst`,
      limit: 10 + i,
    }));
    const before = indexed.stats.indexAnswers;
    // Each one reads the same entries written since; they take turns adding them.
    const pages = await Promise.all(queries.map((q) => indexed.searchEntries(q)));
    assert.equal(indexed.stats.indexAnswers, before + queries.length, 'every search was answered from the index');
    assert.equal(indexed.memoryIndexStats()?.building, false, 'nothing made it build again');
    assert.equal(
      indexed.memoryIndexStats()?.entries,
      (await l.progress.listProjects()).reduce((n, p) => n + p.entryCount, 0),
    );
    for (const [i, q] of queries.entries()) {
      const want = await plain.searchEntries(q);
      assert.deepEqual(pages[i], want, `the page of ${JSON.stringify(q)}`);
    }
  });

  it('reads phrases of two frequent words from their pairs, in the title or the content, through entries added since', async () => {
    const { url, l, words } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const { plain, indexed } = await storesOf(l);
    assert.ok(indexed.memoryIndexStats()!.frequent >= 2, `frequent words: ${indexed.memoryIndexStats()!.frequent}`);
    const [w0, w1, w2] = [words[0]!, words[1]!, words[2]!];
    const phrases = [`"${w0} ${w1}"`, `"${w1} ${w0}"`, `"${w0} ${w0}"`, `"${w0} ${w1}" -${w2}`, `"${w0} ${w1}" OR "${w1} ${w2}"`, `"${w0} ${w1} ${w2}"`];
    const scopes: Scope[] = [
      { name: 'every project', projectId: undefined },
      { name: "project 'q'", projectId: 'q' },
    ];
    const t = tally();
    await compareAll(engine, indexed, plain, phrases, scopes, t);
    report('phrases of frequent words', t);
    assert.equal(t.sql, 0, 'none went by SQL');
    // Pairs in entries written since, by another pool: in a title, in a content, and split between them.
    await writeDocs(await openPg(url), [
      { seq: 0, id: 'pair-1', projectId: 'q', title: `${w1} ${w0} ${w1}`, content: 'nothing frequent here', createdAt: at(700) },
      { seq: 0, id: 'pair-2', projectId: 'q', title: 'A title', content: `zz ${w0} ${w1} zz ${w0} ${w0}`, createdAt: at(701) },
      { seq: 0, id: 'pair-3', projectId: 'q', title: `Ends with ${w0}`, content: `${w1} starts the content`, createdAt: at(702) },
    ]);
    const after = tally();
    await compareAll(engine, indexed, plain, phrases, scopes, after);
    report('phrases of frequent words, after new entries', after);
    const found = await indexed.searchEntries({ projectId: 'q', text: `"${w0} ${w1}"`, limit: 200 });
    assert.ok(ids(found).includes('pair-2') && !ids(found).includes('pair-3'), 'a pair within the content is found, one across the title and the content is not');
    assert.ok(ids(await indexed.searchEntries({ projectId: 'q', text: `"${w1} ${w0}"`, limit: 200 })).includes('pair-1'));
  });

  it('ranks an entry whose vector has a title position after a content one (not one the store writes) as SQL does, and leaves its phrases to SQL', async () => {
    const { l, words } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const [w0, w1] = [words[0]!, words[1]!];
    await writeDocs(l, [{ seq: 0, id: 'odd-1', projectId: 'p', title: 'placeholder', content: 'placeholder', createdAt: at(800) }]);
    // A vector written by hand: the title's word after the content's, as no writer of the store orders them.
    await engine.write((tx) => tx.run(`UPDATE log_entries SET search = ?::tsvector WHERE id = 'odd-1'`, [`'${w0}':1B,9A '${w1}':2B,3B`]));
    const { plain, indexed } = await storesOf(l);
    for (const text of [w0, `${w0} ${w1}`, `${w1} OR ${w0}`]) await fromIndex(engine, indexed, plain, { projectId: 'p', text, limit: 30 });
    const before = indexed.stats.indexAnswers;
    await same(engine, indexed, plain, { projectId: 'p', text: `"${w0} ${w1}"`, limit: 30 });
    assert.equal(indexed.stats.indexAnswers, before, 'a phrase over it goes by SQL');
  });

  it('ranks the hits of a negation, with words in their title or none, as SQL does', async () => {
    // ts_rank of an AND over an entry holding one of its words is its floor (1e-20), or 0 over a
    // title without words: the candidates' first key, so the entries with titles come first.
    const l = await openPg(await server().createDatabase());
    const docs: Doc[] = [];
    for (let i = 0; i < 40; i++) {
      docs.push({
        seq: i,
        id: `neg-${i}`,
        projectId: 'p',
        title: i % 3 === 0 ? '— … —' : `apple ${i % 2 === 0 ? 'berry' : 'report'} ${i}`,
        content: `${i % 4 === 0 ? 'berry ' : ''}${i % 5 === 0 ? 'cherry ' : ''}apple pie ${'crust '.repeat(i % 7)}number ${i}`,
        createdAt: at(900 + (i % 6)),
      });
    }
    await writeDocs(l, docs);
    const engine = engineOf(l);
    const { plain, indexed } = await storesOf(l, 6);
    for (const text of ['apple -berry', 'apple -berry -cherry', 'apple -ber*', 'apple crust -berry', 'apple OR pie -cherry']) {
      const total = (await plain.searchEntries({ projectId: 'p', text, limit: 1 })).total;
      assert.ok(total > 6, `${text}: more hits (${total}) than candidates`);
      for (const [limit, offset] of [
        [4, 0],
        [4, 4],
        [5, 6],
        [30, 0],
      ] as const) {
        await fromIndex(engine, indexed, plain, { projectId: 'p', text, limit, offset });
      }
    }
  });

  it('adds an entry committed after one numbered above it (two projects written at once) and keeps answering from the index, with no rebuild', async () => {
    const { l, words } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const { plain, indexed } = await storesOf(l);
    const rare = words[300]!;
    const built = indexed.memoryIndexStats()!.builds;
    const entry = (id: string, projectId: string, minute: number): NewEntry => ({
      id,
      projectId,
      title: `${rare} quokka ${id}`,
      content: `${words[0]!} quokka`,
      createdAt: at(minute),
      tags: [],
      agentId: null,
    });
    const gates: (() => void)[] = [];
    /** A write of `e` that takes its number, then stays open until `release` (its commit comes later). */
    const held = (e: NewEntry): { inserted: Promise<void>; release: () => void; done: Promise<void> } => {
      let inserted!: () => void;
      let release!: () => void;
      const insertedP = new Promise<void>((r) => (inserted = r));
      const gate = new Promise<void>((r) => (release = r));
      gates.push(release);
      const done = engine.write(async (tx) => {
        await insertRow(tx, e);
        inserted();
        await gate;
      });
      return { inserted: insertedP, release, done };
    };
    const numbers = async (): Promise<Map<string, number>> =>
      new Map(
        (await engine.read((tx) => tx.all<{ id: string; n: string }>("SELECT id, n::text AS n FROM log_entries WHERE id LIKE 'late-%' OR id LIKE 'early-%'"))).map((r) => [
          r.id,
          Number(r.n),
        ]),
      );

    // A failed assertion must not leave a write open: the ledger's close would wait for it.
    try {
      // 'late-1' (project 'p') takes its number first; 'early-2' ('q', numbered after it) commits first.
      const late = held(entry('late-1', 'p', 700));
      await late.inserted;
      await l.progress.insertEntry(entry('early-2', 'q', 701));
      await fromIndex(engine, indexed, plain, { projectId: undefined, text: 'quokka', limit: 10 });
      assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: `quokka ${rare}`, limit: 10 })), ['early-2']);
      late.release();
      await late.done;
      const n = await numbers();
      assert.ok(n.get('late-1')! < n.get('early-2')!, `late-1 is numbered before early-2: ${JSON.stringify([...n])}`);
      // The index adds late-1 below the number it holds already; no rebuild, no SQL.
      await fromIndex(engine, indexed, plain, { projectId: undefined, text: 'quokka', limit: 11 });
      await fromIndex(engine, indexed, plain, { projectId: 'p', text: `${rare} quokka`, limit: 12 });
      assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: 'quokka', limit: 13 })).sort(), ['early-2', 'late-1']);

      // Three at once, committed in reverse order, one of them rolled back (its number is never used).
      const a = held(entry('late-3', 'p', 702));
      await a.inserted;
      const b = held(entry('late-4', 'r', 703));
      await b.inserted;
      const failed = engine
        .write(async (tx) => {
          await insertRow(tx, entry('late-5', 's', 704));
          throw new Error('rolled back');
        })
        .catch((err: Error) => err.message);
      assert.match(await failed, /rolled back/);
      await l.progress.insertEntry(entry('early-6', 'q', 705));
      await fromIndex(engine, indexed, plain, { projectId: undefined, text: 'quokka', limit: 14 });
      b.release();
      await b.done;
      await fromIndex(engine, indexed, plain, { projectId: undefined, text: 'quokka', limit: 15 });
      a.release();
      await a.done;
      await fromIndex(engine, indexed, plain, { projectId: undefined, text: 'quokka', limit: 16 });
      await fromIndex(engine, indexed, plain, { projectId: 'r', text: 'quokka', limit: 16 });
      const all = await indexed.searchEntries({ projectId: undefined, text: 'quokka', limit: 17 });
      assert.deepEqual(ids(all).sort(), ['early-2', 'early-6', 'late-1', 'late-3', 'late-4']);
      const stats = indexed.memoryIndexStats()!;
      assert.equal(stats.builds, built, 'never built again');
      assert.equal(stats.building, false);
      assert.equal(
        stats.entries,
        (await l.progress.listProjects()).reduce((k, p) => k + p.entryCount, 0),
      );
    } finally {
      for (const release of gates) release();
    }
  });

  it('answers by SQL after an archive and a restore, and from the index again once rebuilt', async () => {
    const { l, words } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const { plain, indexed } = await storesOf(l);
    const [w0, w1, w2] = [words[0]!, words[1]!, words[3]!];
    const rare = words[300]!;
    const queries = [w0, rare, `${w1} ${w2}`, `${words[40]!} OR ${rare}`, `${w0} -${w1}`, `"${w1} ${w1}"`, 'test*', 'marmalade OR cafe', 'lighthouse keeper'];
    const scopes: Scope[] = [
      { name: 'every project', projectId: undefined },
      { name: "project 'p'", projectId: 'p' },
      { name: "project 'q', a window", projectId: 'q', startDate: at(30), endDate: at(250) },
    ];
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: w0, limit: 20 });

    const archived = await l.transfer.archiveEntriesBefore({ before: at(60) }, new Date(BASE + 10 ** 9).toISOString());
    assert.ok(archived > 100, `archived ${archived}`);
    // The index saw the epoch move: the first search goes the SQL way and starts a rebuild, which
    // answers later searches without a call to prepareSearch.
    assert.equal(await same(engine, indexed, plain, { projectId: undefined, text: rare, limit: 20, offset: 1 }), 'sql', 'the first search after an archive');
    await eventuallyFromIndex(engine, indexed, plain, { projectId: undefined, text: w0 }, 'after an archive');
    const t = tally();
    await compareAll(engine, indexed, plain, queries, scopes, t);
    report('archived, before the rebuild', t);
    await indexed.prepareSearch();
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: w0, limit: 11 });
    await fromIndex(engine, indexed, plain, { projectId: 'p', text: rare, limit: 11, offset: 2 });
    await fromIndex(engine, indexed, plain, { projectId: 'q', text: `${w1} ${w2}`, limit: 20, offset: CANDIDATES + 5 });
    const t2 = tally();
    await compareAll(
      engine,
      indexed,
      plain,
      queries.map((q) => `${q} OR nothingmatchesthis`),
      scopes,
      t2,
    );
    report('archived, rebuilt', t2);
    assert.ok(t2.index > 0, 'from the index once rebuilt');
    assert.equal((await indexed.searchEntries({ projectId: undefined, text: 'cafe', limit: 10, offset: 1 })).total, 3, 'h-cafe-3 is archived');

    // Only one project's entries this time.
    assert.ok((await l.transfer.archiveEntriesBefore({ before: at(200), projectId: 'q' }, new Date(BASE + 10 ** 9).toISOString())) > 10);
    assert.equal(await same(engine, indexed, plain, { projectId: 'q', text: rare, limit: 20, offset: 2 }), 'sql', "the first search of 'q' after its archive");
    const t3 = tally();
    await compareAll(engine, indexed, plain, queries.slice(0, 4), scopes, t3);
    report("one project's archive, before the rebuild", t3);
    await indexed.prepareSearch();
    await fromIndex(engine, indexed, plain, { projectId: 'q', text: w0, limit: 13 });
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: rare, limit: 13 });

    const restored = await l.transfer.restoreArchived();
    assert.ok(restored > archived, `restored ${restored}`);
    const t4 = tally();
    await compareAll(engine, indexed, plain, queries, scopes, t4);
    report('restored, before the rebuild', t4);
    // Two calls while one rebuild is under way: both resolve once it is done.
    await Promise.all([indexed.prepareSearch(), indexed.prepareSearch()]);
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: w0, limit: 12 });
    await fromIndex(engine, indexed, plain, { projectId: 'p', text: rare, limit: 12, offset: 2 });
    await fromIndex(engine, indexed, plain, { projectId: undefined, text: w0, limit: 20, offset: CANDIDATES + 7 });
    const t5 = tally();
    await compareAll(
      engine,
      indexed,
      plain,
      queries.map((q) => `${q} OR zzznothing`),
      scopes,
      t5,
    );
    report('restored, rebuilt', t5);
    assert.ok(t5.index > 0, 'from the index once rebuilt');
    assert.equal((await indexed.searchEntries({ projectId: undefined, text: 'cafe', limit: 10, offset: 2 })).total, 4, 'h-cafe-3 is back');
  });

  it('waits, after a build, for the gap before a search starts another: archives one after another never keep a core building', async () => {
    const { l, words } = await corpusLedger(handDocs);
    const engine = engineOf(l);
    const plain = new PgProgressStore(engine, CANDIDATES);
    const indexed = new PgProgressStore(engine, CANDIDATES, { memoryIndex: true, rebuildGapMs: 3_000 });
    indexedStores.push(indexed);
    await indexed.prepareSearch();
    const builds = (): number => indexed.memoryIndexStats()!.builds;
    const rare = words[300]!;
    assert.equal(builds(), 1);
    for (const [round, before] of [at(40), at(80)].entries()) {
      assert.ok((await l.transfer.archiveEntriesBefore({ before }, new Date(BASE + 10 ** 9).toISOString())) > 10, `archive ${round}`);
      // Within the gap since the last build ended: SQL answers, and no build starts.
      assert.equal(await same(engine, indexed, plain, { projectId: undefined, text: rare, limit: 20, offset: round }), 'sql', `the first search after archive ${round}`);
      assert.deepEqual([builds(), indexed.memoryIndexStats()!.building], [round + 1, false], `no build started after archive ${round}`);
      assert.equal(await same(engine, indexed, plain, { projectId: 'p', text: words[0]!, limit: 20, offset: round }), 'sql');
      // After it, the next search starts one, and the index answers again once it is built.
      await eventuallyFromIndex(engine, indexed, plain, { projectId: undefined, text: `${words[0]!} ${words[1 + round]!}` }, `after archive ${round}`);
      assert.equal(builds(), round + 2);
    }
    // prepareSearch builds at once, whatever the gap.
    await indexed.prepareSearch();
    assert.equal(builds(), 4);
  });

  it('gives the same answers for phrases over entries whose vectors lost positions (a word 300 times, past the 16,383rd word)', async () => {
    const url = await server().createDatabase();
    const l = await openPg(url);
    const words = vocabulary(rng(3), 500);
    const docs = [
      ...makeCorpus(300, 1, words).map((d, i) => ({ ...d, projectId: i % 2 === 0 ? 'p' : 'q' })),
      ...positionDocs(),
      // One more, in the other project: 300 of a word, then the phrase.
      { ...extraDoc('pos', 8, 'Ping pong in the other project', `${run(300, 'pong')} ping pong`), projectId: 'q' },
    ];
    await writeDocs(l, docs);
    await (l.progress as PgProgressStore).phraseWordsPass;
    const engine = engineOf(l);
    const scopes: Scope[] = [
      { name: 'every project', projectId: undefined },
      { name: "project 'p'", projectId: 'p' },
      { name: 'every project, a window', projectId: undefined, startDate: at(0), endDate: new Date(BASE + 10 ** 7 + 5).toISOString() },
    ];
    for (const candidates of [CANDIDATES, 2]) {
      const { plain, indexed } = await storesOf(l, candidates);
      const t = tally();
      await compareAll(engine, indexed, plain, [...POSITION_QUERIES, words[0]!, `ping OR ${words[0]!}`], scopes, t);
      report(`lost positions, ${candidates} candidates`, t);
    }
    const { indexed } = await storesOf(l);
    assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: '"ping pong"', limit: 20 })).sort(), ['pos-0', 'pos-1', 'pos-6', 'pos-8']);
    assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: '"alpha beta gamma"', limit: 20 })), ['pos-3']);
    assert.deepEqual(ids(await indexed.searchEntries({ projectId: undefined, text: '"t16399 alpha" OR "c16399 alpha"', limit: 20 })).sort(), ['pos-2', 'pos-3']);
  });
});
