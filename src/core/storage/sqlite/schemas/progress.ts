// The progress log's part of the schema. Migrations are applied in order on open, under the lock,
// and journaled like any write, so every process sharing the ledger sees them. Append; never edit
// a shipped one; statements must be deterministic.

import type { SchemaStream } from '../engine';

export const progressSchema: SchemaStream = {
  name: 'progress',
  migrations: [
    {
      version: 1,
      description: 'progress log: projects, entries, tags, full-text and title trigram indexes',
      statements: [
        // entry_count and last_entry_at are kept by triggers: listing projects and counting an
        // unfiltered project cost nothing at any size.
        `CREATE TABLE projects (
          project_id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          created_at TEXT NOT NULL,
          entry_count INTEGER NOT NULL DEFAULT 0,
          last_entry_at TEXT
        )`,
        // Content last: listing queries read the columns before it without touching overflow pages.
        `CREATE TABLE log_entries (
          id TEXT NOT NULL UNIQUE,
          project_id TEXT NOT NULL REFERENCES projects (project_id),
          created_at TEXT NOT NULL,
          title TEXT NOT NULL,
          title_fold TEXT NOT NULL,
          tags TEXT NOT NULL DEFAULT '[]',
          agent_id TEXT,
          summary TEXT,
          summary_source TEXT,
          content TEXT NOT NULL
        )`,
        'CREATE INDEX idx_entries_project_created ON log_entries (project_id, created_at)',
        'CREATE INDEX idx_entries_created ON log_entries (created_at)',
        // Project and time repeated here so that a tag filter is counted from this index alone.
        `CREATE TABLE entry_tags (
          tag_fold TEXT NOT NULL,
          project_id TEXT NOT NULL,
          created_at TEXT NOT NULL,
          entry_rowid INTEGER NOT NULL,
          tag TEXT NOT NULL,
          PRIMARY KEY (tag_fold, project_id, created_at, entry_rowid)
        ) WITHOUT ROWID`,
        'CREATE INDEX idx_entry_tags_entry ON entry_tags (entry_rowid)',
        'CREATE VIRTUAL TABLE log_entries_fts USING fts4 (content="log_entries", title, content, tokenize=unicode61)',
        'CREATE VIRTUAL TABLE log_entries_tri USING fts4 (tri, tokenize=simple)',
        // Entries wait here until a batch indexes them (full text and title trigrams): indexing one
        // at a time inside each write costs three times as much as in batches, on the write path.
        `CREATE TABLE fts_pending (
          entry_rowid INTEGER PRIMARY KEY,
          tri TEXT NOT NULL
        )`,
        `CREATE TRIGGER log_entries_ai AFTER INSERT ON log_entries BEGIN
          UPDATE projects SET entry_count = entry_count + 1,
                 last_entry_at = CASE WHEN last_entry_at IS NULL OR new.created_at > last_entry_at THEN new.created_at ELSE last_entry_at END
           WHERE project_id = new.project_id;
        END`,
        `CREATE TRIGGER log_entries_bd BEFORE DELETE ON log_entries BEGIN
          DELETE FROM log_entries_fts WHERE docid = old.rowid AND NOT EXISTS (SELECT 1 FROM fts_pending WHERE entry_rowid = old.rowid);
          DELETE FROM log_entries_tri WHERE docid = old.rowid;
          DELETE FROM fts_pending WHERE entry_rowid = old.rowid;
          DELETE FROM entry_tags WHERE entry_rowid = old.rowid;
        END`,
        `CREATE TRIGGER log_entries_ad AFTER DELETE ON log_entries BEGIN
          UPDATE projects SET entry_count = entry_count - 1,
                 last_entry_at = (SELECT max(created_at) FROM log_entries WHERE project_id = old.project_id)
           WHERE project_id = old.project_id;
        END`,
        `CREATE TRIGGER log_entries_bu BEFORE UPDATE OF title, content ON log_entries BEGIN
          DELETE FROM log_entries_fts WHERE docid = old.rowid AND NOT EXISTS (SELECT 1 FROM fts_pending WHERE entry_rowid = old.rowid);
        END`,
        `CREATE TRIGGER log_entries_au AFTER UPDATE OF title, content ON log_entries
          WHEN NOT EXISTS (SELECT 1 FROM fts_pending WHERE entry_rowid = new.rowid) BEGIN
          INSERT INTO log_entries_fts (docid, title, content) VALUES (new.rowid, new.title, new.content);
        END`,
      ],
    },
    {
      version: 2,
      description: 'search epoch: counts deletions and title or content changes of entries',
      statements: [
        // Ranked search's term index (sqlite/termIndex.ts) and saved hits (sqlite/rankedHits.ts)
        // follow entries appended since; anything else that changes the indexed text bumps this.
        'CREATE TABLE search_epoch (id INTEGER PRIMARY KEY CHECK (id = 0), changes INTEGER NOT NULL)',
        'INSERT INTO search_epoch (id, changes) VALUES (0, 0)',
        `CREATE TRIGGER log_entries_epoch_ad AFTER DELETE ON log_entries BEGIN
          UPDATE search_epoch SET changes = changes + 1 WHERE id = 0;
        END`,
        `CREATE TRIGGER log_entries_epoch_au AFTER UPDATE OF title, content ON log_entries BEGIN
          UPDATE search_epoch SET changes = changes + 1 WHERE id = 0;
        END`,
      ],
    },
    {
      version: 3,
      description: 'digest marks: which session digest parts were written, kept when their entries are archived or deleted',
      statements: ['CREATE TABLE digest_marks (entry_id TEXT PRIMARY KEY, covered_to INTEGER NOT NULL, covered_until TEXT, created_at TEXT NOT NULL)'],
    },
  ],
};
