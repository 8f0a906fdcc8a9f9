// ProgressStore on the embedded engine: every SQL statement of the progress log lives here.

import { LedgerError } from '../../errors';
import type { DigestMark, EntryPage, EntryQuery, LogEntry, NewEntry, ProjectInfo, SummarySource, TagCount } from '../../progress/types';
import { fold } from '../../text';
import type { ProgressStore } from '../store';
import type { SqlJsStatic } from 'sql.js';
import type { ReadTx, SqliteEngine, SqlValue, WriteTx } from './engine';
import { pageSnippets, ProjectRows, RankedHitsCache, unicode61Tokens, type RowFilter } from './rankedHits';
import { fullTextMatch, parseFullText, titleTrigramMatch } from './search';
import { loadSqlJs } from './sqlJs';
import { TermIndex } from './termIndex';
import { TitleIndex } from './titleIndex';
import { writeSqliteEntry } from './entryWriter';
import { runSync } from '../sql/statements';
import { ENTRY_COLUMNS, LISTING_COLUMNS, toEntry, toListing, textBound, type EntryRow, type ListingRow } from '../rows/progressRows';

/** Above this many candidates, a date-ordered listing walks the date index instead of sorting them. */
const SORT_CANDIDATES_MAX = 2_000;
/** Entries indexed per write transaction when catching up on fts_pending. */
const INDEX_BATCH = 500;
/** Pending entries that make a writer index at once rather than when idle. */
const INDEX_SOON = 200;
const INDEX_IDLE_MS = 250;

/** An entry's rows: the entry, its project, its tags, and its place in the index queue (fts_pending). */
function insertRow(tx: WriteTx, entry: NewEntry): void {
  runSync(writeSqliteEntry({ ...entry, summary: null, summarySource: null }), tx);
}

/**
 * Where the rows of a search come from. The most selective source drives the query (full-text
 * hits, title trigram hits, one tag's rows), so that counting matches at 100k entries does not
 * walk the whole project; everything else is a condition on the joined row.
 */
type Driver = { kind: 'text'; match: string } | { kind: 'title'; match: string } | { kind: 'tag'; tag: string } | { kind: 'range' };

interface Plan {
  driver: Driver;
  /** Conditions on `e` (log_entries) and their parameters. */
  where: string[];
  params: SqlValue[];
  /** Tag, project and date conditions only: counted and listed from entry_tags alone. */
  tagOnly: { where: string; params: SqlValue[] } | undefined;
}

function plan(tx: ReadTx, q: EntryQuery): Plan {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const start = q.startDate ? textBound(q.startDate) : undefined;
  const end = q.endDate ? textBound(q.endDate) : undefined;
  if (q.projectId !== undefined) {
    where.push('e.project_id = ?');
    params.push(q.projectId);
  }
  if (start) {
    where.push('e.created_at >= ?');
    params.push(start);
  }
  if (end) {
    where.push('e.created_at <= ?');
    params.push(end);
  }
  let driver: Driver = { kind: 'range' };
  if (q.text !== undefined && q.text.trim() !== '') {
    const match = fullTextMatch(q.text);
    if (!match) throw new LedgerError('invalid_argument', 'text has no words to search for: give at least one word or "phrase"');
    driver = { kind: 'text', match };
  }
  const query = q.query ? fold(q.query) : '';
  if (query.length > 0) {
    const tri = titleTrigramMatch(query);
    if (driver.kind === 'range' && tri) driver = { kind: 'title', match: tri };
    else if (tri) {
      where.push('e.rowid IN (SELECT docid FROM log_entries_tri WHERE log_entries_tri MATCH ?)');
      params.push(tri);
    }
    where.push('instr(e.title_fold, ?) > 0');
    params.push(query);
  }
  let tags = [...new Set((q.tags ?? []).map((t) => fold(t.trim())))];
  if (driver.kind === 'range' && tags.length > 0) {
    // Drive from the rarest tag: its rows in entry_tags, counted through the index.
    const sized = tags.map((tag) => ({ tag, n: countTagRows(tx, tagRows({ tag, otherTags: [], projectId: q.projectId, start, end })) })).sort((a, b) => a.n - b.n);
    driver = { kind: 'tag', tag: sized[0]!.tag };
    tags = tags.filter((t) => t !== sized[0]!.tag);
  }
  // Every other tag is a lookup of the entry's own few tags (idx_entry_tags_entry), not a set of
  // all the rows with that tag built first.
  for (const tag of tags) {
    where.push('EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_rowid = e.rowid AND t.tag_fold = ?)');
    params.push(tag);
  }
  const tagOnly = driver.kind === 'tag' && query.length === 0 ? tagRows({ tag: driver.tag, otherTags: tags, projectId: q.projectId, start, end }) : undefined;
  return { driver, where, params, tagOnly };
}

