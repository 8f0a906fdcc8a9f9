// ProgressStore on the embedded engine: every SQL statement of the progress log lives here.

import { LedgerError } from '../../errors';
import type { EntryListing, EntryPage, EntryQuery, LogEntry, NewEntry, ProjectInfo, SummarySource, TagCount } from '../../progress/types';
import { fold } from '../../text';
import type { ProgressStore } from '../store';
import type { ReadTx, SqliteEngine, SqlValue } from './engine';
import { fullTextMatch, titleTrigramDoc, titleTrigramMatch } from './search';

interface EntryRow {
  id: string;
  project_id: string;
  title: string;
  content: string;
  summary: string | null;
  summary_source: string | null;
  created_at: string;
  tags: string;
  agent_id: string | null;
}

interface ListingRow {
  id: string;
  project_id: string;
  title: string;
  created_at: string;
  tags: string;
  agent_id: string | null;
  has_summary: number;
  snippet?: string;
}

const ENTRY_COLUMNS = 'id, project_id, title, content, summary, summary_source, created_at, tags, agent_id';
const LISTING_COLUMNS = 'e.id, e.project_id, e.title, e.created_at, e.tags, e.agent_id, e.summary IS NOT NULL AS has_summary';

function parseTags(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

function toEntry(row: EntryRow): LogEntry {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    content: row.content,
    summary: row.summary,
    summarySource: (row.summary_source as SummarySource | null) ?? null,
    createdAt: row.created_at,
    tags: parseTags(row.tags),
    agentId: row.agent_id,
  };
}

function toListing(row: ListingRow): EntryListing {
  const listing: EntryListing = {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    createdAt: row.created_at,
    tags: parseTags(row.tags),
    agentId: row.agent_id,
    hasSummary: row.has_summary === 1,
  };
  if (typeof row.snippet === 'string') listing.snippet = row.snippet.replace(/\s+/g, ' ').trim();
  return listing;
}

interface Filter {
  where: string[];
  params: SqlValue[];
  /** FTS expression when the query is a full-text search. */
  match: string | undefined;
}

/**
 * A date bound as text comparable with created_at (always a 4-digit year): instants past 9999 or
 * before 0000, which toISOString writes as +010000-... or -000001-..., become the range's ends.
 */
function textBound(iso: string): string {
  if (iso.startsWith('+')) return '9999-12-31T23:59:59.999Z';
  if (iso.startsWith('-')) return '0000-01-01T00:00:00.000Z';
  return iso;
}

function buildFilter(q: EntryQuery): Filter {
  const where: string[] = ['1'];
  const params: SqlValue[] = [];
  if (q.projectId !== undefined) {
    where.push('e.project_id = ?');
    params.push(q.projectId);
  }
  const query = q.query ? fold(q.query) : '';
  if (query.length > 0) {
    const tri = titleTrigramMatch(query);
    if (tri) {
      where.push('e.rowid IN (SELECT docid FROM log_entries_tri WHERE log_entries_tri MATCH ?)');
      params.push(tri);
    }
    where.push('instr(e.title_fold, ?) > 0');
    params.push(query);
  }
  for (const tag of q.tags ?? []) {
    where.push('e.rowid IN (SELECT entry_rowid FROM entry_tags WHERE tag_fold = ?)');
    params.push(fold(tag.trim()));
  }
  if (q.startDate) {
    where.push('e.created_at >= ?');
    params.push(textBound(q.startDate));
  }
  if (q.endDate) {
    where.push('e.created_at <= ?');
    params.push(textBound(q.endDate));
  }
  let match: string | undefined;
  if (q.text !== undefined && q.text.trim() !== '') {
    match = fullTextMatch(q.text);
    if (!match) throw new LedgerError('invalid_argument', 'text has no words to search for: give at least one word or "phrase"');
  }
  return { where, params, match };
}

export class SqliteProgressStore implements ProgressStore {
  constructor(private readonly engine: SqliteEngine) {}

