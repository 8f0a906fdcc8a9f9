// Review runs' part of the schema: runs (with the definition they started from), their agents,
// the actions agents queue for a person, review threads with their comments, and the run's events.
// Append migrations; never edit a shipped one; statements must be deterministic.

import type { SchemaStream } from '../engine';

export const reviewSchema: SchemaStream = {
  name: 'review',
  migrations: [
    {
      version: 1,
      description: 'review runs: runs, agents, actions, threads, comments, events',
      statements: [
        `CREATE TABLE rv_runs (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          project_id TEXT NOT NULL,
          workflow TEXT NOT NULL,
          definition TEXT NOT NULL,
          phase TEXT NOT NULL,
          context TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          phase_changed_at TEXT NOT NULL,
          finished_at TEXT,
          started_by TEXT NOT NULL
        )`,
        'CREATE INDEX idx_rv_runs_project ON rv_runs (project_id, n)',
        'CREATE INDEX idx_rv_runs_finished ON rv_runs (finished_at, n)',
        `CREATE TABLE rv_agents (
          run_id TEXT NOT NULL,
          position INTEGER NOT NULL,
          name TEXT NOT NULL,
          description TEXT,
          state TEXT NOT NULL,
          started_at TEXT,
          completed_at TEXT,
          duration_ms INTEGER,
          summary TEXT,
          starts INTEGER NOT NULL DEFAULT 0,
          completions INTEGER NOT NULL DEFAULT 0,
          anomalies TEXT NOT NULL DEFAULT '[]',
          PRIMARY KEY (run_id, name)
        ) WITHOUT ROWID`,
        `CREATE TABLE rv_threads (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          run_id TEXT NOT NULL,
          file TEXT,
          line INTEGER,
          end_line INTEGER,
          status TEXT NOT NULL,
          created_at TEXT NOT NULL,
          created_by TEXT NOT NULL,
          resolved_at TEXT,
          resolved_by TEXT,
          action_id TEXT
        )`,
        'CREATE INDEX idx_rv_threads_run ON rv_threads (run_id, n)',
        `CREATE TABLE rv_comments (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          thread_id TEXT NOT NULL,
          author TEXT NOT NULL,
          body TEXT NOT NULL,
          created_at TEXT NOT NULL
        )`,
        'CREATE INDEX idx_rv_comments_thread ON rv_comments (thread_id, n)',
        `CREATE TABLE rv_actions (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          run_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          target TEXT NOT NULL,
          text TEXT NOT NULL,
          original_text TEXT,
          status TEXT NOT NULL,
          created_at TEXT NOT NULL,
          created_by TEXT,
          edited_by TEXT,
          decided_at TEXT,
          decided_by TEXT,
          note TEXT,
          thread_id TEXT
        )`,
        'CREATE INDEX idx_rv_actions_run ON rv_actions (run_id, n)',
        `CREATE TABLE rv_events (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          run_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          created_at TEXT NOT NULL,
          data TEXT NOT NULL
        )`,
        'CREATE INDEX idx_rv_events_run ON rv_events (run_id, n)',
      ],
    },
  ],
};
