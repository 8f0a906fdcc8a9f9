// ProgressStore on PostgreSQL: every SQL statement of the progress log for this backend. Entries
// are indexed for full-text search in the same transaction that stores them (a tsvector column
// with a GIN index), so flushIndex has nothing to do here.

import { LedgerError } from '../../errors';
import type { DigestMark, EntryListing, EntryPage, EntryQuery, LogEntry, NewEntry, ProjectInfo, SummarySource, TagCount } from '../../progress/types';
import { fold } from '../../text';
import type { MemoryIndexStats, ProgressStore } from '../store';
import type { PgEngine, PgReadTx, PgValue, PgWriteTx } from './engine';
import { ENTRY_SEARCH_SQL, entrySearch, fullTextConditionOf, PHRASE_WORDS_CANDIDATE_SQL, RANK_WEIGHTS, SEARCH_WORDS_VERSION } from './search';
import { writePgEntry } from './entryWriter';
import { runAsync, type AsyncTx } from '../sql/statements';
import { ENTRY_COLUMNS, LISTING_COLUMNS, toEntry, toListing, textBound, type EntryRow, type ListingRow } from '../rows/progressRows';
import { MemoryIndex, type IndexAnswer, type IndexRow } from './memoryIndex';
import { snippetOf } from './snippet';
import { parseFullText, type FullTextQuery } from '../sqlite/search';

interface Filter {
  where: string[];
  params: PgValue[];
  tsquery: string | undefined;
  /** The text as parsed for tsquery: the ranked page's snippets are made from it (snippet.ts). */
  fullText: FullTextQuery | undefined;
}

