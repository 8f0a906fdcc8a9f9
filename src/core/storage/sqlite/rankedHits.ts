// Ranked full-text search without scoring every hit on every call. FTS4 (sql.js has no FTS5) can
// only rank by calling a function per matching row, so a term found in most of 100k entries costs
// hundreds of milliseconds per search. Instead, the first search of a query saves what BM25 needs
// of each hit (its phrase counts and column lengths, as matchinfo gives them) and the index-wide
// numbers; later searches score the saved hits in plain JavaScript, pick the page with a bounded
// heap, and build snippets from a scratch FTS4 table holding the page's entries only.
//
// Exactness: scores are computed by the same function as the SQL path (`bm25Of`) from the same
// integers, so the order, ties included, is the one `ORDER BY ap_bm25(...) DESC, created_at DESC,
// rowid DESC` gives. Saved hits follow the ledger: entries appended since are tokenized here and
// added (only while their text and the query are ASCII, where the unicode61 rule is "letters and
// digits, lower-cased"), and the index's own totals (%_stat) must then agree with the sums of what
// was added, or the hits are rebuilt. A deletion or a change of an entry's text bumps
// search_epoch (schema migration 2 of the progress stream) and drops them.

import type { Database, SqlJsStatic } from 'sql.js';
import type { ReadTx, SqlValue } from './engine';
import { bm25Of, collecting, matchinfoWords, type FullTextQuery, type Phrase } from './search';

/** Indexed columns, in the FTS table's order: title, content. */
const COLUMNS = 2;
/** Entries appended since the hits were saved that are tokenized here rather than rebuilding. */
const MAX_APPENDED = 2_000;
/** Saved queries, and saved hits in all, kept at most (least recently used go first). */
const MAX_QUERIES = 32;
const MAX_SAVED_HITS = 1_500_000;

