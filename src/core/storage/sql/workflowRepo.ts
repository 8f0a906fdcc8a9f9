// WorkflowStore on both backends: every SQL statement of workflow tracking lives here. Every
// statement is deterministic (ids and times come in as parameters): the embedded engine journals
// them and the other processes sharing the ledger replay them. The rules that must hold under
// concurrent writers (a parent still running, a task completed once) are checked on rows read
// with the dialect's row locks inside the write, so two PostgreSQL servers cannot both win.

import { LedgerError } from '../../errors';
import type {
  CommitInfo,
  CompletionMetadata,
  ReviewRequest,
  TaskOutcome,
  TaskStatus,
  TrackedTask,
  Verification,
  Workflow,
  WorkflowEvent,
  WorkflowListing,
} from '../../workflow/types';
import type { NewEvent, NewTrackedTask, NewWorkflow, RunningTask, TaskCompletion, WorkflowProject, WorkflowQuery, WorkflowStore } from '../workflowStore';
import { parseJson } from '../rows/json';
import {
  type WorkflowRow,
  type TaskRow,
  type SnapshotRow,
  type FileRow,
  type EventRow,
  TASK_COLUMNS,
  SNAPSHOT_COLUMNS,
  toWorkflow,
  toSnapshot,
  filesOf,
  toEvent,
  snapshotParams,
  INSERT_SNAPSHOT,
} from '../rows/workflowRows';
import type { Dialect } from './dialect';
import { all, get, run, type Sql, type SqlDb } from './statements';

const FILE_COLUMNS = ['task_id', 'path', 'change', 'old_path', 'similarity', 'in_scope'];

function* touchWorkflow(workflowId: string, at: string): Sql<void> {
  yield* run('UPDATE wf_workflows SET last_activity_at = ? WHERE id = ? AND last_activity_at < ?', [at, workflowId, at]);
}

/** One line of a workflow's event log: its timeline, and a review notification where review is set. */
function* insertEvent(e: { id: string; workflowId: string; taskId: string | null; kind: WorkflowEvent['kind']; createdAt: string; review: boolean; data: object }): Sql<void> {
  yield* run('INSERT INTO wf_events (id, workflow_id, task_id, kind, created_at, review, data) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    e.id,
    e.workflowId,
    e.taskId,
    e.kind,
    e.createdAt,
    e.review ? 1 : 0,
    JSON.stringify(e.data),
  ]);
}

function* tasksWhere(where: string, params: (string | number)[]): Sql<TrackedTask[]> {
  const rows = yield* all<TaskRow>(`SELECT ${TASK_COLUMNS} FROM wf_tasks t WHERE ${where} ORDER BY t.n`, params);
  if (rows.length === 0) return [];
  const sub = `SELECT t.id FROM wf_tasks t WHERE ${where}`;
  const snapshots = new Map((yield* all<SnapshotRow>(`SELECT ${SNAPSHOT_COLUMNS} FROM wf_snapshots WHERE task_id IN (${sub})`, params)).map((r) => [r.id, toSnapshot(r)]));
  const files = new Map<string, FileRow[]>();
  for (const f of yield* all<FileRow>(`SELECT task_id, path, change, old_path, similarity FROM wf_files WHERE task_id IN (${sub}) ORDER BY task_id, path`, params)) {
    const list = files.get(f.task_id) ?? [];
    list.push(f);
    files.set(f.task_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    workflowId: r.workflow_id,
    parentTaskId: r.parent_task_id,
    name: r.name,
    goal: r.goal,
    areas: parseJson<string[]>(r.areas, []),
    status: r.status as TaskStatus,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    durationSeconds: r.duration_seconds === null ? null : Number(r.duration_seconds),
    progress: r.progress === null ? null : Number(r.progress),
    milestone: r.milestone,
    lastActivityAt: r.last_activity_at,
    outcome: parseJson<TaskOutcome | null>(r.outcome, null),
    metadata: parseJson<CompletionMetadata | null>(r.metadata, null),
    verification: parseJson<Verification | null>(r.verification, null),
    filesChanged: r.status === 'in_progress' ? null : filesOf(files.get(r.id) ?? []),
    filesKnown: r.files_known === 1,
    commits: parseJson<CommitInfo[]>(r.commits, []),
    startSnapshot: (r.start_snapshot_id && snapshots.get(r.start_snapshot_id)) || null,
    endSnapshot: (r.end_snapshot_id && snapshots.get(r.end_snapshot_id)) || null,
  }));
}

