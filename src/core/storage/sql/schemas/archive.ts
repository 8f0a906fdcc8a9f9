// Retention's part of the schema: progress entries a person archived, out of every default read
// (search, context, the views) but kept whole so that they can be restored or exported.
// Append migrations; never edit a shipped one; statements must be deterministic.

import type { Dialect } from '../dialect';
import { createTable, type SchemaStream } from '../schema';

export const archiveSchema = (d: Dialect): SchemaStream => ({
  name: 'archive',
  migrations: [
    {
      version: 1,
      description: 'archived progress entries',
      statements: [
        createTable(d, 'log_entries_archive', [
          'id TEXT PRIMARY KEY',
          'project_id TEXT NOT NULL',
          'created_at TEXT NOT NULL',
          'title TEXT NOT NULL',
          "tags TEXT NOT NULL DEFAULT '[]'",
          'agent_id TEXT',
          'summary TEXT',
          'summary_source TEXT',
          'content TEXT NOT NULL',
          'archived_at TEXT NOT NULL',
        ]),
        'CREATE INDEX idx_entries_archive_project ON log_entries_archive (project_id, created_at)',
      ],
    },
  ],
});
