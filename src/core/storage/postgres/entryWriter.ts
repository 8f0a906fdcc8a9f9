// How PostgreSQL stores an entry, new (PgProgressStore.insertEntry, insertDigest) or imported and
// restored: the row with its search vector (and its phrase words where the vector may lose
// positions), and its tags (the project counters follow by trigger).

import { fold } from '../../text';
import { get, run, type Sql } from '../sql/statements';
import type { ImportedEntry } from '../sql/transferRepo';
import { ENTRY_SEARCH_SQL, entrySearch } from './search';

export function* writePgEntry(e: ImportedEntry): Sql<void> {
  yield* run('INSERT INTO projects (project_id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [e.projectId, e.projectId, e.createdAt]);
  // phrase_words: null unless the vector may lose positions (search.ts entrySearch).
  const search = entrySearch(e.title, e.content);
  const row = yield* get<{ n: string }>(
    `INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, summary, summary_source, content, search, phrase_words)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${ENTRY_SEARCH_SQL}, ?) RETURNING n`,
    [e.id, e.projectId, e.createdAt, e.title, fold(e.title), JSON.stringify(e.tags), e.agentId, e.summary, e.summarySource, e.content, ...search.params, search.phraseWords],
  );
  for (const tag of e.tags) {
    yield* run('INSERT INTO entry_tags (tag_fold, project_id, created_at, entry_n, tag) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', [
      fold(tag),
      e.projectId,
      e.createdAt,
      row!.n,
      tag,
    ]);
  }
}
