// The specification's `query` (a substring of the title, case- and width-insensitive) without a scan of the
// ledger per search: every entry's folded title, date, project and folded tags are held here in the
// listing's order (newest first), and a search walks them once with String.includes, counting the
// matches and keeping the page. At 100k entries that is a few milliseconds, however many titles
// match; the FTS4 trigram table only narrows rare substrings and still reads every candidate row.
//
// It follows the ledger as the ranked-hits cache does: entries appended since (rowid above the last
// one seen) are read and put in place; a deletion or a change of an entry's text bumps
// search_epoch and rebuilds it.

import type { ReadTx, SqlValue } from './engine';
import { epochOf, maxRowid } from './rankedHits';

/** Appended entries put in place one by one; more than this rebuilds the whole index. */
const MAX_APPENDED = 5_000;

export interface TitleFilter {
  /** Folded substring of the title (non-empty). */
  query: string;
  projectId: string | undefined;
  /** ISO bounds as the SQL compares them (text). */
  start: string | undefined;
  end: string | undefined;
  /** Folded tags, each required. */
  tags: readonly string[];
}

interface Rows {
  epoch: number;
  upto: number;
  rowid: number[];
  fold: string[];
  created: string[];
  project: string[];
  /** Folded tags, or undefined for none. */
  tags: (string[] | undefined)[];
}

/** true when entry a lists before entry b: newer first, then the later rowid. */
function before(createdA: string, rowidA: number, createdB: string, rowidB: number): boolean {
  return createdA > createdB || (createdA === createdB && rowidA > rowidB);
}

export class TitleIndex {
  private rows: Rows | undefined;
  readonly stats = { builds: 0, followed: 0 };

  /** The total and one page (rowids, in listing order) of the entries matching `f`. */
  search(tx: ReadTx, f: TitleFilter, offset: number, limit: number): { total: number; rowids: number[] } {
    const rows = this.current(tx);
    const { fold, created, project, tags, rowid } = rows;
    const out: number[] = [];
    let total = 0;
    const end = offset + limit;
    for (let i = 0; i < fold.length; i++) {
      if (!fold[i]!.includes(f.query)) continue;
      if (f.projectId !== undefined && project[i] !== f.projectId) continue;
      if (f.start !== undefined && created[i]! < f.start) continue;
      if (f.end !== undefined && created[i]! > f.end) continue;
      if (f.tags.length > 0) {
        const own = tags[i];
        if (!own || !f.tags.every((t) => own.includes(t))) continue;
      }
      if (total >= offset && total < end) out.push(rowid[i]!);
      total++;
    }
    return { total, rowids: out };
  }

  private current(tx: ReadTx): Rows {
    const epoch = epochOf(tx);
    const rows = this.rows;
    if (rows && rows.epoch === epoch && this.follow(tx, rows)) return rows;
    this.rows = this.build(tx, epoch);
    return this.rows;
  }

  private build(tx: ReadTx, epoch: number): Rows {
    this.stats.builds++;
    const rows: Rows = { epoch, upto: 0, rowid: [], fold: [], created: [], project: [], tags: [] };
    // One JSON text for all rows: sql.js builds a JavaScript object per result row, which costs
    // ten times more than parsing the same rows from one string.
    const json = tx.get<{ j: string }>(
      `SELECT json_group_array(json_array(rowid, title_fold, created_at, project_id)) AS j
         FROM (SELECT rowid, title_fold, created_at, project_id FROM log_entries ORDER BY created_at DESC, rowid DESC)`,
    )?.j;
    const all = JSON.parse(json ?? '[]') as [number, string, string, string][];
    // The aggregate reads the subquery's rows in its order; checked, and sorted here if not.
    const ordered = all.every((row, i) => i === 0 || before(all[i - 1]![2], all[i - 1]![0], row[2], row[0]));
    if (!ordered) all.sort((a, b) => (before(a[2], a[0], b[2], b[0]) ? -1 : 1));
    const at = new Map<number, number>();
    for (const [r, f, c, p] of all) {
      at.set(r, rows.rowid.length);
      rows.rowid.push(r);
      rows.fold.push(f);
      rows.created.push(c);
      rows.project.push(p);
      rows.tags.push(undefined);
      if (r > rows.upto) rows.upto = r;
    }
    const tags = JSON.parse(tx.get<{ j: string }>('SELECT json_group_array(json_array(entry_rowid, tag_fold)) AS j FROM entry_tags')?.j ?? '[]') as [number, string][];
    for (const [r, t] of tags) {
      const i = at.get(r);
      if (i !== undefined) (rows.tags[i] ??= []).push(t);
    }
    return rows;
  }

  /** Puts entries appended since in place; false when a rebuild is cheaper or needed. */
  private follow(tx: ReadTx, rows: Rows): boolean {
    const max = maxRowid(tx);
    if (max === rows.upto) return true;
    if (max < rows.upto) return false;
    const added = tx.all<{ r: number; f: string; c: string; p: string }>(
      'SELECT rowid AS r, title_fold AS f, created_at AS c, project_id AS p FROM log_entries WHERE rowid > ? ORDER BY rowid LIMIT ?',
      [rows.upto, MAX_APPENDED + 1],
    );
    if (added.length > MAX_APPENDED) return false;
    const ids: SqlValue[] = added.map((a) => Number(a.r));
    const tagsOf = new Map<number, string[]>();
    for (let k = 0; k < ids.length; k += 500) {
      const chunk = ids.slice(k, k + 500);
      for (const t of tx.all<{ r: number; t: string }>(`SELECT entry_rowid AS r, tag_fold AS t FROM entry_tags WHERE entry_rowid IN (${chunk.map(() => '?').join(',')})`, chunk)) {
        const list = tagsOf.get(Number(t.r)) ?? [];
        list.push(t.t);
        tagsOf.set(Number(t.r), list);
      }
    }
    for (const a of added) {
      const r = Number(a.r);
      // Binary search for the first entry that lists after this one.
      let lo = 0;
      let hi = rows.rowid.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (before(rows.created[mid]!, rows.rowid[mid]!, a.c, r)) lo = mid + 1;
        else hi = mid;
      }
      rows.rowid.splice(lo, 0, r);
      rows.fold.splice(lo, 0, a.f);
      rows.created.splice(lo, 0, a.c);
      rows.project.splice(lo, 0, a.p);
      rows.tags.splice(lo, 0, tagsOf.get(r));
      rows.upto = r;
    }
    this.stats.followed++;
    return true;
  }
}