/**
 * A search by tags, project and dates only, as conditions on entry_tags `d` alone: its primary key
 * (tag, project, time, entry) counts the rows, and within one project also yields them newest
 * first, so a page stops after its last row instead of sorting every match.
 */
function tagRows(o: { tag: string; otherTags: readonly string[]; projectId: string | undefined; start: string | undefined; end: string | undefined }): {
  where: string;
  params: SqlValue[];
} {
  const where = ['d.tag_fold = ?'];
  const params: SqlValue[] = [o.tag];
  if (o.projectId !== undefined) {
    where.push('d.project_id = ?');
    params.push(o.projectId);
  }
  if (o.start) {
    where.push('d.created_at >= ?');
    params.push(o.start);
  }
  if (o.end) {
    where.push('d.created_at <= ?');
    params.push(o.end);
  }
  for (const tag of o.otherTags) {
    where.push('EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_rowid = d.entry_rowid AND t.tag_fold = ?)');
    params.push(tag);
  }
  return { where: where.join(' AND '), params };
}

function countTagRows(tx: ReadTx, rows: { where: string; params: SqlValue[] }): number {
  return Number(tx.get<{ n: number }>(`SELECT count(*) AS n FROM entry_tags d WHERE ${rows.where}`, rows.params)?.n ?? 0);
}

/** The driver as a FROM clause producing `d.rowid`, and its parameters. */
function driverSource(driver: Driver): { from: string; params: SqlValue[] } {
  switch (driver.kind) {
    case 'text':
      return { from: '(SELECT docid AS rowid FROM log_entries_fts WHERE log_entries_fts MATCH ?)', params: [driver.match] };
    case 'title':
      return { from: '(SELECT docid AS rowid FROM log_entries_tri WHERE log_entries_tri MATCH ?)', params: [driver.match] };
    case 'tag':
      return { from: '(SELECT entry_rowid AS rowid FROM entry_tags WHERE tag_fold = ?)', params: [driver.tag] };
    case 'range':
      return { from: '', params: [] };
  }
}

export class SqliteProgressStore implements ProgressStore {
  private indexTimer: NodeJS.Timeout | undefined;
  private pendingHere = 0;
  private indexing: Promise<void> | undefined;
  private readonly ranked = new RankedHitsCache();
  private readonly terms = new TermIndex();
  private readonly titles = new TitleIndex();
  private readonly projectRows = new ProjectRows();

  constructor(private readonly engine: SqliteEngine) {}

  async insertEntry(entry: NewEntry): Promise<void> {
    await this.engine.write((tx) => {
      // The id's UNIQUE index refuses a duplicate (a query first cost every write a statement);
      // the write's savepoint undoes the project row it may have added.
      try {
        insertRow(tx, entry);
      } catch (err) {
        if (/UNIQUE constraint failed: log_entries\.id\b/.test(err instanceof Error ? err.message : '')) {
          throw new LedgerError('conflict', `An entry with id ${entry.id} already exists`, { retryable: true });
        }
        throw err;
      }
    });
    this.scheduleIndexing();
  }

  async insertDigest(entry: NewEntry, mark: DigestMark): Promise<boolean> {
    const inserted = await this.engine.write((tx) => {
      if (tx.get('SELECT 1 AS x FROM digest_marks WHERE entry_id = ?', [entry.id]) || tx.get('SELECT 1 AS x FROM log_entries WHERE id = ?', [entry.id])) return false;
      insertRow(tx, entry);
      tx.run('INSERT INTO digest_marks (entry_id, covered_to, covered_until, created_at) VALUES (?, ?, ?, ?)', [entry.id, mark.coveredTo, mark.coveredUntil, entry.createdAt]);
      return true;
    });
    if (inserted) this.scheduleIndexing();
    return inserted;
  }

  async getDigestMark(entryId: string): Promise<DigestMark | undefined> {
    const row = this.engine.read((tx) =>
      tx.get<{ covered_to: number; covered_until: string | null }>('SELECT covered_to, covered_until FROM digest_marks WHERE entry_id = ?', [entryId]),
    );
    return row ? { coveredTo: Number(row.covered_to), coveredUntil: row.covered_until } : undefined;
  }

