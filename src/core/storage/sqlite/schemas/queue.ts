// The task queue's part of the schema (TaskDriver specification, README "Tools"). It extends the projects every toolset
// shares (created by the progress stream, which runs first) with the queue's own columns.
// Append migrations; never edit a shipped one; statements must be deterministic.

import type { SchemaStream } from '../engine';

export const queueSchema: SchemaStream = {
  name: 'queue',
  migrations: [
    {
      version: 1,
      description: 'task queue: project settings, task types, tasks, attempts, agents, sessions, audit',
      statements: [
        "ALTER TABLE projects ADD COLUMN description TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE projects ADD COLUMN status TEXT NOT NULL DEFAULT 'active'",
        'ALTER TABLE projects ADD COLUMN updated_at TEXT',
        'ALTER TABLE projects ADD COLUMN closed_at TEXT',
        'ALTER TABLE projects ADD COLUMN default_max_retries INTEGER NOT NULL DEFAULT 3',
        'ALTER TABLE projects ADD COLUMN default_lease_minutes REAL NOT NULL DEFAULT 10',
        'ALTER TABLE projects ADD COLUMN reaper_interval_minutes REAL NOT NULL DEFAULT 1',
        `CREATE TABLE task_types (
          type_id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects (project_id),
          name TEXT NOT NULL,
          template TEXT,
          variables TEXT NOT NULL DEFAULT '[]',
          duplicate_handling TEXT NOT NULL,
          max_retries INTEGER NOT NULL,
          lease_minutes REAL NOT NULL,
          created_at TEXT NOT NULL,
          UNIQUE (project_id, name)
        )`,
        // rowid orders the queue (FIFO); variables_key is the canonical JSON of the variables,
        // for duplicate handling per task type.
        `CREATE TABLE tasks (
          task_id TEXT NOT NULL UNIQUE,
          project_id TEXT NOT NULL REFERENCES projects (project_id),
          type_id TEXT NOT NULL REFERENCES task_types (type_id),
          instructions TEXT NOT NULL,
          variables TEXT,
          variables_key TEXT,
          status TEXT NOT NULL,
          assigned_to TEXT,
          lease_expires_at TEXT,
          retry_count INTEGER NOT NULL DEFAULT 0,
          max_retries INTEGER NOT NULL,
          lease_minutes REAL NOT NULL,
          created_at TEXT NOT NULL,
          assigned_at TEXT,
          completed_at TEXT,
          result TEXT,
          failure_reason TEXT
        )`,
        'CREATE INDEX idx_tasks_queue ON tasks (project_id, status)',
        'CREATE INDEX idx_tasks_duplicates ON tasks (type_id, variables_key)',
        'CREATE INDEX idx_tasks_lease ON tasks (status, lease_expires_at)',
        `CREATE TABLE task_attempts (
          attempt_id TEXT PRIMARY KEY,
          task_id TEXT NOT NULL,
          agent_name TEXT NOT NULL,
          started_at TEXT NOT NULL,
          completed_at TEXT,
          status TEXT NOT NULL,
          explanation TEXT,
          failure_reason TEXT,
          lease_expires_at TEXT
        )`,
        'CREATE INDEX idx_attempts_task ON task_attempts (task_id, started_at)',
        `CREATE TABLE agents (
          project_id TEXT NOT NULL REFERENCES projects (project_id),
          name TEXT NOT NULL,
          key_hash TEXT NOT NULL,
          status TEXT NOT NULL,
          current_task_id TEXT,
          session_id TEXT,
          connected_at TEXT NOT NULL,
          last_seen TEXT NOT NULL,
          PRIMARY KEY (project_id, name)
        )`,
        // HTTP sessions, so that a client's session (and the agent it is) survives a restart.
        `CREATE TABLE queue_sessions (
          session_id TEXT PRIMARY KEY,
          project_id TEXT,
          agent_name TEXT,
          created_at TEXT NOT NULL,
          last_seen TEXT NOT NULL
        )`,
        `CREATE TABLE queue_audit (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          project_id TEXT NOT NULL,
          at TEXT NOT NULL,
          actor TEXT NOT NULL,
          action TEXT NOT NULL,
          task_id TEXT,
          agent_name TEXT,
          details TEXT
        )`,
        'CREATE INDEX idx_audit_project ON queue_audit (project_id, id)',
      ],
    },
    {
      version: 2,
      description: 'task queue: a failed task is kept from the agent that failed it for a while (retry back-off)',
      statements: ['ALTER TABLE tasks ADD COLUMN backoff_agent TEXT', 'ALTER TABLE tasks ADD COLUMN backoff_until TEXT'],
    },
  ],
};