class Words {
  data = new Uint32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

export interface Totals {
  /** Documents in the index. */
  n: number;
  /** Tokens in each column over every document. */
  tokens: number[];
}

interface SavedHits {
  query: FullTextQuery;
  epoch: number;
  /** Every indexed entry with a rowid up to this one is accounted for. */
  upto: number;
  totals: Totals;
  /** Documents with the phrase in the column, whole index: [phrase * COLUMNS + column]. */
  docsWithHit: number[];
  rowids: Words;
  /** Per hit, per phrase and column: occurrences of the phrase. */
  tf: Words;
  /** Per hit, per column: its length in tokens. */
  len: Words;
  /** Entries appended later can be tokenized here (the query is ASCII, the totals agreed). */
  extendable: boolean;
  scores: Float64Array | undefined;
  /** The last page's candidates, while the scores and the filter stay the same. */
  top: { want: number; key: string | undefined; candidates: number[] } | undefined;
  /** Indexes of the hits a filter keeps, while the hits stay the same. */
  kept: { key: string; indices: Uint32Array } | undefined;
}

/** Which entries a ranked page may list (a project's), by rowid; `key` names the filter. */
export interface RowFilter {
  key: string;
  has(rowid: number): boolean;
}

export interface RankedPage {
  total: number;
  /** The page's rowids, best first. */
  rowids: number[];
}

const ASCII = /^[^\u0080-\u{10ffff}]*$/u;
const TOKEN = /[a-z0-9]+/g;

function tokensOf(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** Occurrences of `phrase` in `tokens` (each start position counts, as FTS4's position lists do). */
function phraseCount(tokens: readonly string[], phrase: Phrase, words: readonly string[]): number {
  let count = 0;
  const last = words.length - 1;
  for (let i = 0; i + last < tokens.length; i++) {
    let ok = true;
    for (let k = 0; k <= last && ok; k++) {
      const t = tokens[i + k]!;
      ok = k === last && phrase.prefix ? t.startsWith(words[k]!) : t === words[k];
    }
    if (ok) count++;
  }
  return count;
}

/** Reads FTS4's own totals: the %_stat row 0 blob is varints, the document count then tokens per column. */
export function readTotals(tx: ReadTx): Totals | undefined {
  const row = tx.get<{ value: SqlValue }>('SELECT value FROM log_entries_fts_stat WHERE id = 0');
  if (!row || !(row.value instanceof Uint8Array)) return undefined;
  const blob = row.value;
  const values: number[] = [];
  let at = 0;
  while (at < blob.length && values.length < 1 + COLUMNS) {
    let v = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = blob[at++]!;
      v += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80 && at < blob.length);
    values.push(v);
  }
  if (values.length < 1 + COLUMNS) return undefined;
  return { n: values[0]!, tokens: values.slice(1) };
}

/** The average column lengths as matchinfo's 'a' gives them: rounded, in 32-bit integers. */
export function averages(t: Totals): number[] {
  return t.tokens.map((tokens) => (t.n === 0 ? 0 : Math.floor(((tokens % 2 ** 32) + Math.floor(t.n / 2)) / t.n) >>> 0));
}

/** The search_epoch counter: it moves when an entry is deleted or its title or content changes. */
export function epochOf(tx: ReadTx): number {
  return Number(tx.get<{ changes: number }>('SELECT changes FROM search_epoch WHERE id = 0')?.changes ?? -1);
}

/** The last entry's rowid (0 when none): entries above what a cache has seen were appended since. */
export function maxRowid(tx: ReadTx): number {
  return Number(tx.get<{ m: number | null }>('SELECT max(rowid) AS m FROM log_entries')?.m ?? 0);
}

/** Saved BM25 inputs of ranked queries, for one ledger. Used inside the engine's read transactions. */
export class RankedHitsCache {
  private readonly saved = new Map<string, SavedHits>();
  /** Queries answered by asking FTS4 for every hit, and saved hits brought up to date with appended entries. */
  readonly stats = { builds: 0, followed: 0 };

  /**
   * The total and one page of the ranked hits of `query` over the whole ledger, or undefined when
   * the index has entries waiting to be indexed (the caller answers from SQL then).
   */
  page(tx: ReadTx, query: FullTextQuery, offset: number, limit: number, only?: RowFilter): RankedPage | undefined {
    if (tx.get('SELECT 1 AS x FROM fts_pending LIMIT 1')) return undefined;
    const hits = this.current(tx, query);
    // The hits the filter keeps (BM25's numbers stay the whole index's, as in the SQL path).
    let among: Uint32Array | undefined;
    if (only) {
      if (hits.kept?.key !== only.key) {
        const kept: number[] = [];
        for (let i = 0; i < hits.rowids.length; i++) if (only.has(hits.rowids.data[i]!)) kept.push(i);
        hits.kept = { key: only.key, indices: Uint32Array.from(kept) };
        hits.top = undefined;
      }
      among = hits.kept.indices;
    }
    const total = among ? among.length : hits.rowids.length;
    if (total === 0 || offset >= total) return { total, rowids: [] };
    const scores = (hits.scores ??= this.score(hits));
    const want = Math.min(total, offset + limit);
    if (hits.top?.want !== want || hits.top.key !== only?.key) {
      hits.top = { want, key: only?.key, candidates: topCandidates(scores, hits.rowids.data, among ?? hits.rowids.length, want) };
    }
    return { total, rowids: orderCandidates(tx, [...hits.top.candidates], scores, hits.rowids.data, offset, want) };
  }

  private current(tx: ReadTx, query: FullTextQuery): SavedHits {
    const key = query.match;
    let hits = this.saved.get(key);
    if (hits) {
      this.saved.delete(key);
      if (!this.follow(tx, hits)) hits = undefined;
    }
    hits ??= this.build(tx, query);
    this.remember(key, hits);
    return hits;
  }

  private remember(key: string, hits: SavedHits): void {
    this.saved.set(key, hits);
    let held = 0;
    for (const h of this.saved.values()) held += h.rowids.length;
    for (const [k, h] of this.saved) {
      if (this.saved.size <= MAX_QUERIES && held <= MAX_SAVED_HITS) break;
      if (k === key) continue;
      this.saved.delete(k);
      held -= h.rowids.length;
    }
  }

  /** All hits of the query from FTS4, with the numbers BM25 needs; one matchinfo per hit. */
  private build(tx: ReadTx, query: FullTextQuery): SavedHits {
    this.stats.builds++;
    const p = query.phrases.length;
    const hits: SavedHits = {
      query,
      epoch: epochOf(tx),
      upto: maxRowid(tx),
      totals: { n: 0, tokens: [] },
      docsWithHit: new Array<number>(p * COLUMNS).fill(0),
      rowids: new Words(),
      tf: new Words(),
      len: new Words(),
      extendable: false,
      scores: undefined,
      top: undefined,
      kept: undefined,
    };
    let header: { n: number; avg: number[]; p: number } | undefined;
    collecting(
      (docid, blob) => {
        const m = matchinfoWords(blob);
        if (!m) return;
        if (!header) {
          header = { p: m[0]!, n: m[2]!, avg: [m[3]!, m[4]!] };
          for (let i = 0; i < p * COLUMNS; i++) hits.docsWithHit[i] = m[3 + 2 * COLUMNS + 3 * i + 2]!;
        }
        hits.rowids.push(docid);
        for (let i = 0; i < p * COLUMNS; i++) hits.tf.push(m[3 + 2 * COLUMNS + 3 * i]!);
        for (let j = 0; j < COLUMNS; j++) hits.len.push(m[3 + COLUMNS + j]!);
      },
      () => tx.all("SELECT docid FROM log_entries_fts WHERE log_entries_fts MATCH ? ORDER BY ap_collect(docid, matchinfo(log_entries_fts, 'pcnalx')) LIMIT 1", [query.match]),
    );
    const totals = readTotals(tx);
    if (totals) hits.totals = totals;
    // Later entries can be added here only if this process reads the index's totals as matchinfo
    // does, the phrases are numbered as expected, and the query is one the ASCII rule tokenizes.
    const h = header;
    hits.extendable =
      totals !== undefined &&
      h !== undefined &&
      h.p === p &&
      h.n === totals.n &&
      averages(totals).every((a, j) => a === h.avg[j]) &&
      [...query.phrases, ...query.negatives].every((ph) => ph.words.every((w) => ASCII.test(w)));
    return hits;
  }

  /**
   * Brings saved hits up to date with entries appended since; false when they must be rebuilt
   * (an entry deleted or changed, too many appended, non-ASCII text, totals that disagree).
   */
  private follow(tx: ReadTx, hits: SavedHits): boolean {
    if (epochOf(tx) !== hits.epoch) return false;
    const totals = readTotals(tx);
    if (!totals) return false;
    if (totals.n === hits.totals.n && totals.tokens.every((t, j) => t === hits.totals.tokens[j])) return true;
    if (!hits.extendable) return false;
    const rows = tx.all<{ r: number; title: string; content: string }>('SELECT rowid AS r, title, content FROM log_entries WHERE rowid > ? ORDER BY rowid LIMIT ?', [
      hits.upto,
      MAX_APPENDED + 1,
    ]);
    if (rows.length > MAX_APPENDED || hits.totals.n + rows.length !== totals.n) return false;
    const q = hits.query;
    const p = q.phrases.length;
    const words = (ph: Phrase): string[] => ph.words.map((w) => w.toLowerCase());
    const phraseWords = q.phrases.map(words);
    const negativeWords = q.negatives.map(words);
    let numbered = 0;
    const groupPhrases = q.groups.map((group) => group.map(() => numbered++));
    const tokenSums = [...hits.totals.tokens];
    const docsWithHit = [...hits.docsWithHit];
    const added: { rowid: number; tf: number[]; len: number[] }[] = [];
    for (const row of rows) {
      if (!ASCII.test(row.title) || !ASCII.test(row.content)) return false;
      const columns = [tokensOf(row.title), tokensOf(row.content)];
      const tf: number[] = [];
      for (let i = 0; i < p; i++) {
        for (let j = 0; j < COLUMNS; j++) {
          const count = phraseCount(columns[j]!, q.phrases[i]!, phraseWords[i]!);
          tf.push(count);
          if (count > 0) docsWithHit[i * COLUMNS + j]!++;
        }
      }
      for (let j = 0; j < COLUMNS; j++) tokenSums[j]! += columns[j]!.length;
      const has = (i: number): boolean => tf[i * COLUMNS]! > 0 || tf[i * COLUMNS + 1]! > 0;
      const matches = groupPhrases.some((group) => group.every(has));
      const excluded = q.negatives.some((ph, k) => columns.some((col) => phraseCount(col, ph, negativeWords[k]!) > 0));
      if (matches && !excluded) added.push({ rowid: Number(row.r), tf, len: columns.map((c) => c.length) });
    }
    if (!tokenSums.every((t, j) => t === totals.tokens[j])) return false;
    for (const a of added) {
      hits.rowids.push(a.rowid);
      for (const v of a.tf) hits.tf.push(v);
      for (const v of a.len) hits.len.push(v);
    }
    hits.docsWithHit = docsWithHit;
    hits.totals = totals;
    hits.upto = rows.length > 0 ? Number(rows[rows.length - 1]!.r) : hits.upto;
    hits.scores = undefined;
    hits.top = undefined;
    hits.kept = undefined;
    this.stats.followed++;
    return true;
  }

  /** Every hit's BM25, through the layout of matchinfo 'pcnalx' that bm25Of reads. */
  private score(hits: SavedHits): Float64Array {
    const p = hits.query.phrases.length;
    const pc = p * COLUMNS;
    const m = new Float64Array(3 + 2 * COLUMNS + 3 * pc);
    m[0] = p;
    m[1] = COLUMNS;
    m[2] = hits.totals.n;
    const avg = averages(hits.totals);
    for (let j = 0; j < COLUMNS; j++) m[3 + j] = avg[j]!;
    for (let i = 0; i < pc; i++) m[3 + 2 * COLUMNS + 3 * i + 2] = hits.docsWithHit[i]!;
    const total = hits.rowids.length;
    const scores = new Float64Array(total);
    const tf = hits.tf.data;
    const len = hits.len.data;
    for (let h = 0; h < total; h++) {
      for (let j = 0; j < COLUMNS; j++) m[3 + COLUMNS + j] = len[h * COLUMNS + j]!;
      for (let i = 0; i < pc; i++) m[3 + 2 * COLUMNS + 3 * i] = tf[h * pc + i]!;
      scores[h] = bm25Of(m);
    }
    return scores;
  }
}

/**
 * Indexes of the `want` best hits by score (rowid breaks ties here), plus every hit scoring the
 * same as the last of them: the final order by date is decided among these, and any hit left out
 * scores lower than `want` of them.
 */
export function topCandidates(scores: Float64Array, rowids: Uint32Array, among: number | Uint32Array, want: number): number[] {
  const total = typeof among === 'number' ? among : among.length;
  const at = (k: number): number => (typeof among === 'number' ? k : among[k]!);
  if (total <= want * 4) return Array.from({ length: total }, (_, k) => at(k));
  // A min-heap of the best `want` so far, worst on top.
  const heap: number[] = [];
  const worse = (a: number, b: number): boolean => scores[a]! < scores[b]! || (scores[a] === scores[b] && rowids[a]! < rowids[b]!);
  const up = (k: number): void => {
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (!worse(heap[k]!, heap[parent]!)) break;
      [heap[k], heap[parent]] = [heap[parent]!, heap[k]!];
      k = parent;
    }
  };
  const down = (k: number): void => {
    for (;;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let m = k;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === k) return;
      [heap[k], heap[m]] = [heap[m]!, heap[k]!];
      k = m;
    }
  };
  // The worst score kept so far, once the heap is full: most hits score below it and are skipped
  // with one comparison.
  let floor = -Infinity;
  for (let k = 0; k < total; k++) {
    const i = at(k);
    if (scores[i]! < floor) continue;
    if (heap.length < want) {
      heap.push(i);
      up(heap.length - 1);
      if (heap.length === want) floor = scores[heap[0]!]!;
    } else if (worse(heap[0]!, i)) {
      heap[0] = i;
      down(0);
      floor = scores[heap[0]!]!;
    }
  }
  const bound = scores[heap[0]!]!;
  const inHeap = new Set(heap);
  for (let k = 0; k < total; k++) {
    const i = at(k);
    if (scores[i] === bound && !inHeap.has(i)) heap.push(i);
  }
  return heap;
}

