// Rows of the workflow tables and their mapping to the core's types, shared by the embedded
// engine's and PostgreSQL's stores (src/core/storage/sqlite, src/core/storage/postgres): the
// same columns on both backends, read and written the same way.

import type { FilesChanged, PlanStep, Snapshot, Workflow, WorkflowEvent } from '../../workflow/types';
import { parseJson } from './json';

export interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  plan: string;
  created_at: string;
  last_activity_at: string;
}

export interface TaskRow {
  id: string;
  workflow_id: string;
  parent_task_id: string | null;
  name: string;
  goal: string;
  areas: string;
  status: string;
  started_at: string;
  completed_at: string | null;
  duration_seconds: number | null;
  progress: number | null;
  milestone: string | null;
  last_activity_at: string;
  outcome: string | null;
  metadata: string | null;
  verification: string | null;
  commits: string;
  files_known: number;
  start_snapshot_id: string | null;
  end_snapshot_id: string | null;
}

/** A camelCase name as its snake_case column ('fileCount' → 'file_count'). */
type Column<K extends string> = K extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Column<T>}` : K;

/** A snapshot's row: its fields under their column names (role and type as stored text). */
export type SnapshotRow = { [K in keyof Snapshot as Column<K>]: K extends 'role' | 'type' ? string : Snapshot[K] };

export interface FileRow {
  task_id: string;
  path: string;
  change: string;
  old_path: string | null;
  similarity: number | null;
}

export interface EventRow {
  n: number;
  id: string;
  workflow_id: string;
  task_id: string | null;
  kind: string;
  created_at: string;
  review: number;
  data: string;
}

export const TASK_COLUMNS =
  't.id, t.workflow_id, t.parent_task_id, t.name, t.goal, t.areas, t.status, t.started_at, t.completed_at, t.duration_seconds, t.progress, t.milestone, ' +
  't.last_activity_at, t.outcome, t.metadata, t.verification, t.commits, t.files_known, t.start_snapshot_id, t.end_snapshot_id';
export const SNAPSHOT_COLUMNS = 'id, task_id, role, type, root, workspace, head, branch, tree, ref, manifest, file_count, digest, created_at, took_ms, note';

export function toWorkflow(row: WorkflowRow): Workflow {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    plan: parseJson<PlanStep[]>(row.plan, []),
    createdAt: row.created_at,
  };
}

export function toSnapshot(row: SnapshotRow): Snapshot {
  return {
    id: row.id,
    taskId: row.task_id,
    role: row.role === 'end' ? 'end' : 'start',
    type: row.type === 'git' || row.type === 'checksum' ? row.type : 'none',
    root: row.root,
    workspace: row.workspace,
    head: row.head,
    branch: row.branch,
    tree: row.tree,
    ref: row.ref,
    manifest: row.manifest,
    fileCount: row.file_count === null ? null : Number(row.file_count),
    digest: row.digest,
    createdAt: row.created_at,
    tookMs: Number(row.took_ms),
    note: row.note,
  };
}

export function filesOf(rows: FileRow[]): FilesChanged {
  const files: FilesChanged = { added: [], modified: [], deleted: [], renamed: [] };
  for (const r of rows) {
    if (r.change === 'added') files.added.push(r.path);
    else if (r.change === 'deleted') files.deleted.push(r.path);
    else if (r.change === 'renamed') files.renamed.push({ from: r.old_path ?? r.path, to: r.path, similarity: Number(r.similarity ?? 100) });
    else files.modified.push(r.path);
  }
  return files;
}

export function toEvent(row: EventRow): WorkflowEvent {
  return {
    seq: Number(row.n),
    id: row.id,
    workflowId: row.workflow_id,
    taskId: row.task_id,
    kind: row.kind,
    createdAt: row.created_at,
    review: row.review === 1,
    data: parseJson<Record<string, unknown>>(row.data, {}),
  } as unknown as WorkflowEvent;
}

export function snapshotParams(s: Snapshot): (string | number | null)[] {
  return [s.id, s.taskId, s.role, s.type, s.root, s.workspace, s.head, s.branch, s.tree, s.ref, s.manifest, s.fileCount, s.digest, s.createdAt, s.tookMs, s.note];
}

export const INSERT_SNAPSHOT = `INSERT INTO wf_snapshots (${SNAPSHOT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