  /**
   * Indexes entries waiting in fts_pending, in batches, each its own journaled transaction. Any
   * process may do it (whoever searches first, or the writer when idle); it is deterministic.
   */
  async flushIndex(): Promise<void> {
    this.indexing ??= (async () => {
      try {
        for (;;) {
          const done = await this.engine.write(
            (tx) => {
              const n = Number(tx.get<{ n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM fts_pending LIMIT ?)', [INDEX_BATCH])?.n ?? 0);
              if (n === 0) return 0;
              tx.run(
                `INSERT INTO log_entries_fts (docid, title, content)
                 SELECT e.rowid, e.title, e.content FROM log_entries e
                  WHERE e.rowid IN (SELECT entry_rowid FROM fts_pending ORDER BY entry_rowid LIMIT ?) ORDER BY e.rowid`,
                [INDEX_BATCH],
              );
              tx.run('INSERT INTO log_entries_tri (docid, tri) SELECT entry_rowid, tri FROM fts_pending ORDER BY entry_rowid LIMIT ?', [INDEX_BATCH]);
              tx.run('DELETE FROM fts_pending WHERE entry_rowid IN (SELECT entry_rowid FROM fts_pending ORDER BY entry_rowid LIMIT ?)', [INDEX_BATCH]);
              return n;
            },
            { maintenance: true },
          );
          // Less than a full batch (or nothing at all) means the queue is empty now.
          if (!(done >= INDEX_BATCH)) return;
        }
      } finally {
        this.pendingHere = 0;
        this.indexing = undefined;
      }
    })();
    return this.indexing;
  }

  async prepareSearch(): Promise<void> {
    await this.flushIndex();
    await this.terms.prepareInSteps((fn) => this.engine.read(fn));
  }

  private scheduleIndexing(): void {
    this.pendingHere++;
    if (this.indexTimer) clearTimeout(this.indexTimer);
    const run = (): void => {
      this.indexTimer = undefined;
      this.flushIndex().catch(() => undefined); // a search indexes whatever is left
    };
    if (this.pendingHere >= INDEX_SOON) {
      setImmediate(run);
      return;
    }
    this.indexTimer = setTimeout(run, INDEX_IDLE_MS);
    this.indexTimer.unref();
  }

  private async ensureIndexed(q: EntryQuery): Promise<void> {
    const needsIndex = (q.text !== undefined && q.text.trim() !== '') || (q.query !== undefined && q.query.trim() !== '');
    if (!needsIndex) return;
    const pending = this.engine.read((tx) => tx.get<{ x: number }>('SELECT 1 AS x FROM fts_pending LIMIT 1'));
    if (pending) await this.flushIndex();
  }
  async getEntry(projectId: string, id: string): Promise<LogEntry | undefined> {
    return this.engine.read((tx) => {
      const row = tx.get<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM log_entries WHERE project_id = ? AND id = ?`, [projectId, id]);
      return row ? toEntry(row) : undefined;
    });
  }

  async findEntry(id: string): Promise<LogEntry | undefined> {
    return this.engine.read((tx) => {
      const row = tx.get<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM log_entries WHERE id = ?`, [id]);
      return row ? toEntry(row) : undefined;
    });
  }

  async saveSummary(projectId: string, id: string, summary: string, source: SummarySource): Promise<{ summary: string; source: SummarySource }> {
    return this.engine.write((tx) => {
      const row = tx.get<{ summary: string | null; summary_source: string | null }>('SELECT summary, summary_source FROM log_entries WHERE project_id = ? AND id = ?', [
        projectId,
        id,
      ]);
      if (!row) throw new LedgerError('not_found', `Entry not found: ${id} in project ${projectId}`);
      if (row.summary !== null) return { summary: row.summary, source: (row.summary_source as SummarySource | null) ?? source };
      tx.run('UPDATE log_entries SET summary = ?, summary_source = ? WHERE project_id = ? AND id = ? AND summary IS NULL', [summary, source, projectId, id]);
      return { summary, source };
    });
  }

  async searchEntries(q: EntryQuery): Promise<EntryPage> {
    await this.ensureIndexed(q);
    const sql = q.text !== undefined ? await loadSqlJs() : undefined;
    return this.engine.read((tx) => {
      const ranked = sql ? this.rankedPage(tx, q, sql) : undefined;
      if (ranked) return ranked;
      const titled = this.titlePage(tx, q);
      if (titled) return titled;
      const p = plan(tx, q);
      const total = this.count(tx, q, p);
      if (total === 0) return { entries: [], total };
      return { entries: this.list(tx, q, p, total).map(toListing), total };
    });
  }