/**
 * The rowids at [offset, want) of the final order of `candidates` (indexes into `scores` and
 * `rowids`, as topCandidates gives them): score, then date newest first, then rowid, as the SQL
 * path's ORDER BY. The dates of the candidates are read here.
 */
export function orderCandidates(tx: ReadTx, candidates: number[], scores: Float64Array, rowids: Uint32Array, offset: number, want: number): number[] {
  const created = new Map<number, string>();
  const ids = candidates.map((i) => rowids[i]!);
  for (let at = 0; at < ids.length; at += 500) {
    const chunk = ids.slice(at, at + 500);
    for (const r of tx.all<{ r: number; c: string }>(`SELECT rowid AS r, created_at AS c FROM log_entries WHERE rowid IN (${chunk.map(() => '?').join(',')})`, chunk)) {
      created.set(Number(r.r), r.c);
    }
  }
  candidates.sort((a, b) => {
    const d = scores[b]! - scores[a]!;
    if (d !== 0) return d;
    const ca = created.get(rowids[a]!) ?? '';
    const cb = created.get(rowids[b]!) ?? '';
    if (ca !== cb) return ca < cb ? 1 : -1;
    return rowids[b]! - rowids[a]!;
  });
  return candidates.slice(offset, want).map((i) => rowids[i]!);
}