function filter(q: EntryQuery): Filter {
  const where: string[] = [];
  const params: PgValue[] = [];
  if (q.projectId !== undefined) {
    where.push('e.project_id = ?');
    params.push(q.projectId);
  }
  if (q.startDate) {
    where.push('e.created_at >= ?');
    params.push(textBound(q.startDate));
  }
  if (q.endDate) {
    where.push('e.created_at <= ?');
    params.push(textBound(q.endDate));
  }
  let tsquery: string | undefined;
  let fullText: FullTextQuery | undefined;
  if (q.text !== undefined && q.text.trim() !== '') {
    fullText = parseFullText(q.text);
    if (!fullText) throw new LedgerError('invalid_argument', 'text has no words to search for: give at least one word or "phrase"');
    const condition = fullTextConditionOf(fullText);
    tsquery = condition.tsquery;
    where.push(condition.sql);
    params.push(...condition.params);
  }
  const query = q.query ? fold(q.query) : '';
  if (query.length > 0) {
    // LIKE '%...%' (not strpos) so that the pg_trgm index answers it where it exists (schemas.ts).
    where.push("e.title_fold LIKE ? ESCAPE '\\'");
    params.push(`%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  for (const tag of new Set((q.tags ?? []).map((t) => fold(t.trim())))) {
    where.push('e.n IN (SELECT entry_n FROM entry_tags WHERE tag_fold = ?)');
    params.push(tag);
  }
  return { where, params, tsquery, fullText };
}

/** An entry's rows: the entry with its search vector, its project (counters by trigger) and its tags. */
export function insertRow(tx: PgWriteTx, entry: NewEntry): Promise<void> {
  return runAsync(writePgEntry({ ...entry, summary: null, summarySource: null }), tx as AsyncTx);
}

/** A page as searchEntries answers it, the rows' numbers, and the token of the entries it was read from (null: not to be saved). */
interface Answer {
  page: EntryPage;
  ns: string[];
  token: string | null;
  growth?: Growth | undefined;
}

/** An answer kept for its query: valid while the token of the projects it covers is unchanged. */
interface SavedAnswer {
  token: string;
  total: number;
  ns: string[];
  entries: EntryListing[];
  /** What tells whether entries written since can leave it as it is (one project's searches only). */
  growth?: Growth | undefined;
}

/** A project's counters at the moment an answer was read (Snapshot), with the page's place in its order. */
interface Growth {
  /** The project's entry_count and search_epoch, and the largest entry number of the ledger. */
  count: number;
  epoch: string;
  maxN: bigint;
  /** The page held `limit` rows: a hit ordered after its last row cannot be on it. */
  full: boolean;
  /** The order key of the page's last row (an OrderKey of the search's kind). */
  last: OrderKey | undefined;
  /** Ranked search: the candidates held (rankedPage), and the first-stage key of the last of them (grow reads it only once they are as many as can be; null: not known). */
  cands?: number;
  kth?: OrderKey | null;
}

/** Sort keys compared in JavaScript as the SQL ORDER BY compares them (numbers and text in "C" order, entry numbers as bigint). */
type OrderKey = (number | string | bigint)[];

/** A row of a ranked page with its sort key: ORDER BY grp, rank DESC, pre DESC, search_size, created_at DESC, n DESC. */
interface RankedHit {
  n: string;
  grp: number;
  rank: number;
  pre: number;
  search_size: number;
  created_at: string;
}

/**
 * A float4 as the driver reads it from PostgreSQL's text: the shortest decimal that is that
 * float4 (float4out), parsed as a double. Keys of the memory index (exact float4 values) are
 * compared with keys read from SQL (grow), so they take the same form.
 */
function pgReal(x: number): number {
  for (let digits = 1; digits <= 9; digits++) {
    const shortest = Number(x.toPrecision(digits));
    if (Math.fround(shortest) === x) return shortest;
  }
  return x;
}

/** -1, 0 or 1 as a sorts before, with or after b; `desc[i]` for the columns sorted descending. */
function compareKeys(a: OrderKey, b: OrderKey, desc: readonly boolean[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    return (x < y ? -1 : 1) * (desc[i] ? -1 : 1);
  }
  return 0;
}

/** ORDER BY created_at DESC, n DESC (listedPage). */
const LISTED_DESC = [true, true];
/** ORDER BY grp, rank DESC, pre DESC, search_size, created_at DESC, n DESC (rankedPage's page). */
const RANKED_DESC = [false, true, true, false, true, true];
/** ORDER BY pre DESC, search_size, created_at DESC, n DESC (rankedPage's candidates). */
const CAND_DESC = [true, false, true, true];

/**
 * The state of the entries a search covers, read in the same statement as its answer
 * (snapshotSql). `token` names them: each covered project's search_version, which every insert,
 * delete or re-index of its entries sets to a new value of one sequence, in the writer's
 * transaction (schema migration 5); changes to one project's entries are serialized by its row,
 * so a version read names exactly one set of its entries. For one project's search, also its
 * entry_count and search_epoch and the ledger's largest entry number (Growth). Null when the
 * project does not exist: nothing is saved then.
 */
interface Snapshot {
  token: string;
  count?: string;
  epoch?: string;
  maxN?: string;
}

/**
 * The projects table read whole, by its primary key: `FROM ${PROJECT_ROWS} p`. Every write of an
 * entry updates its project's row (the counters the triggers keep, schemas.ts), and PostgreSQL
 * keeps the old versions until no transaction can see them. A ledger copied in one transaction
 * (copy-ledger) leaves one version a copied entry; VACUUM frees them but keeps every page before
 * the live row, the last written, so that a plain scan still reads them all: 2,201 pages (17 MB)
 * for 100k entries, 2 ms a scan when they are cached and up to 16 ms when not, in every search
 * that reads every project. Asked in key order, the planner reads the primary key's index instead
 * (2 pages) once the table has more pages than rows, and still scans a small table.
 */
const PROJECT_ROWS = '(SELECT * FROM projects ORDER BY project_id)';

interface SnapshotSql {
  sql: string;
  params: PgValue[];
}

function snapshotSql(projectId: string | undefined): SnapshotSql {
  if (projectId === undefined) {
    return {
      sql: `json_build_object('token', (SELECT coalesce(string_agg(p.project_id || '=' || p.search_version, ',' ORDER BY p.project_id), '') FROM ${PROJECT_ROWS} p))`,
      params: [],
    };
  }
  return {
    sql: `(SELECT json_build_object('token', project_id || '=' || search_version, 'count', entry_count::text, 'epoch', search_epoch::text,
                                    'maxN', coalesce((SELECT max(n) FROM log_entries), 0)::text) FROM projects WHERE project_id = ?)`,
    params: [projectId],
  };
}

/** Growth's counters from a snapshot of one project's search (undefined for a search over every project). */
function counters(s: Snapshot | null | undefined): Pick<Growth, 'count' | 'epoch' | 'maxN'> | undefined {
  if (!s || s.count === undefined || s.epoch === undefined || s.maxN === undefined) return undefined;
  return { count: Number(s.count), epoch: s.epoch, maxN: BigInt(s.maxN) };
}

/**
 * The growth of an answer with no rows, from its snapshot: when nothing was found, any hit added
 * later changes the answer (growth counts what is not a hit); none when hits lie past the page.
 */
function emptyGrowth(snap: Snapshot | null | undefined, total: number): Growth | undefined {
  const g = counters(snap);
  return g && total === 0 ? { ...g, full: false, last: undefined, cands: 0, kth: null } : undefined;
}

/** A saved answer's row as it is now (pageRowsSql). */
interface PageRow {
  n: string;
  has_summary: boolean;
}

/** The saved page's rows still in the ledger, with whether each has a summary yet; parameters: saved.ns. */
function pageRowsSql(saved: SavedAnswer): string {
  return saved.ns.length === 0
    ? 'SELECT NULL::text AS n, false AS has_summary WHERE false'
    : `SELECT e.n::text AS n, e.summary IS NOT NULL AS has_summary FROM log_entries e WHERE e.n IN (${saved.ns.map(() => '?').join(', ')})`;
}

/**
 * The saved page with its rows' summaries as read now (the only thing of a listing that changes
 * after an entry is written), or undefined when one of its rows is gone.
 */
function pageOf(saved: SavedAnswer, rows: PageRow[], total: number): EntryPage | undefined {
  if (rows.length !== saved.ns.length) return undefined;
  const summarised = new Map(rows.map((r) => [r.n, r.has_summary]));
  return { entries: saved.entries.map((e, i) => ({ ...e, hasSummary: summarised.get(saved.ns[i]!) === true })), total };
}

/** Answers kept at most, per process (each holds one page of listings). */
export const SAVED_ANSWERS = 256;

/** Entry numbers markPhraseWords looks over per transaction. */
export const PHRASE_WORDS_BATCH = 5000;

/** The ap_meta key where markPhraseWords keeps how far entry numbers were checked (PhraseWordsMark). */
export const PHRASE_WORDS_KEY = 'phrase_words_checked';
/** The key migration 6 wrote (`after upTo`), which the build before went on from: moved into PHRASE_WORDS_KEY. */
const PHRASE_WORDS_PASS_KEY = 'phrase_words_pass';

/**
 * How far markPhraseWords has looked, stored under PHRASE_WORDS_KEY as `safe at to ends writers`.
 * Every entry numbered `safe` or less is final and was checked. A round checks (safe, to] in
 * batches and is at `at`; `to` was the largest entry number when it began, and `writers` the
 * transactions then holding a write lock on log_entries (pg_locks), the only ones that can still
 * commit an entry numbered `to` or less. When the round ends, `safe` becomes `ends`: `to` when
 * there were no writers, else the previous round's `to` once every one of its writers had ended.
 */
interface PhraseWordsMark {
  safe: number;
  at: number;
  to: number;
  ends: number;
  writers: string[];
}

function parseMark(value: string | undefined): PhraseWordsMark {
  if (value === undefined) return { safe: 0, at: 0, to: 0, ends: 0, writers: [] };
  const [safe, at, to, ends, writers] = value.split(' ');
  return { safe: Number(safe), at: Number(at), to: Number(to), ends: Number(ends), writers: !writers || writers === '-' ? [] : writers.split(',') };
}

function formatMark(m: PhraseWordsMark): string {
  return `${m.safe} ${m.at} ${m.to} ${m.ends} ${m.writers.join(',') || '-'}`;
}

/** Whether nothing is left to look at: no round under way or pending, and no entry after `safe`. */
function caughtUp(m: PhraseWordsMark, last: number): boolean {
  return m.at >= m.to && m.writers.length === 0 && m.safe >= m.to && last <= m.safe;
}

/**
 * A new round after `m`: it looks over (safe, last] and, when it ends, moves `safe` to `last` if no
 * transaction could still commit an entry numbered up to it (`writers` is empty), else to the
 * previous round's end once none of that round's writers is among them, else nowhere.
 */
function nextRound(m: PhraseWordsMark, last: number, writers: string[]): PhraseWordsMark {
  const to = Math.max(last, m.safe);
  const previousOver = m.writers.every((w) => !writers.includes(w));
  const ends = writers.length === 0 ? to : previousOver ? Math.max(m.safe, m.to) : m.safe;
  return { safe: m.safe, at: m.safe, to, ends, writers };
}

/**
 * The transactions (virtual ids) other than this one that hold or wait for a write lock on
 * log_entries. An INSERT takes it before it draws its entry number and keeps it until it ends.
 */
const LOG_ENTRIES_WRITERS_SQL = `SELECT DISTINCT virtualtransaction AS v FROM pg_locks
  WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND relation = 'log_entries'::regclass AND mode = 'RowExclusiveLock' AND pid IS DISTINCT FROM pg_backend_pid()`;

/** Rounds markPhraseWords begins per call: a second one when the first began beside writers. */
const PHRASE_WORDS_ROUNDS = 2;

/** Hits of a ranked search that ts_rank scores over their whole vector (rankedPage). */
export const RANK_CANDIDATES = 1000;

/** Entries the memory index reads per statement when it is built. */
const INDEX_BATCH = 5000;

/**
 * The memory index's rows (IndexRow) numbered above a parameter, in order, at most `limit` of them;
 * with `holes`, also those whose numbers a second parameter lists (MemoryIndex.holeList).
 */
function indexRowsSql(limit: number, holes = false): string {
  const columns = 'n::text AS n, project_id, created_at, search::text AS search, phrase_words IS NOT NULL AS lost';
  if (!holes) return `SELECT ${columns} FROM log_entries e WHERE e.n > ? ORDER BY e.n LIMIT ${limit}`;
  // Two scans of the primary key: one WHERE with an OR of both is planned as a scan of every entry.
  return `SELECT * FROM ((SELECT ${columns} FROM log_entries WHERE n > ? ORDER BY n LIMIT ${limit})
                         UNION ALL (SELECT ${columns} FROM log_entries WHERE n = ANY(?::bigint[]))) e`;
}
/**
 * The least time between the end of a build of the memory index and the next one a search starts
 * (PgStoreOptions.rebuildGapMs), beside twice the last build's time: at most a third of a core
 * goes to rebuilding, however often entries are deleted.
 */
const REBUILD_GAP_MS = 0;
/** Entries written since it was built that a search adds to the memory index itself; more, and it is built again meanwhile. */
const INDEX_CATCH_UP = 1000;

/** The projects' counters as a search reads them beside the entries written since the memory index was (indexedPage). */
interface ProjectCounters {
  project_id: string;
  entry_count: number;
  search_epoch: string;
}

/**
 * The memory index of a store that keeps one (PgStoreOptions.memoryIndex), with the search_epoch
 * of each project it read, and the build under way.
 */
interface MemoryState {
  index: MemoryIndex | undefined;
  epochs: Map<string, string>;
  building: Promise<void> | undefined;
  /** When the last build ended (performance.now()), and how long it took: a search's rebuild waits twice that after it. */
  builtAt: number;
  buildMs: number;
  /**
   * The searches reading the index, one after another from reading what was written since to
   * ranking (indexedPage): two at once would each add the same new entries, or one would rank
   * from an index a later statement than its own had moved on.
   */
  turn: Promise<unknown>;
}

export interface PgStoreOptions {
  /**
   * Answer ranked searches from an index in memory (memoryIndex.ts), built by prepareSearch:
   * for a process that serves many searches (`agent-progress-mcp --http`). About 1.8 KB per
   * entry of 150 words, and seconds per 10,000 entries to build.
   */
  memoryIndex?: boolean;
  /**
   * The least time from the end of a build to the next one that a search starts (after entries
   * were deleted or changed), in ms: twice the last build's time when that is longer (the
   * default: 0). SQL answers meanwhile. Deletions one after another (archives, a script) would
   * otherwise keep a core building: 10-16 s each at 100,000 entries.
   */
  rebuildGapMs?: number;
}

export class PgProgressStore implements ProgressStore {
  private readonly memory: MemoryState | undefined;
  private readonly rebuildGapMs: number;

  constructor(
    private readonly engine: PgEngine,
    private readonly rankCandidates = RANK_CANDIDATES,
    options: PgStoreOptions = {},
  ) {
    this.memory = options.memoryIndex ? { index: undefined, epochs: new Map(), building: undefined, builtAt: -Infinity, buildMs: 0, turn: Promise.resolve() } : undefined;
    this.rebuildGapMs = options.rebuildGapMs ?? REBUILD_GAP_MS;
  }

  /** The pass of markPhraseWords started on open (openPostgresLedger), for tests to wait for. */
  phraseWordsPass: Promise<number> | undefined;

  /** Searches answered from a saved answer, and how many of those grew over entries added first (tests read them). */
  readonly stats = { savedAnswers: 0, grown: 0, indexAnswers: 0, indexBuilds: 0 };
  /** Answers of earlier searches by query, least recently used first (searchEntries). */
  private readonly saved = new Map<string, SavedAnswer>();

  async insertEntry(entry: NewEntry): Promise<void> {
    await this.engine.write(async (tx) => {
      if (await tx.get('SELECT 1 AS x FROM log_entries WHERE id = ?', [entry.id])) {
        throw new LedgerError('conflict', `An entry with id ${entry.id} already exists`, { retryable: true });
      }
      await insertRow(tx, entry);
    });
  }

  async insertDigest(entry: NewEntry, mark: DigestMark): Promise<boolean> {
    return this.engine.write(async (tx) => {
      // The mark's key is taken first: a concurrent writer of the same part waits here, then finds it.
      const marked = await tx.get(
        'INSERT INTO digest_marks (entry_id, covered_to, covered_until, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (entry_id) DO NOTHING RETURNING entry_id',
        [entry.id, mark.coveredTo, mark.coveredUntil, entry.createdAt],
      );
      if (!marked) return false;
      if (await tx.get('SELECT 1 AS x FROM log_entries WHERE id = ?', [entry.id])) {
        await tx.run('DELETE FROM digest_marks WHERE entry_id = ?', [entry.id]);
        return false;
      }
      await insertRow(tx, entry);
      return true;
    });
  }

  async getDigestMark(entryId: string): Promise<DigestMark | undefined> {
    return this.engine.read(async (tx) => {
      const row = await tx.get<{ covered_to: string; covered_until: string | null }>('SELECT covered_to, covered_until FROM digest_marks WHERE entry_id = ?', [entryId]);
      return row ? { coveredTo: Number(row.covered_to), coveredUntil: row.covered_until } : undefined;
    });
  }

  /**
   * Rebuilds the search vectors written by an older searchWords (SEARCH_WORDS_VERSION), once per
   * database, under an advisory lock: only rows with non-ASCII text can differ. Called on open.
   */
  async reindexWords(): Promise<number> {
    return this.engine.write(async (tx) => {
      await tx.run("SELECT pg_advisory_xact_lock(hashtext('agent_progress.search_words'))");
      const row = await tx.get<{ value: string }>("SELECT value FROM ap_meta WHERE key = 'search_words'");
      if (row && Number(row.value) >= SEARCH_WORDS_VERSION) return 0;
      const rows = await tx.all<{ n: string; title: string; content: string }>(
        'SELECT n, title, content FROM log_entries WHERE octet_length(title) <> char_length(title) OR octet_length(content) <> char_length(content)',
      );
      for (const r of rows) {
        const search = entrySearch(r.title, r.content);
        await tx.run(`UPDATE log_entries SET search = ${ENTRY_SEARCH_SQL}, phrase_words = ? WHERE n = ?`, [...search.params, search.phraseWords, r.n]);
      }
      await tx.run("INSERT INTO ap_meta (key, value) VALUES ('search_words', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(SEARCH_WORDS_VERSION)]);
      return rows.length;
    });
  }

  /**
   * Gives their phrase words (search.ts entrySearch) to the entries that need them and were
   * written without: before schema migration 6, or since by a writer that does not set them (a
   * server of an older build, a bulk INSERT). Run in the background after every open
   * (openPostgresLedger), it looks over the entry numbers from where the last pass stopped
   * (PhraseWordsMark, under PHRASE_WORDS_KEY) to the largest now, in batches of `batch`, each one
   * transaction under an advisory lock: processes at it together take turns, each batch going on
   * from where the last left off. Each batch reads only the rows that PHRASE_WORDS_CANDIDATE_SQL
   * lets through and that have no phrase words yet (1.3-2 s for 100,000 entries of 1.5 KB). An
   * open with no entry since the last pass reads one row. An entry number drawn by a transaction
   * that commits later than a larger one is looked at again once that transaction has ended
   * (`writers`), so no entry is passed over for good. Stops when done or `stopped()`; the entries
   * it marks are found by phrases from then on. Returns how many it marked.
   */
  async markPhraseWords(options: { batch?: number; stopped?: () => boolean } = {}): Promise<number> {
    const batch = options.batch ?? PHRASE_WORDS_BATCH;
    const first = await this.engine.read((tx) =>
      tx.get<{ mark: string | null; pass: string | null; last: string | null }>(
        `SELECT (SELECT value FROM ap_meta WHERE key = ?) AS mark, (SELECT value FROM ap_meta WHERE key = ?) AS pass,
           (SELECT max(n) FROM log_entries) AS last`,
        [PHRASE_WORDS_KEY, PHRASE_WORDS_PASS_KEY],
      ),
    );
    if (first && first.pass === null && caughtUp(parseMark(first.mark ?? undefined), Number(first.last ?? 0))) return 0;
    let marked = 0;
    let rounds = 0;
    while (!options.stopped?.()) {
      const step = await this.engine.write(
        async (tx) => {
          // Each statement sees what committed before it (the order below relies on it).
          await tx.run('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
          await tx.run("SELECT pg_advisory_xact_lock(hashtext('agent_progress.phrase_words'))");
          const meta = new Map(
            (await tx.all<{ key: string; value: string }>('SELECT key, value FROM ap_meta WHERE key IN (?, ?)', [PHRASE_WORDS_KEY, PHRASE_WORDS_PASS_KEY])).map((r) => [
              r.key,
              r.value,
            ]),
          );
          let mark = parseMark(meta.get(PHRASE_WORDS_KEY));
          const pass = meta.get(PHRASE_WORDS_PASS_KEY);
          if (pass !== undefined) {
            // A pass of the build before, under way: what it had looked over is checked.
            const after = Number(pass.split(' ')[0]);
            const safe = meta.has(PHRASE_WORDS_KEY) ? Math.min(mark.safe, after) : after;
            mark = { safe, at: safe, to: safe, ends: safe, writers: [] };
            await tx.run('DELETE FROM ap_meta WHERE key = ?', [PHRASE_WORDS_PASS_KEY]);
          }
          if (mark.at >= mark.to) {
            // A new round, up to the largest entry number now. Every entry numbered up to it drew
            // its number before this read, so it committed before (the batches see it), or its
            // transaction is still running and holds its write lock on log_entries, read next.
            // (An entry still uncommitted when caught up is numbered after `safe`: a later round's.)
            const last = Number((await tx.get<{ last: string | null }>('SELECT max(n) AS last FROM log_entries'))?.last ?? 0);
            if (caughtUp(mark, last) || rounds >= PHRASE_WORDS_ROUNDS) {
              if (pass !== undefined) await this.saveMark(tx, mark);
              return { done: true, marked: 0 };
            }
            rounds++;
            mark = nextRound(
              mark,
              last,
              (await tx.all<{ v: string }>(LOG_ENTRIES_WRITERS_SQL)).map((r) => r.v),
            );
          }
          const upTo = Math.min(mark.at + batch, mark.to);
          const rows = await tx.all<{ n: string; title: string; content: string }>(
            `SELECT e.n, e.title, e.content FROM log_entries e WHERE e.n > ? AND e.n <= ? AND e.phrase_words IS NULL AND ${PHRASE_WORDS_CANDIDATE_SQL}`,
            [mark.at, upTo],
          );
          let k = 0;
          for (const r of rows) {
            const words = entrySearch(r.title, r.content).phraseWords;
            if (words === null) continue;
            await tx.run('UPDATE log_entries SET phrase_words = ? WHERE n = ?', [words, r.n]);
            k++;
          }
          mark.at = upTo;
          const ended = mark.at >= mark.to;
          if (ended) {
            mark.safe = Math.max(mark.safe, mark.ends);
            mark.ends = mark.safe;
          }
          await this.saveMark(tx, mark);
          // A round that began beside writers is followed by one more (they are likely over).
          return { done: ended && mark.writers.length === 0, marked: k };
        },
        { maintenance: true },
      );
      marked += step.marked;
      if (step.done) break;
    }
    return marked;
  }

  private async saveMark(tx: PgWriteTx, mark: PhraseWordsMark): Promise<void> {
    await tx.run('INSERT INTO ap_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [PHRASE_WORDS_KEY, formatMark(mark)]);
  }

  /** Entries are indexed as they are written: nothing waits. */
  async flushIndex(): Promise<void> {}

  memoryIndexStats(): MemoryIndexStats | undefined {
    const m = this.memory;
    return m
      ? { entries: m.index?.size ?? 0, answers: this.stats.indexAnswers, building: m.building !== undefined, frequent: m.index?.frequentCount ?? 0, builds: this.stats.indexBuilds }
      : undefined;
  }

  /**
   * With a memory index (PgStoreOptions), builds it, or waits for the build under way; without
   * one, PostgreSQL ranks from its own indexes and there is nothing to do.
   */
  async prepareSearch(): Promise<void> {
    if (this.memory) await this.buildIndex(true);
  }

  /**
   * Reads every entry's vector, in batches of entry numbers, in one REPEATABLE READ transaction
   * beside the projects' epochs, so that the index holds exactly the entries those counters
   * count; searches meanwhile go to SQL (or to the index built before, while it is current).
   * A search's build (not `forced`: prepareSearch's) waits rebuildGapMs, or twice the last
   * build's time, after the last build ended, failed ones included.
   */
  private buildIndex(forced = false): Promise<void> {
    const m = this.memory!;
    if (!forced && m.building === undefined && performance.now() < m.builtAt + Math.max(this.rebuildGapMs, 2 * m.buildMs)) return Promise.resolve();
    m.building ??= (async () => {
      const started = performance.now();
      try {
        const index = new MemoryIndex();
        const epochs = new Map<string, string>();
        await this.engine.read(
          async (tx) => {
            for (const p of await tx.all<{ project_id: string; search_epoch: string }>(`SELECT p.project_id, p.search_epoch::text AS search_epoch FROM ${PROJECT_ROWS} p`)) {
              epochs.set(p.project_id, p.search_epoch);
            }
            let last = '0';
            for (;;) {
              const rows = await tx.all<IndexRow>(indexRowsSql(INDEX_BATCH), [last]);
              for (const row of rows) index.add(row);
              if (rows.length < INDEX_BATCH) break;
              last = rows[rows.length - 1]!.n;
              // Parsing a batch takes a few hundred milliseconds: calls waiting meanwhile are answered between batches.
              await new Promise((resolve) => setImmediate(resolve));
            }
          },
          { snapshot: true },
        );
        index.preparePairs();
        index.trim();
        index.warm(this.rankCandidates);
        m.index = index;
        m.epochs = epochs;
        this.stats.indexBuilds++;
      } finally {
        m.building = undefined;
        m.builtAt = performance.now();
        m.buildMs = m.builtAt - started;
      }
    })();
    return m.building;
  }

  async getEntry(projectId: string, id: string): Promise<LogEntry | undefined> {
    return this.engine.read(async (tx) => {
      const row = await tx.get<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM log_entries WHERE project_id = ? AND id = ?`, [projectId, id]);
      return row ? toEntry(row) : undefined;
    });
  }

  async findEntry(id: string): Promise<LogEntry | undefined> {
    return this.engine.read(async (tx) => {
      const row = await tx.get<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM log_entries WHERE id = ?`, [id]);
      return row ? toEntry(row) : undefined;
    });
  }

  async saveSummary(projectId: string, id: string, summary: string, source: SummarySource): Promise<{ summary: string; source: SummarySource }> {
    return this.engine.write(async (tx) => {
      const row = await tx.get<{ summary: string | null; summary_source: string | null }>(
        'SELECT summary, summary_source FROM log_entries WHERE project_id = ? AND id = ? FOR UPDATE',
        [projectId, id],
      );
      if (!row) throw new LedgerError('not_found', `Entry not found: ${id} in project ${projectId}`);
      if (row.summary !== null) return { summary: row.summary, source: (row.summary_source as SummarySource | null) ?? source };
      await tx.run('UPDATE log_entries SET summary = ?, summary_source = ? WHERE project_id = ? AND id = ? AND summary IS NULL', [summary, source, projectId, id]);
      return { summary, source };
    });
  }

  async searchEntries(q: EntryQuery): Promise<EntryPage> {
    const f = filter(q);
    const key = JSON.stringify([f.where, f.params, q.limit, q.offset ?? 0]);
    const saved = this.saved.get(key);
    if (saved) {
      let page = await this.engine.read((tx) => this.savedPage(tx, q, saved));
      if (!page && saved.growth) page = await this.engine.read((tx) => this.grow(tx, q, f, saved), { indexScans: f.tsquery !== undefined });
      if (page) {
        this.save(key, saved);
        this.stats.savedAnswers++;
        return page;
      }
      this.saved.delete(key);
    }
    let answer: Answer | undefined;
    if (f.tsquery !== undefined && this.memory?.index && !q.query && (q.tags ?? []).length === 0) {
      answer = await this.indexedPage(q, f.tsquery, f.fullText!, this.memory.index);
      if (answer) this.stats.indexAnswers++;
    }
    answer ??= f.tsquery !== undefined ? await this.rankedPage(q, f, f.tsquery) : await this.listedPage(q, f);
    if (answer.token !== null) this.save(key, { token: answer.token, total: answer.page.total, ns: answer.ns, entries: answer.page.entries, growth: answer.growth });
    return answer.page;
  }

  /**
   * Brings a saved answer of one project's search up to date with the entries written to the
   * project since, when they leave its page as it is: true when it did (the answer then holds the
   * project's new token, counters and total). That is so when no entry of the project was
   * deleted or changed (its search_epoch is the same), every entry added has a number above the
   * largest the answer saw (as many as its entry_count grew by: none committed late below it),
   * and every one of them that the search finds is ordered after the page's last row, which was
   * a full page. For ranked search a new hit also may not push out of the candidates one on the
   * page, and the candidates' last must be known for a new hit to join them once they are full.
   * The page's rows are read in the same statement: the grown answer's page, or undefined.
   */
  private async grow(tx: PgReadTx, q: EntryQuery, f: Filter, saved: SavedAnswer): Promise<EntryPage | undefined> {
    const g = saved.growth;
    if (!g || q.projectId === undefined) return undefined;
    const snap = snapshotSql(q.projectId);
    const ranked = f.tsquery !== undefined;
    const hitColumns = ranked
      ? "e.n::text AS n, e.created_at, e.search_size, ts_rank(?, e.title_search, to_tsquery('simple', ?), 0) AS pre, ts_rank(?, e.search, to_tsquery('simple', ?), 1) AS rank"
      : 'e.n::text AS n, e.created_at';
    const hitParams = ranked ? [RANK_WEIGHTS, f.tsquery!, RANK_WEIGHTS, f.tsquery!] : [];
    const row = await tx.get<{
      snap: Snapshot | null;
      newer: string;
      hits: { n: string; created_at: string; search_size?: number; pre?: number; rank?: number }[];
      rows: PageRow[];
    }>(
      `SELECT ${snap.sql} AS snap,
              (SELECT count(*) FROM log_entries e WHERE e.project_id = ? AND e.n > ?) AS newer,
              (SELECT coalesce(json_agg(h), '[]') FROM (SELECT ${hitColumns} FROM log_entries e WHERE e.n > ? AND ${f.where.join(' AND ')}) h) AS hits,
              (SELECT coalesce(json_agg(r), '[]') FROM (${pageRowsSql(saved)}) r) AS rows`,
      [...snap.params, q.projectId, g.maxN.toString(), ...hitParams, g.maxN.toString(), ...f.params, ...saved.ns],
    );
    const now = counters(row?.snap);
    if (!row?.snap || !now || now.epoch !== g.epoch) return undefined;
    if (now.count - g.count !== Number(row.newer)) return undefined;
    const total = saved.total + row.hits.length;
    const page = pageOf(saved, row.rows, total);
    if (!page) return undefined;
    let cands = g.cands ?? 0;
    let kth = g.kth ?? null;
    const last = g.last;
    if (row.hits.length > 0 && (!g.full || !last)) return undefined;
    for (const h of row.hits) {
      const n = BigInt(h.n);
      if (!ranked) {
        if (compareKeys([h.created_at, n], last!, LISTED_DESC) <= 0) return undefined;
        continue;
      }
      const first: OrderKey = [h.pre!, h.search_size!, h.created_at, n];
      let joins = false;
      if (cands < this.rankCandidates) {
        joins = true;
        cands++;
        // The candidates are full now, and which is last of them is not known.
        kth = null;
      } else if (kth === null) {
        return undefined;
      } else if (compareKeys(first, kth, CAND_DESC) < 0) {
        // It joins the candidates and pushes out their last, which must not be on the page, nor the page reach past them.
        if (saved.ns.includes(String(kth[3])) || (q.offset ?? 0) + q.limit > cands) return undefined;
        joins = true;
        kth = null;
      }
      const key: OrderKey = joins ? [0, h.rank!, 0, 0, h.created_at, n] : [1, 0, h.pre!, h.search_size!, h.created_at, n];
      if (compareKeys(key, last!, RANKED_DESC) <= 0) return undefined;
    }
    saved.token = row.snap.token;
    saved.total = total;
    saved.growth = { ...g, ...now, ...(ranked ? { cands, kth } : {}) };
    this.stats.grown++;
    return page;
  }

  /** Keeps an answer for its query, the least recently used going first past SAVED_ANSWERS. */
  private save(key: string, answer: SavedAnswer): void {
    this.saved.delete(key);
    this.saved.set(key, answer);
    for (const k of this.saved.keys()) {
      if (this.saved.size <= SAVED_ANSWERS) break;
      this.saved.delete(k);
    }
  }

  /**
   * A saved answer, when the entries it was taken from are still those of the ledger: the token
   * (the search versions of the projects it covers) read in the same statement as the page's
   * rows is the one it was saved with, and every row is still there. The rows' summaries are
   * read again (the only thing of a listing that changes after an entry is written); undefined
   * sends the search the full way.
   */
  private async savedPage(tx: PgReadTx, q: EntryQuery, saved: SavedAnswer): Promise<EntryPage | undefined> {
    const snap = snapshotSql(q.projectId);
    const row = await tx.get<{ snap: Snapshot | null; rows: PageRow[] }>(
      `SELECT ${snap.sql} AS snap, (SELECT coalesce(json_agg(r), '[]') FROM (${pageRowsSql(saved)}) r) AS rows`,
      [...snap.params, ...saved.ns],
    );
    return row?.snap?.token === saved.token ? pageOf(saved, row.rows, saved.total) : undefined;
  }

  /** The seed's filters without ranked text: newest first. */
  private async listedPage(q: EntryQuery, f: Filter): Promise<Answer> {
    const snap = snapshotSql(q.projectId);
    return this.engine.read(async (tx) => {
      const counted = await this.count(tx, q, f, snap);
      if (counted.total === 0) return { page: { entries: [], total: 0 }, ns: [], token: counted.token, growth: counted.growth };
      const where = f.where.length > 0 ? f.where.join(' AND ') : 'TRUE';
      const rows = await tx.all<ListingRow & { n: string; snap: Snapshot | null }>(
        `SELECT ${LISTING_COLUMNS}, e.n, ${snap.sql} AS snap FROM log_entries e WHERE ${where} ORDER BY e.created_at DESC, e.n DESC LIMIT ? OFFSET ?`,
        [...snap.params, ...f.params, q.limit, q.offset ?? 0],
      );
      // Saved only when both statements read the same entries (another writer may commit between them).
      const same = rows.length > 0 && rows.every((r) => r.snap?.token === counted.token);
      const last = rows[rows.length - 1];
      const g = counters(last?.snap);
      return {
        page: { entries: rows.map(toListing), total: counted.total },
        ns: rows.map((r) => String(r.n)),
        token: same ? counted.token : null,
        growth: g && last ? { ...g, full: rows.length === q.limit, last: [last.created_at, BigInt(last.n)] } : undefined,
      };
    });
  }

  /**
   * A ranked page in two stages. The hits come from the GIN index, each read from its narrow row
   * (schema migration 4): counted, and given a first score from the title's words alone. The
   * best rankCandidates of them by that score (then fewer distinct words, then newest) are
   * ranked by ts_rank over the whole vector, the only rows whose vector is read; the order is
   * these, best first, then the other hits by their first score. With no more hits than
   * rankCandidates this is exactly ts_rank over every hit; beyond, the top 20 agree with it for
   * single words (a title hit outranks a content-only one) and mostly for the rest: the
   * agreement is measured in test/unit/core/storage/searchReference.test.ts. Pages are slices
   * of one order, whatever their offset.
   */
  private async rankedPage(q: EntryQuery, f: Filter, tsquery: string): Promise<Answer> {
    const where = f.where.join(' AND ');
    const offset = q.offset ?? 0;
    const k = this.rankCandidates;
    const snap = snapshotSql(q.projectId);
    // The other hits are ordered only when the page reaches past the candidates.
    const rest =
      offset + q.limit > k ? 'UNION ALL SELECT h.n, 1 AS grp, 0::real AS rank, h.pre, h.search_size, h.created_at FROM hits h WHERE h.n NOT IN (SELECT n FROM cand)' : '';
    return this.engine.read(
      async (tx) => {
        const order = await tx.all<{
          n: string;
          total: string;
          snap: Snapshot | null;
          cands: string;
          kth: { n: string; pre: number; search_size: number; created_at: string } | null;
          grp: number;
          rank: number;
          pre: number;
          search_size: number;
          created_at: string;
        }>(
          `WITH hits AS MATERIALIZED (
             SELECT e.n, e.created_at, e.search_size, ts_rank(?, e.title_search, to_tsquery('simple', ?), 0) AS pre FROM log_entries e WHERE ${where}
           ),
           cand AS MATERIALIZED (SELECT n, pre, search_size, created_at FROM hits ORDER BY pre DESC, search_size, created_at DESC, n DESC LIMIT ${k}),
           ordered AS (
             SELECT c.n, 0 AS grp, ts_rank(?, e.search, to_tsquery('simple', ?), 1) AS rank, 0::real AS pre, 0 AS search_size, e.created_at
               FROM cand c JOIN log_entries e ON e.n = c.n
             ${rest}
           )
           SELECT n, grp, rank, pre, search_size, created_at, (SELECT count(*) FROM hits) AS total, ${snap.sql} AS snap,
                  (SELECT count(*) FROM cand) AS cands,
                  (SELECT row_to_json(c) FROM (SELECT n::text AS n, pre, search_size, created_at FROM cand ORDER BY pre, search_size DESC, created_at, n LIMIT 1) c) AS kth
             FROM ordered
            ORDER BY grp, rank DESC, pre DESC, search_size, created_at DESC, n DESC LIMIT ? OFFSET ?`,
          [RANK_WEIGHTS, tsquery, ...f.params, RANK_WEIGHTS, tsquery, ...snap.params, q.limit, offset],
        );
        if (order.length === 0) {
          const counted = await this.count(tx, q, f, snap);
          return { page: { entries: [], total: counted.total }, ns: [], token: counted.token, growth: counted.growth };
        }
        const last = order[order.length - 1]!;
        const kth = last.kth ? [Number(last.kth.pre), Number(last.kth.search_size), last.kth.created_at, BigInt(last.kth.n)] : null;
        return this.rankedAnswer(tx, q, f.fullText!, order, Number(order[0]!.total), last.snap, Number(last.cands), kth);
      },
      { indexScans: true },
    );
  }

  /**
   * A ranked page from the order of its rows (rankedPage, indexedPage): the rows read with their
   * snippets, and what saving the answer takes (the token and counters of `snap`, read in the
   * same statement as the order).
   */
  private async rankedAnswer(
    tx: PgReadTx,
    q: EntryQuery,
    fullText: FullTextQuery,
    order: readonly RankedHit[],
    total: number,
    snap: Snapshot | null,
    cands: number,
    kth: OrderKey | null,
  ): Promise<Answer> {
    const rows = await tx.all<ListingRow & { n: string; content: string }>(
      `SELECT ${LISTING_COLUMNS}, e.n, e.content FROM log_entries e WHERE e.n IN (${order.map(() => '?').join(', ')})`,
      order.map((r) => r.n),
    );
    // The snippets are made here (snippet.ts), not by ts_headline: the page's texts parsed once, in JavaScript.
    for (const r of rows) r.snippet = snippetOf(fullText, r.title, r.content);
    const byN = new Map(rows.map((r) => [String(r.n), r]));
    // An entry deleted between the two statements is left out, and the answer is not saved.
    const kept = order.filter((r) => byN.has(String(r.n)));
    const last = order[order.length - 1]!;
    const g = counters(snap);
    return {
      page: { entries: kept.map((r) => toListing(byN.get(String(r.n))!)), total },
      ns: kept.map((r) => String(r.n)),
      token: kept.length === order.length ? (snap?.token ?? null) : null,
      growth: g
        ? {
            ...g,
            full: order.length === q.limit,
            last: [Number(last.grp), Number(last.rank), Number(last.pre), Number(last.search_size), last.created_at, BigInt(last.n)],
            cands,
            kth,
          }
        : undefined,
    };
  }

  /**
   * A ranked page from the memory index, the same as rankedPage's (memoryIndex.ts), or undefined
   * when the index cannot tell it (SQL answers). One statement reads the search's snapshot, the
   * query as PostgreSQL parses it, the projects' counters and the entries written since the
   * index last read (numbered above every entry it holds, or in its holes: committed late under
   * a smaller number): added to it when they are all the projects' counters grew by, else (an
   * entry deleted or changed, one committed far too late, too many) the index is built
   * again in the background and SQL answers meanwhile. Searches take turns from that statement to
   * the ranking (MemoryState.turn); the page's rows are read after.
   */
  private async indexedPage(q: EntryQuery, tsquery: string, fullText: FullTextQuery, index: MemoryIndex): Promise<Answer | undefined> {
    const m = this.memory!;
    const snap = snapshotSql(q.projectId);
    const ranked = async (): Promise<{ row: { snap: Snapshot | null }; found: IndexAnswer } | undefined> => {
      const row = await this.engine.read((tx) =>
        tx.get<{ snap: Snapshot | null; query: string; projects: ProjectCounters[]; newer: IndexRow[] }>(
          `SELECT ${snap.sql} AS snap, to_tsquery('simple', ?)::text AS query,
                (SELECT coalesce(json_agg(json_build_object('project_id', p.project_id, 'entry_count', p.entry_count, 'search_epoch', p.search_epoch::text)), '[]') FROM ${PROJECT_ROWS} p) AS projects,
                (SELECT coalesce(json_agg(r ORDER BY r.n::bigint), '[]') FROM (${indexRowsSql(INDEX_CATCH_UP + 1, true)}) r) AS newer`,
          [...snap.params, tsquery, String(index.maxN), index.holeList()],
        ),
      );
      if (!row || m.index !== index) return undefined;
      if (!this.catchUp(index, m, row.projects, row.newer)) {
        this.buildIndex().catch(() => undefined);
        return undefined;
      }
      const scope = { projectId: q.projectId, from: q.startDate ? textBound(q.startDate) : undefined, to: q.endDate ? textBound(q.endDate) : undefined };
      const found = index.search(row.query, scope, this.rankCandidates, q.offset ?? 0, q.limit);
      return found && { row, found };
    };
    const turn = m.turn.then(ranked);
    m.turn = turn.catch(() => undefined);
    const answered = await turn;
    if (!answered) return undefined;
    const { row, found } = answered;
    if (found.rows.length === 0) return { page: { entries: [], total: found.total }, ns: [], token: row.snap?.token ?? null, growth: emptyGrowth(row.snap, found.total) };
    return this.engine.read(async (tx) => {
      const order: RankedHit[] = found.rows.map((r) => ({
        n: String(r.n),
        grp: r.grp,
        rank: pgReal(r.rank),
        pre: pgReal(r.pre),
        search_size: r.searchSize,
        created_at: r.createdAt,
      }));
      const kth = found.kth ? [pgReal(found.kth.pre), found.kth.searchSize, found.kth.createdAt, BigInt(found.kth.n)] : null;
      return this.rankedAnswer(tx, q, fullText, order, found.total, row.snap, found.cands, kth);
    });
  }

  /**
   * Adds to the index the entries written since it read (`newer`, by entry number, those of its
   * holes first), when they are
   * exactly what each project's counters grew by and no project's search_epoch moved (nothing
   * deleted or changed in place); false when the index must be built again.
   */
  private catchUp(index: MemoryIndex, m: MemoryState, projects: ProjectCounters[], newer: IndexRow[]): boolean {
    if (newer.length > INDEX_CATCH_UP) return false;
    const added = new Map<string, number>();
    for (const r of newer) added.set(r.project_id, (added.get(r.project_id) ?? 0) + 1);
    const seen = new Set<string>();
    for (const p of projects) {
      seen.add(p.project_id);
      const held = index.held.get(p.project_id) ?? 0;
      if (Number(p.entry_count) !== held + (added.get(p.project_id) ?? 0)) return false;
      const epoch = m.epochs.get(p.project_id);
      if (epoch !== undefined ? epoch !== p.search_epoch : held > 0) return false;
    }
    for (const project of index.held.keys()) if (!seen.has(project)) return false;
    for (const r of newer) index.add(r);
    for (const p of projects) if (!m.epochs.has(p.project_id)) m.epochs.set(p.project_id, p.search_epoch);
    return true;
  }

  /** The number of entries the filter matches, and the token of the entries it counted. */
  private async count(tx: PgReadTx, q: EntryQuery, f: Filter, snap: SnapshotSql): Promise<{ total: number; token: string | null; growth: Growth | undefined }> {
    let sql: string;
    let params: PgValue[];
    // An unfiltered count comes from the projects' counters, as in the embedded engine.
    if (f.where.length === 1 && q.projectId !== undefined) {
      sql = '(SELECT entry_count FROM projects WHERE project_id = ?)';
      params = [q.projectId];
    } else if (f.where.length === 0) {
      sql = `(SELECT coalesce(sum(p.entry_count), 0) FROM ${PROJECT_ROWS} p)`;
      params = [];
    } else {
      sql = `(SELECT count(*) FROM log_entries e WHERE ${f.where.join(' AND ')})`;
      params = f.params;
    }
    const row = await tx.get<{ n: string | null; snap: Snapshot | null }>(`SELECT ${sql} AS n, ${snap.sql} AS snap`, [...params, ...snap.params]);
    const total = Number(row?.n ?? 0);
    return { total, token: row?.snap?.token ?? null, growth: emptyGrowth(row?.snap, total) };
  }

  async listProjects(): Promise<ProjectInfo[]> {
    return this.engine.read(async (tx) =>
      (
        await tx.all<{ project_id: string; name: string; created_at: string; entry_count: string; last_entry_at: string | null }>(
          `SELECT p.project_id, p.name, p.created_at, p.entry_count, p.last_entry_at FROM ${PROJECT_ROWS} p ORDER BY p.last_entry_at IS NULL, p.last_entry_at DESC, p.project_id`,
        )
      ).map((r) => ({ projectId: r.project_id, name: r.name, createdAt: r.created_at, entryCount: Number(r.entry_count), lastEntryAt: r.last_entry_at })),
    );
  }

  async listTags(projectId: string): Promise<TagCount[]> {
    return this.engine.read(async (tx) =>
      (
        await tx.all<{ tag: string; n: string }>('SELECT min(tag) AS tag, count(*) AS n FROM entry_tags WHERE project_id = ? GROUP BY tag_fold ORDER BY n DESC, min(tag)', [
          projectId,
        ])
      ).map((r) => ({ tag: r.tag, count: Number(r.n) })),
    );
  }
}