  /**
   * Ranked text over every entry or one project's (no other filter) from the saved hits of the
   * query (rankedHits.ts); undefined when the SQL plan answers instead.
   */
  private rankedPage(tx: ReadTx, q: EntryQuery, sql: SqlJsStatic): EntryPage | undefined {
    if (q.text === undefined || q.text.trim() === '' || (q.query !== undefined && q.query !== '') || (q.tags ?? []).length > 0 || q.startDate || q.endDate) return undefined;
    const query = parseFullText(q.text);
    if (!query) return undefined; // plan() refuses it with its message
    let only: RowFilter | undefined;
    if (q.projectId !== undefined) {
      const covers = tx.get<{ x: number }>('SELECT 1 AS x FROM projects WHERE project_id = ? AND entry_count = (SELECT sum(entry_count) FROM projects)', [q.projectId]);
      if (!covers) only = this.projectRows.filter(tx, q.projectId);
    }
    const page = this.terms.page(tx, query, q.offset ?? 0, q.limit, only, (text) => unicode61Tokens(sql, text)) ?? this.ranked.page(tx, query, q.offset ?? 0, q.limit, only);
    if (!page) return undefined;
    if (page.rowids.length === 0) return { entries: [], total: page.total };
    const rows = tx.all<ListingRow & { docid: number; content: string }>(
      `SELECT ${LISTING_COLUMNS}, e.rowid AS docid, e.content FROM log_entries e WHERE e.rowid IN (${page.rowids.map(() => '?').join(',')})`,
      page.rowids,
    );
    const snippets = pageSnippets(
      sql,
      query.match,
      rows.map((r) => ({ rowid: Number(r.docid), title: r.title, content: r.content })),
    );
    const byRowid = new Map(rows.map((r) => [Number(r.docid), r]));
    const entries = page.rowids.flatMap((rowid) => {
      const row = byRowid.get(rowid);
      if (!row) return [];
      const { content: _content, docid: _docid, ...listing } = row;
      const snippet = snippets.get(rowid);
      return [toListing(snippet === undefined ? listing : { ...listing, snippet })];
    });
    return { entries, total: page.total };
  }

  /** The specification's title substring (with any of its filters, without `text`) from the title index. */
  private titlePage(tx: ReadTx, q: EntryQuery): EntryPage | undefined {
    if (q.text !== undefined && q.text.trim() !== '') return undefined;
    const query = q.query ? fold(q.query) : '';
    if (query.length === 0) return undefined;
    const page = this.titles.search(
      tx,
      {
        query,
        projectId: q.projectId,
        start: q.startDate ? textBound(q.startDate) : undefined,
        end: q.endDate ? textBound(q.endDate) : undefined,
        tags: [...new Set((q.tags ?? []).map((t) => fold(t.trim())))],
      },
      q.offset ?? 0,
      q.limit,
    );
    if (page.rowids.length === 0) return { entries: [], total: page.total };
    const rows = tx.all<ListingRow & { docid: number }>(
      `SELECT ${LISTING_COLUMNS}, e.rowid AS docid FROM log_entries e WHERE e.rowid IN (${page.rowids.map(() => '?').join(',')})`,
      page.rowids,
    );
    const byRowid = new Map(rows.map(({ docid, ...listing }) => [Number(docid), listing]));
    return { entries: page.rowids.flatMap((r) => (byRowid.has(r) ? [toListing(byRowid.get(r)!)] : [])), total: page.total };
  }