/**
 * The rowids of a project's entries, for ranked pages within a project that holds only part of
 * the ledger: read from the (project, date) index alone, followed through appends like the hits.
 */
export class ProjectRows {
  private readonly held = new Map<string, { epoch: number; upto: number; rows: Set<number> }>();

  filter(tx: ReadTx, projectId: string): RowFilter {
    const epoch = epochOf(tx);
    const max = maxRowid(tx);
    let held = this.held.get(projectId);
    if (held && (held.epoch !== epoch || max < held.upto)) held = undefined;
    if (!held) {
      const json = tx.get<{ j: string }>('SELECT json_group_array(rowid) AS j FROM log_entries INDEXED BY idx_entries_project_created WHERE project_id = ?', [projectId])?.j;
      held = { epoch, upto: max, rows: new Set(JSON.parse(json ?? '[]') as number[]) };
      if (this.held.size >= 8) this.held.delete(this.held.keys().next().value!);
      this.held.set(projectId, held);
    } else if (max > held.upto) {
      for (const r of tx.all<{ r: number }>('SELECT rowid AS r FROM log_entries WHERE rowid > ? AND project_id = ?', [held.upto, projectId])) held.rows.add(Number(r.r));
      held.upto = max;
    }
    const rows = held.rows;
    return { key: `project:${projectId}:${epoch}:${max}`, has: (rowid) => rows.has(rowid) };
  }
}

