// What ranked search shares beside the term index (termIndex.ts), which answers it: FTS4's own
// totals (%_stat), the search epoch, choosing a page's candidates among scored hits with a
// bounded heap, the rows of one project, and snippets from a scratch FTS4 table holding only the
// page's entries. When the term index cannot answer (while it is built, after a failed check, a
// phrase unicode61 finds no token in), the SQL plan ranks every hit with FTS4 itself (search.ts).

import type { Database, SqlJsStatic } from 'sql.js';
import type { ReadTx, SqlValue } from './engine';

/** Indexed columns, in the FTS table's order: title, content. */
const COLUMNS = 2;

export interface Totals {
  /** Documents in the index. */
  n: number;
  /** Tokens in each column over every document. */
  tokens: number[];
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
