// How the embedded engine stores an entry, new (SqliteProgressStore.insertEntry, insertDigest) or
// imported and restored: the row, its tags, and a place in the index queue (fts_pending) that
// indexing drains.

import { fold } from '../../text';
import { run, type Sql } from '../sql/statements';
import type { ImportedEntry } from '../sql/transferRepo';
import { titleTrigramDoc } from './search';

export function* writeSqliteEntry(e: ImportedEntry): Sql<void> {
  const titleFold = fold(e.title);
  yield* run('INSERT OR IGNORE INTO projects (project_id, name, created_at) VALUES (?, ?, ?)', [e.projectId, e.projectId, e.createdAt]);
  yield* run('INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, summary, summary_source, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
    e.id,
    e.projectId,
    e.createdAt,
    e.title,
    titleFold,
    JSON.stringify(e.tags),
    e.agentId,
    e.summary,
    e.summarySource,
    e.content,
  ]);
  yield* run('INSERT INTO fts_pending (entry_rowid, tri) SELECT rowid, ? FROM log_entries WHERE id = ?', [titleTrigramDoc(titleFold), e.id]);
  for (const tag of e.tags) {
    yield* run('INSERT OR IGNORE INTO entry_tags (tag_fold, project_id, created_at, entry_rowid, tag) SELECT ?, project_id, created_at, rowid, ? FROM log_entries WHERE id = ?', [
      fold(tag),
      tag,
      e.id,
    ]);
  }
}