let scratch: { sql: SqlJsStatic; db: Database } | undefined;

/** An in-memory database of this sql.js: an FTS4 table for snippets, unicode61's tokenizer as a table. */
function scratchDb(sql: SqlJsStatic): Database {
  if (scratch?.sql !== sql) {
    const db = new sql.Database();
    db.run('CREATE VIRTUAL TABLE s USING fts4 (title, content, tokenize=unicode61)');
    db.run('CREATE VIRTUAL TABLE tok USING fts3tokenize(unicode61)');
    scratch = { sql, db };
  }
  return scratch.db;
}

/**
 * The tokens unicode61 makes of `text` (folded, diacritics removed), by FTS4's own tokenizer:
 * what the ledger's MATCH makes of a phrase, so the term index looks up the terms it stored.
 */
export function unicode61Tokens(sql: SqlJsStatic, text: string): string[] {
  const select = scratchDb(sql).prepare('SELECT token FROM tok WHERE input = ? ORDER BY position');
  try {
    select.bind([text]);
    const out: string[] = [];
    while (select.step()) out.push(String(select.get()[0]));
    return out;
  } finally {
    select.free();
  }
}

/**
 * Snippets of a page of entries, as the ledger's FTS4 table gives them (snippet() reads only the
 * entry's own text and the query's positions in it): a scratch in-memory FTS4 table holds these
 * entries alone for the call (a transaction rolled back), so the query's doclists over the whole
 * ledger are not read once per entry.
 */
export function pageSnippets(sql: SqlJsStatic, match: string, rows: readonly { rowid: number; title: string; content: string }[]): Map<number, string> {
  const out = new Map<number, string>();
  if (rows.length === 0) return out;
  const db = scratchDb(sql);
  db.run('BEGIN');
  try {
    const insert = db.prepare('INSERT INTO s (docid, title, content) VALUES (?, ?, ?)');
    try {
      for (const r of rows) insert.run([r.rowid, r.title, r.content]);
    } finally {
      insert.free();
    }
    const select = db.prepare("SELECT docid, snippet(s, '', '', '…', -1, 14) AS snippet FROM s WHERE s MATCH ?");
    try {
      select.bind([match]);
      while (select.step()) {
        const [docid, snippet] = select.get();
        if (typeof snippet === 'string') out.set(Number(docid), snippet);
      }
    } finally {
      select.free();
    }
  } finally {
    db.run('ROLLBACK');
  }
  return out;
}