  async insertEntry(entry: NewEntry): Promise<void> {
    const titleFold = fold(entry.title);
    const tags = entry.tags;
    await this.engine.write((tx) => {
      if (tx.get('SELECT 1 AS x FROM log_entries WHERE id = ?', [entry.id])) {
        throw new LedgerError('conflict', `An entry with id ${entry.id} already exists`, { retryable: true });
      }
      tx.run('INSERT OR IGNORE INTO projects (project_id, name, created_at) VALUES (?, ?, ?)', [entry.projectId, entry.projectId, entry.createdAt]);
      tx.run(
        'INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [entry.id, entry.projectId, entry.createdAt, entry.title, titleFold, JSON.stringify(tags), entry.agentId, entry.content],
      );
      tx.run('INSERT INTO log_entries_tri (docid, tri) SELECT rowid, ? FROM log_entries WHERE id = ?', [titleTrigramDoc(titleFold), entry.id]);
      for (const tag of tags) {
        tx.run('INSERT OR IGNORE INTO entry_tags (tag_fold, entry_rowid, tag) SELECT ?, rowid, ? FROM log_entries WHERE id = ?', [fold(tag), tag, entry.id]);
      }
    });
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
      const row = tx.get<{ summary: string | null; summary_source: string | null }>(
        'SELECT summary, summary_source FROM log_entries WHERE project_id = ? AND id = ?',
        [projectId, id],
      );
      if (!row) throw new LedgerError('not_found', `Entry not found: ${id} in project ${projectId}`);
      if (row.summary !== null) return { summary: row.summary, source: (row.summary_source as SummarySource | null) ?? source };
      tx.run('UPDATE log_entries SET summary = ?, summary_source = ? WHERE project_id = ? AND id = ? AND summary IS NULL', [summary, source, projectId, id]);
      return { summary, source };
    });
  }

  async searchEntries(q: EntryQuery): Promise<EntryPage> {
    const filter = buildFilter(q);
    return this.engine.read((tx) => (filter.match ? this.fullText(tx, q, filter) : this.byDate(tx, q, filter)));
  }

  private byDate(tx: ReadTx, q: EntryQuery, f: Filter): EntryPage {
    const where = f.where.join(' AND ');
    const total = Number(tx.get<{ n: number }>(`SELECT count(*) AS n FROM log_entries e WHERE ${where}`, f.params)?.n ?? 0);
    if (total === 0) return { entries: [], total };
    const rows = tx.all<ListingRow>(
      `SELECT ${LISTING_COLUMNS} FROM log_entries e WHERE ${where} ORDER BY e.created_at DESC, e.rowid DESC LIMIT ? OFFSET ?`,
      [...f.params, q.limit, q.offset ?? 0],
    );
    return { entries: rows.map(toListing), total };
  }

  private fullText(tx: ReadTx, q: EntryQuery, f: Filter): EntryPage {
    const where = f.where.join(' AND ');
    const match = f.match!;
    const total = Number(
      tx.get<{ n: number }>(
        `SELECT count(*) AS n FROM log_entries e WHERE e.rowid IN (SELECT docid FROM log_entries_fts WHERE log_entries_fts MATCH ?) AND ${where}`,
        [match, ...f.params],
      )?.n ?? 0,
    );
    if (total === 0) return { entries: [], total };
    const rows = tx.all<ListingRow>(
      `SELECT ${LISTING_COLUMNS}, ap_bm25(matchinfo(log_entries_fts, 'pcnalx')) AS score,
              snippet(log_entries_fts, '', '', '…', -1, 14) AS snippet
         FROM log_entries_fts JOIN log_entries e ON e.rowid = log_entries_fts.docid
        WHERE log_entries_fts MATCH ? AND ${where}
        ORDER BY score DESC, e.created_at DESC, e.rowid DESC LIMIT ? OFFSET ?`,
      [match, ...f.params, q.limit, q.offset ?? 0],
    );
    return { entries: rows.map(toListing), total };
  }

  async listProjects(): Promise<ProjectInfo[]> {
    return this.engine.read((tx) =>
      tx
        .all<{ project_id: string; name: string; created_at: string; n: number; last: string | null }>(
          `SELECT p.project_id, p.name, p.created_at,
                  (SELECT count(*) FROM log_entries e WHERE e.project_id = p.project_id) AS n,
                  (SELECT max(e.created_at) FROM log_entries e WHERE e.project_id = p.project_id) AS last
             FROM projects p ORDER BY last IS NULL, last DESC, p.project_id`,
        )
        .map((r) => ({ projectId: r.project_id, name: r.name, createdAt: r.created_at, entryCount: Number(r.n), lastEntryAt: r.last })),
    );
  }

  async listTags(projectId: string): Promise<TagCount[]> {
    return this.engine.read((tx) =>
      tx
        .all<{ tag: string; n: number }>(
          `SELECT min(t.tag) AS tag, count(*) AS n FROM entry_tags t JOIN log_entries e ON e.rowid = t.entry_rowid
            WHERE e.project_id = ? GROUP BY t.tag_fold ORDER BY n DESC, tag`,
          [projectId],
        )
        .map((r) => ({ tag: r.tag, count: Number(r.n) })),
    );
  }
}