  private count(tx: ReadTx, q: EntryQuery, p: Plan): number {
    const where = p.where.length > 0 ? p.where.join(' AND ') : '1';
    if (p.driver.kind === 'range') {
      if (p.where.length === 1 && q.projectId !== undefined) {
        return Number(tx.get<{ n: number }>('SELECT entry_count AS n FROM projects WHERE project_id = ?', [q.projectId])?.n ?? 0);
      }
      if (p.where.length === 0) return Number(tx.get<{ n: number }>('SELECT coalesce(sum(entry_count), 0) AS n FROM projects')?.n ?? 0);
      return Number(tx.get<{ n: number }>(`SELECT count(*) AS n FROM log_entries e WHERE ${where}`, p.params)?.n ?? 0);
    }
    if (p.tagOnly) return countTagRows(tx, p.tagOnly);
    const src = driverSource(p.driver);
    return Number(
      tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${src.from} d CROSS JOIN log_entries e ON e.rowid = d.rowid WHERE ${where}`, [...src.params, ...p.params])?.n ?? 0,
    );
  }

  private list(tx: ReadTx, q: EntryQuery, p: Plan, total: number): ListingRow[] {
    const where = p.where.length > 0 ? p.where.join(' AND ') : '1';
    const page = [q.limit, q.offset ?? 0];
    if (p.driver.kind === 'text') {
      // Rank every match, but build listings and snippets for the page only: SQLite computes a
      // row's columns before sorting, and a snippet for each of 25,000 matches costs 10x the rank.
      const top = tx.all<{ docid: number }>(
        `SELECT e.rowid AS docid FROM log_entries_fts CROSS JOIN log_entries e ON e.rowid = log_entries_fts.docid
          WHERE log_entries_fts MATCH ? AND ${where}
          ORDER BY ap_bm25(matchinfo(log_entries_fts, 'pcnalx')) DESC, e.created_at DESC, e.rowid DESC LIMIT ? OFFSET ?`,
        [p.driver.match, ...p.params, ...page],
      );
      if (top.length === 0) return [];
      const rows = new Map<number, ListingRow>();
      for (const { docid } of top) {
        const row = tx.get<ListingRow & { docid: number }>(
          `SELECT ${LISTING_COLUMNS}, e.rowid AS docid, snippet(log_entries_fts, '', '', '…', -1, 14) AS snippet
             FROM log_entries_fts CROSS JOIN log_entries e ON e.rowid = log_entries_fts.docid
            WHERE log_entries_fts MATCH ? AND log_entries_fts.docid = ?`,
          [p.driver.match, docid],
        );
        if (row) rows.set(docid, row);
      }
      return top.flatMap(({ docid }) => rows.get(docid) ?? []);
    }
    if (p.tagOnly) {
      return tx.all<ListingRow>(
        `SELECT ${LISTING_COLUMNS} FROM entry_tags d CROSS JOIN log_entries e ON e.rowid = d.entry_rowid
          WHERE ${p.tagOnly.where} ORDER BY d.created_at DESC, d.entry_rowid DESC LIMIT ? OFFSET ?`,
        [...p.tagOnly.params, ...page],
      );
    }
    if (p.driver.kind !== 'range' && total <= SORT_CANDIDATES_MAX) {
      const src = driverSource(p.driver);
      return tx.all<ListingRow>(
        `SELECT ${LISTING_COLUMNS} FROM ${src.from} d CROSS JOIN log_entries e ON e.rowid = d.rowid
          WHERE ${where} ORDER BY e.created_at DESC, e.rowid DESC LIMIT ? OFFSET ?`,
        [...src.params, ...p.params, ...page],
      );
    }
    // Many candidates: walk the date index newest first and stop at the page's end.
    const extra: string[] = [];
    const params = [...p.params];
    if (p.driver.kind !== 'range') {
      const src = driverSource(p.driver);
      extra.push(`e.rowid IN ${src.from.replace(/ AS rowid/, '')}`);
      params.push(...src.params);
    }
    const index = q.projectId !== undefined ? 'idx_entries_project_created' : 'idx_entries_created';
    return tx.all<ListingRow>(
      `SELECT ${LISTING_COLUMNS} FROM log_entries e INDEXED BY ${index}
        WHERE ${[where, ...extra].join(' AND ')} ORDER BY e.created_at DESC, e.rowid DESC LIMIT ? OFFSET ?`,
      [...params, ...page],
    );
  }

  async listProjects(): Promise<ProjectInfo[]> {
    return this.engine.read((tx) =>
      tx
        .all<{
          project_id: string;
          name: string;
          created_at: string;
          entry_count: number;
          last_entry_at: string | null;
        }>('SELECT project_id, name, created_at, entry_count, last_entry_at FROM projects ORDER BY last_entry_at IS NULL, last_entry_at DESC, project_id')
        .map((r) => ({ projectId: r.project_id, name: r.name, createdAt: r.created_at, entryCount: Number(r.entry_count), lastEntryAt: r.last_entry_at })),
    );
  }

  async listTags(projectId: string): Promise<TagCount[]> {
    return this.engine.read((tx) =>
      tx
        .all<{ tag: string; n: number }>('SELECT min(tag) AS tag, count(*) AS n FROM entry_tags WHERE project_id = ? GROUP BY tag_fold ORDER BY n DESC, tag', [projectId])
        .map((r) => ({ tag: r.tag, count: Number(r.n) })),
    );
  }
}
