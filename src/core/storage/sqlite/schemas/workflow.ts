// Workflow tracking's part of the schema: workflows, tracked tasks (nested by parent_task_id),
// their events (decisions, issues, milestones, starts and completions, in one ordered log that
// the timeline and the review notifications read), files changed, and snapshot metadata. The
// bulky part of a checksum snapshot lives in a file beside the ledger, not here.
// Append migrations; never edit a shipped one; statements must be deterministic.

import type { SchemaStream } from '../engine';

export const workflowSchema: SchemaStream = {
  name: 'workflow',
  migrations: [
    {
      version: 1,
      description: 'workflow tracking: workflows, tracked tasks, events, files changed, snapshots',
      statements: [
        `CREATE TABLE wf_workflows (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          project_id TEXT NOT NULL,
          name TEXT NOT NULL,
          description TEXT,
          plan TEXT NOT NULL DEFAULT '[]',
          created_at TEXT NOT NULL,
          last_activity_at TEXT NOT NULL
        )`,
        'CREATE INDEX idx_wf_workflows_project ON wf_workflows (project_id, last_activity_at)',
        'CREATE INDEX idx_wf_workflows_activity ON wf_workflows (last_activity_at)',
        `CREATE TABLE wf_tasks (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          workflow_id TEXT NOT NULL REFERENCES wf_workflows (id),
          parent_task_id TEXT REFERENCES wf_tasks (id),
          name TEXT NOT NULL,
          goal TEXT NOT NULL,
          areas TEXT NOT NULL DEFAULT '[]',
          status TEXT NOT NULL,
          started_at TEXT NOT NULL,
          completed_at TEXT,
          duration_seconds INTEGER,
          progress REAL,
          milestone TEXT,
          last_activity_at TEXT NOT NULL,
          outcome TEXT,
          metadata TEXT,
          verification TEXT,
          commits TEXT NOT NULL DEFAULT '[]',
          files_known INTEGER NOT NULL DEFAULT 0,
          start_snapshot_id TEXT,
          end_snapshot_id TEXT,
          root TEXT
        )`,
        'CREATE INDEX idx_wf_tasks_workflow ON wf_tasks (workflow_id, n)',
        'CREATE INDEX idx_wf_tasks_parent ON wf_tasks (parent_task_id)',
        'CREATE INDEX idx_wf_tasks_status ON wf_tasks (status)',
        'CREATE INDEX idx_wf_tasks_root ON wf_tasks (root, started_at)',
        `CREATE TABLE wf_events (
          n INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          workflow_id TEXT NOT NULL,
          task_id TEXT,
          kind TEXT NOT NULL,
          created_at TEXT NOT NULL,
          review INTEGER NOT NULL DEFAULT 0,
          data TEXT NOT NULL
        )`,
        'CREATE INDEX idx_wf_events_workflow ON wf_events (workflow_id, n)',
        'CREATE INDEX idx_wf_events_task ON wf_events (task_id, n)',
        'CREATE INDEX idx_wf_events_review ON wf_events (review, n)',
        `CREATE TABLE wf_files (
          task_id TEXT NOT NULL,
          path TEXT NOT NULL,
          change TEXT NOT NULL,
          old_path TEXT,
          similarity INTEGER,
          in_scope INTEGER NOT NULL,
          PRIMARY KEY (task_id, path)
        ) WITHOUT ROWID`,
        'CREATE INDEX idx_wf_files_path ON wf_files (path)',
        `CREATE TABLE wf_snapshots (
          id TEXT PRIMARY KEY,
          task_id TEXT NOT NULL,
          role TEXT NOT NULL,
          type TEXT NOT NULL,
          root TEXT,
          workspace TEXT,
          head TEXT,
          branch TEXT,
          tree TEXT,
          ref TEXT,
          manifest TEXT,
          file_count INTEGER,
          digest TEXT,
          created_at TEXT NOT NULL,
          took_ms INTEGER NOT NULL,
          note TEXT
        )`,
        'CREATE INDEX idx_wf_snapshots_task ON wf_snapshots (task_id)',
      ],
    },
  ],
};