function* requireRunning(d: Dialect, taskId: string, what: string): Sql<{ workflow_id: string }> {
  const task = yield* get<{ workflow_id: string; status: string; name: string; completed_at: string | null }>(
    `SELECT workflow_id, status, name, completed_at FROM wf_tasks WHERE id = ?${d.forUpdate}`,
    [taskId],
  );
  if (!task) throw new LedgerError('not_found', `Task not found: ${taskId}. Use the task_id that start_task returned.`, { details: { task_id: taskId } });
  if (task.status !== 'in_progress') {
    throw new LedgerError('conflict', `Task ${taskId} ("${task.name}") was already completed (${task.status}) at ${task.completed_at}; ${what}`, {
      details: { task_id: taskId, status: task.status },
    });
  }
  return task;
}

export class SqlWorkflowStore implements WorkflowStore {
  constructor(private readonly db: SqlDb) {}

  async insertWorkflow(w: NewWorkflow): Promise<void> {
    await this.db.write(function* (d) {
      if (yield* get('SELECT 1 AS x FROM wf_workflows WHERE id = ?', [w.id])) throw new LedgerError('conflict', `A workflow with id ${w.id} already exists`, { retryable: true });
      // Projects are shared by every toolset.
      yield* run(d.insertOrIgnore('projects (project_id, name, created_at) VALUES (?, ?, ?)'), [w.projectId, w.projectId, w.createdAt]);
      yield* run('INSERT INTO wf_workflows (id, project_id, name, description, plan, created_at, last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        w.id,
        w.projectId,
        w.name,
        w.description,
        JSON.stringify(w.plan),
        w.createdAt,
        w.createdAt,
      ]);
      yield* insertEvent({ id: w.eventId, workflowId: w.id, taskId: null, kind: 'workflow_started', createdAt: w.createdAt, review: false, data: { name: w.name } });
    });
  }

  async getWorkflow(id: string): Promise<Workflow | undefined> {
    return this.db.read(function* () {
      const row = yield* get<WorkflowRow>('SELECT id, project_id, name, description, plan, created_at, last_activity_at FROM wf_workflows WHERE id = ?', [id]);
      return row ? toWorkflow(row) : undefined;
    });
  }

  async listWorkflows(q: WorkflowQuery): Promise<{ workflows: WorkflowListing[]; total: number }> {
    return this.db.read(function* () {
      const where = q.projectId !== undefined ? 'WHERE w.project_id = ?' : '';
      const params = q.projectId !== undefined ? [q.projectId] : [];
      const total = Number((yield* get<{ n: number }>(`SELECT count(*) AS n FROM wf_workflows w ${where}`, params))?.n ?? 0);
      // w.n is the key of wf_workflows on both backends: its other columns may be selected.
      const rows = yield* all<WorkflowRow & { tasks: number; running: number; succeeded: number; partial: number; failed: number }>(
        `SELECT w.id, w.project_id, w.name, w.description, w.plan, w.created_at, w.last_activity_at,
                count(t.id) AS tasks,
                count(*) FILTER (WHERE t.status = 'in_progress') AS running,
                count(*) FILTER (WHERE t.status = 'success') AS succeeded,
                count(*) FILTER (WHERE t.status = 'partial_success') AS partial,
                count(*) FILTER (WHERE t.status = 'failed') AS failed
           FROM wf_workflows w LEFT JOIN wf_tasks t ON t.workflow_id = w.id
           ${where}
          GROUP BY w.n
          ORDER BY w.last_activity_at DESC, w.n DESC
          LIMIT ? OFFSET ?`,
        [...params, q.limit, q.offset ?? 0],
      );
      return {
        total,
        workflows: rows.map((r) => ({
          ...toWorkflow(r),
          taskCount: Number(r.tasks),
          running: Number(r.running),
          succeeded: Number(r.succeeded),
          partial: Number(r.partial),
          failed: Number(r.failed),
          lastActivityAt: r.last_activity_at,
        })),
      };
    });
  }

  async listWorkflowProjects(): Promise<WorkflowProject[]> {
    return this.db.read(function* () {
      const rows = yield* all<{ project_id: string; n: number; last: string }>(
        'SELECT project_id, count(*) AS n, max(last_activity_at) AS last FROM wf_workflows GROUP BY project_id ORDER BY last DESC, project_id',
      );
      return rows.map((r) => ({ projectId: r.project_id, workflowCount: Number(r.n), lastActivityAt: r.last }));
    });
  }

  async insertTask(t: NewTrackedTask): Promise<void> {
    await this.db.write(function* (d) {
      if (!(yield* get('SELECT 1 AS x FROM wf_workflows WHERE id = ?', [t.workflowId]))) {
        throw new LedgerError('not_found', `Workflow not found: ${t.workflowId}. Use start_workflow to create one.`, { details: { workflow_id: t.workflowId } });
      }
      if (yield* get('SELECT 1 AS x FROM wf_tasks WHERE id = ?', [t.id])) throw new LedgerError('conflict', `A task with id ${t.id} already exists`, { retryable: true });
      if (t.parentTaskId !== null) {
        const parent = yield* get<{ status: string; name: string; workflow_id: string }>(`SELECT status, name, workflow_id FROM wf_tasks WHERE id = ?${d.forShare}`, [
          t.parentTaskId,
        ]);
        if (!parent) throw new LedgerError('not_found', `Parent task not found: ${t.parentTaskId}.`, { details: { parent_task_id: t.parentTaskId } });
        if (parent.status !== 'in_progress') {
          throw new LedgerError(
            'conflict',
            `Parent task ${t.parentTaskId} ("${parent.name}") is already completed (${parent.status}); start subtasks before completing their parent, or start a top-level task.`,
            {
              details: { parent_task_id: t.parentTaskId, status: parent.status },
            },
          );
        }
      }
      yield* run(
        `INSERT INTO wf_tasks (id, workflow_id, parent_task_id, name, goal, areas, status, started_at, last_activity_at, start_snapshot_id, root)
         VALUES (?, ?, ?, ?, ?, ?, 'in_progress', ?, ?, ?, ?)`,
        [t.id, t.workflowId, t.parentTaskId, t.name, t.goal, JSON.stringify(t.areas), t.startedAt, t.startedAt, t.startSnapshot.id, t.startSnapshot.root],
      );
      yield* run(INSERT_SNAPSHOT, snapshotParams(t.startSnapshot));
      yield* insertEvent({ id: t.eventId, workflowId: t.workflowId, taskId: t.id, kind: 'task_started', createdAt: t.startedAt, review: false, data: { name: t.name } });
      yield* touchWorkflow(t.workflowId, t.startedAt);
    });
  }

  async getTask(id: string): Promise<TrackedTask | undefined> {
    return this.db.read(function* () {
      return (yield* tasksWhere('t.id = ?', [id]))[0];
    });
  }

  async listTasks(workflowId: string): Promise<TrackedTask[]> {
    // A parent always starts before its children, so start order puts parents first.
    return this.db.read(() => tasksWhere('t.workflow_id = ?', [workflowId]));
  }

  async ancestorIds(taskId: string): Promise<string[]> {
    return this.db.read(function* () {
      const rows = yield* all<{ id: string }>(
        `WITH RECURSIVE up(id, parent, depth) AS (
           SELECT id, parent_task_id, 0 FROM wf_tasks WHERE id = ?
           UNION ALL
           SELECT t.id, t.parent_task_id, up.depth + 1 FROM wf_tasks t JOIN up ON t.id = up.parent
         )
         SELECT id FROM up WHERE depth > 0 ORDER BY depth`,
        [taskId],
      );
      return rows.map((r) => r.id);
    });
  }

  async addEvent(e: NewEvent): Promise<void> {
    await this.db.write(function* (d) {
      const task = yield* requireRunning(d, e.taskId!, 'start a new task with start_task to record more.');
      yield* insertEvent({ ...e, workflowId: task.workflow_id });
      if (e.kind === 'milestone') {
        const m = e.data as { message: string; progress?: number };
        yield* run('UPDATE wf_tasks SET milestone = ?, progress = coalesce(?, progress), last_activity_at = ? WHERE id = ?', [
          m.message,
          m.progress ?? null,
          e.createdAt,
          e.taskId,
        ]);
      } else {
        yield* run('UPDATE wf_tasks SET last_activity_at = ? WHERE id = ?', [e.createdAt, e.taskId]);
      }
      yield* touchWorkflow(task.workflow_id, e.createdAt);
    });
  }

  async completeTask(c: TaskCompletion): Promise<void> {
    await this.db.write(function* (d) {
      const task = yield* requireRunning(d, c.taskId, 'a task is completed once.');
      const unexpected = new Set(c.unexpected);
      yield* run(
        `UPDATE wf_tasks SET status = ?, completed_at = ?, duration_seconds = ?, outcome = ?, metadata = ?, verification = ?, commits = ?,
                files_known = ?, end_snapshot_id = ?, last_activity_at = ?
          WHERE id = ?`,
        [
          c.status,
          c.completedAt,
          c.durationSeconds,
          JSON.stringify(c.outcome),
          c.metadata === null ? null : JSON.stringify(c.metadata),
          JSON.stringify(c.verification),
          JSON.stringify(c.commits),
          c.filesKnown ? 1 : 0,
          c.endSnapshot.id,
          c.completedAt,
          c.taskId,
        ],
      );
      const insertFile = d.insertOrReplace(`wf_files (${FILE_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)`, ['task_id', 'path'], FILE_COLUMNS);
      const file = (p: string, change: string, old: string | null, similarity: number | null, inScope: boolean) =>
        run(insertFile, [c.taskId, p, change, old, similarity, inScope ? 1 : 0]);
      for (const p of c.files.added) yield* file(p, 'added', null, null, !unexpected.has(p));
      for (const p of c.files.modified) yield* file(p, 'modified', null, null, !unexpected.has(p));
      for (const p of c.files.deleted) yield* file(p, 'deleted', null, null, !unexpected.has(p));
      for (const r of c.files.renamed) yield* file(r.to, 'renamed', r.from, r.similarity, !unexpected.has(r.to) && !unexpected.has(r.from));
      yield* run(INSERT_SNAPSHOT, snapshotParams(c.endSnapshot));
      yield* insertEvent({
        id: c.eventId,
        workflowId: task.workflow_id,
        taskId: c.taskId,
        kind: 'task_completed',
        createdAt: c.completedAt,
        review: c.review,
        data: {
          status: c.status,
          summary: c.outcome.summary,
          manual_review_needed: c.outcome.manual_review_needed === true,
          ...(c.outcome.manual_review_reason ? { manual_review_reason: c.outcome.manual_review_reason } : {}),
          files: c.files.added.length + c.files.modified.length + c.files.deleted.length + c.files.renamed.length,
        },
      });
      yield* touchWorkflow(task.workflow_id, c.completedAt);
    });
  }

  async listEvents(workflowId: string): Promise<WorkflowEvent[]> {
    return this.db.read(function* () {
      return (yield* all<EventRow>('SELECT n, id, workflow_id, task_id, kind, created_at, review, data FROM wf_events WHERE workflow_id = ? ORDER BY n', [workflowId])).map(
        toEvent,
      );
    });
  }

  async runningTasks(): Promise<RunningTask[]> {
    return this.db.read(function* () {
      const tasks = yield* tasksWhere("t.status = 'in_progress'", []);
      const rows = yield* all<{ id: string; name: string; project_id: string }>(
        "SELECT w.id, w.name, w.project_id FROM wf_workflows w WHERE w.id IN (SELECT workflow_id FROM wf_tasks WHERE status = 'in_progress')",
      );
      const names = new Map(rows.map((r) => [r.id, r]));
      return tasks
        .map((task) => ({ task, workflowName: names.get(task.workflowId)?.name ?? task.workflowId, projectId: names.get(task.workflowId)?.project_id ?? '' }))
        .sort((a, b) => (a.task.lastActivityAt < b.task.lastActivityAt ? 1 : a.task.lastActivityAt > b.task.lastActivityAt ? -1 : 0));
    });
  }

  async overlappingTasks(taskId: string, root: string, from: string, to: string): Promise<{ id: string; name: string }[]> {
    return this.db.read(() =>
      all<{ id: string; name: string }>(
        `SELECT id, name FROM wf_tasks
          WHERE root = ? AND id <> ? AND started_at <= ? AND (completed_at IS NULL OR completed_at >= ?)
          ORDER BY n`,
        [root, taskId, to, from],
      ),
    );
  }

  async reviewRequests(afterSeq: number, limit = 50): Promise<ReviewRequest[]> {
    return this.db.read(function* () {
      const rows = yield* all<EventRow & { workflow_name: string; task_name: string }>(
        `SELECT e.n, e.id, e.workflow_id, e.task_id, e.kind, e.created_at, e.review, e.data, w.name AS workflow_name, t.name AS task_name
           FROM wf_events e JOIN wf_workflows w ON w.id = e.workflow_id JOIN wf_tasks t ON t.id = e.task_id
          WHERE e.review = 1 AND e.n > ?
          ORDER BY e.n LIMIT ?`,
        [afterSeq, limit],
      );
      return rows.map((r) => {
        const data = parseJson<Record<string, unknown>>(r.data, {});
        const text = r.kind === 'issue' ? String(data.description ?? '') : String((data.manual_review_reason as string | undefined) ?? data.summary ?? '');
        return {
          seq: Number(r.n),
          eventId: r.id,
          kind: r.kind === 'issue' ? ('issue' as const) : ('task_completed' as const),
          workflowId: r.workflow_id,
          workflowName: r.workflow_name,
          taskId: r.task_id!,
          taskName: r.task_name,
          createdAt: r.created_at,
          text,
        };
      });
    });
  }

  async latestEventSeq(): Promise<number> {
    return this.db.read(function* () {
      return Number((yield* get<{ n: number | null }>('SELECT max(n) AS n FROM wf_events'))?.n ?? 0);
    });
  }
}
