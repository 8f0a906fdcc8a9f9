// QueueStore on both backends: every SQL statement of the task queue lives here. Each changing
// method is one write transaction that reaps expired leases of its project first: on the embedded
// engine under the inter-process lock; on PostgreSQL with row locks, request_task taking the
// queue head with FOR UPDATE SKIP LOCKED, so agents on many machines never wait on each other nor
// get one task twice, and the reaper skipping leases another transaction holds, so it is safe on
// every instance at once. The decisions themselves come from core/queue/rules.ts.

import { newQueueId } from '../../queue/ids';
import { LedgerError, notFound } from '../../errors';
import { agentGone, agentTakenOver } from '../../queue/agentRefusals';
import { projectClosed, projectNotFound } from '../../queue/projectRefusals';
import { addMinutes, afterFailure, presentSince, retryBackoffUntil } from '../../queue/rules';
import type { Actor, Agent, AuditEvent, ProjectQueueStatus, QueueProject, Task, TaskAttempt, TaskCounts, TaskStatus, TaskType, TaskWithHistory } from '../../queue/types';
import type {
  AddOutcome,
  AgentAuth,
  Holder,
  NewQueueProject,
  NewTask,
  NewTaskType,
  QueueMetricsSnapshot,
  QueueStore,
  ReaperSchedule,
  RequestOutcome,
  StoredSession,
  TaskFilter,
} from '../queueStore';
import { parseJson } from '../rows/json';
import { type ProjectRow, type TaskRow, type TypeRow, type AttemptRow, type AgentRow, TASK_COLUMNS, PROJECT_COLUMNS, toTask, toType, toAttempt, toAgent } from '../rows/queueRows';
import type { Dialect } from './dialect';
import { all, get, run, type Sql, type SqlDb, type SqlValue } from './statements';

function* counts(projectId: string): Sql<TaskCounts> {
  const byStatus = new Map(
    (yield* all<{ status: string; n: number }>('SELECT status, count(*) AS n FROM tasks WHERE project_id = ? GROUP BY status', [projectId])).map((r) => [r.status, Number(r.n)]),
  );
  const get = (s: TaskStatus): number => byStatus.get(s) ?? 0;
  return {
    totalTasks: [...byStatus.values()].reduce((a, b) => a + b, 0),
    queuedTasks: get('queued'),
    runningTasks: get('running'),
    completedTasks: get('completed'),
    failedTasks: get('failed'),
    cancelledTasks: get('cancelled'),
  };
}

function* toProject(r: ProjectRow): Sql<QueueProject> {
  return {
    id: r.project_id,
    name: r.name,
    description: r.description,
    status: r.status as QueueProject['status'],
    createdAt: r.created_at,
    updatedAt: r.updated_at ?? r.created_at,
    closedAt: r.closed_at,
    config: {
      defaultMaxRetries: Number(r.default_max_retries),
      defaultLeaseDurationMinutes: Number(r.default_lease_minutes),
      reaperIntervalMinutes: Number(r.reaper_interval_minutes),
    },
    stats: yield* counts(r.project_id),
  };
}

function* projectRow(d: Dialect, projectId: string, lock = false): Sql<ProjectRow | undefined> {
  return yield* get<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE project_id = ?${lock ? d.forUpdate : ''}`, [projectId]);
}

/**
 * The project a new task, type or agent goes into: it must exist and be open. FOR SHARE: a
 * close_project committing meanwhile waits for this transaction, so nothing lands in it after.
 */
function* openProjectRow(d: Dialect, projectId: string, what: 'tasks' | 'task types' | 'agents'): Sql<ProjectRow> {
  const row = yield* get<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE project_id = ?${d.forShare}`, [projectId]);
  if (!row) throw projectNotFound(projectId);
  if (row.status === 'closed') throw projectClosed(projectId, what);
  return row;
}

function* taskRow(d: Dialect, taskId: string, lock = false): Sql<TaskRow | undefined> {
  return yield* get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ?${lock ? d.forUpdate : ''}`, [taskId]);
}

function* audit(e: { projectId: string; at: string; actor: Actor; action: string; taskId?: string | null; agentName?: string | null; details?: object }): Sql<void> {
  yield* run('INSERT INTO queue_audit (project_id, at, actor, action, task_id, agent_name, details) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    e.projectId,
    e.at,
    `${e.actor.kind}:${e.actor.name}`,
    e.action,
    e.taskId ?? null,
    e.agentName ?? null,
    e.details ? JSON.stringify(e.details) : null,
  ]);
}

/** Expired leases of one project (or all): requeued while retries remain, else failed (timeout). */
function* reap(d: Dialect, at: string, projectId?: string): Sql<{ requeued: number; failed: number }> {
  const where = projectId === undefined ? '' : ' AND project_id = ?';
  const expired = yield* all<TaskRow>(
    // SKIP LOCKED: a lease another transaction is completing, or another reaper is reaping, is theirs.
    `SELECT ${TASK_COLUMNS} FROM tasks WHERE status = 'running' AND lease_expires_at < ?${where} ORDER BY lease_expires_at, ${d.rowOrder}${d.skipLocked}`,
    projectId === undefined ? [at] : [at, projectId],
  );
  let requeued = 0;
  let failed = 0;
  for (const row of expired) {
    const task = toTask(row);
    const next = afterFailure(task, true);
    const why = `The lease of ${task.assignedTo ?? 'its agent'} expired at ${task.leaseExpiresAt} without a result`;
    yield* run("UPDATE task_attempts SET status = 'timeout', completed_at = ?, failure_reason = 'timeout', explanation = ? WHERE task_id = ? AND status = 'running'", [
      at,
      why,
      task.id,
    ]);
    const backoff = next.status === 'queued' && task.assignedTo ? { agent: task.assignedTo, until: retryBackoffUntil(at, task.leaseDurationMinutes) } : undefined;
    yield* run(
      `UPDATE tasks SET status = ?, retry_count = ?, assigned_to = CASE WHEN ${d.textParam} = 'failed' THEN assigned_to ELSE NULL END,
              lease_expires_at = NULL, result = ?, failure_reason = 'timeout', completed_at = CASE WHEN ${d.textParam} = 'failed' THEN ? ELSE NULL END,
              backoff_agent = ?, backoff_until = ?
        WHERE task_id = ?`,
      [next.status, next.retryCount, next.status, why, next.status, at, backoff?.agent ?? null, backoff?.until ?? null, task.id],
    );
    if (task.assignedTo) {
      yield* run("UPDATE agents SET status = 'idle', current_task_id = NULL WHERE project_id = ? AND name = ? AND current_task_id = ?", [task.projectId, task.assignedTo, task.id]);
    }
    yield* audit({
      projectId: task.projectId,
      at,
      actor: { kind: 'operator', name: 'reaper' },
      action: next.status === 'queued' ? 'task_requeued_after_timeout' : 'task_failed_after_timeout',
      taskId: task.id,
      agentName: task.assignedTo,
      details: { retryCount: next.retryCount, maxRetries: task.maxRetries, leaseExpiredAt: task.leaseExpiresAt },
    });
    if (next.status === 'queued') requeued++;
    else failed++;
  }
  return { requeued, failed };
}

function* closeRunningAttempt(row: TaskRow, at: string, why: string): Sql<void> {
  yield* run("UPDATE task_attempts SET status = 'failed', completed_at = ?, explanation = ?, failure_reason = 'server_error' WHERE task_id = ? AND status = 'running'", [
    at,
    why,
    row.task_id,
  ]);
  if (row.assigned_to) {
    yield* run("UPDATE agents SET status = 'idle', current_task_id = NULL WHERE project_id = ? AND name = ? AND current_task_id = ?", [
      row.project_id,
      row.assigned_to,
      row.task_id,
    ]);
  }
}

/** The running task `agentName` holds, or an error that says why it cannot act on it. */
/** Refuses an operation whose session no longer holds its agent (QueueStore Holder). */
function* heldBy(holder: Holder | undefined, agentName: string): Sql<void> {
  if (!holder) return;
  const agent = yield* get<{ session_id: string | null }>('SELECT session_id FROM agents WHERE project_id = ? AND name = ?', [holder.projectId, agentName]);
  if (!agent) throw agentGone(holder.projectId, agentName);
  if (agent.session_id !== holder.sessionId) throw agentTakenOver(holder.projectId, agentName);
}

function* ownedRunningTask(d: Dialect, taskId: string, agentName: string, verb: string): Sql<TaskRow> {
  const row = yield* taskRow(d, taskId, true);
  if (!row) throw notFound(`Task not found: ${taskId}. Use get_current_task to see the task you hold.`, { taskId });
  if (row.status === 'running' && row.assigned_to === agentName) return row;
  if (row.status === 'running') {
    throw new LedgerError('conflict', `Task ${taskId} is assigned to agent ${row.assigned_to}, not to ${agentName}; you can only ${verb} your own task.`, { details: { taskId } });
  }
  const lastAttempt = yield* get<AttemptRow>(`SELECT * FROM task_attempts WHERE task_id = ? ORDER BY started_at DESC, ${d.rowOrder} DESC LIMIT 1`, [taskId]);
  if (lastAttempt?.agent_name === agentName && lastAttempt.status === 'timeout') {
    throw new LedgerError(
      'conflict',
      `Your lease on task ${taskId} expired at ${lastAttempt.lease_expires_at} and the task was ${row.status === 'queued' ? 'put back in the queue' : 'failed'}; call request_task for your next task (extend_lease keeps a long task).`,
      { details: { taskId, status: row.status } },
    );
  }
  throw new LedgerError('conflict', `Task ${taskId} is ${row.status}, not running for ${agentName}; nothing to ${verb}.`, { details: { taskId, status: row.status } });
}

export class SqlQueueStore implements QueueStore {
  constructor(private readonly db: SqlDb) {}

  // ---- projects ----------------------------------------------------------------------------

  async createProject(p: NewQueueProject, actor: Actor): Promise<QueueProject> {
    return this.db.write(function* (d) {
      const made = yield* run(
        `INSERT INTO projects (project_id, name, created_at, description, status, updated_at, default_max_retries, default_lease_minutes, reaper_interval_minutes)
         VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?) ON CONFLICT (project_id) DO NOTHING`,
        [p.projectId, p.projectId, p.at, p.description, p.at, p.config.defaultMaxRetries, p.config.defaultLeaseDurationMinutes, p.config.reaperIntervalMinutes],
      );
      if (made.changes === 0) {
        throw new LedgerError('conflict', `Project ${p.projectId} already exists. Use get_project to see it, or join_project to work in it.`, {
          details: { projectId: p.projectId },
        });
      }
      yield* audit({ projectId: p.projectId, at: p.at, actor, action: 'project_created', details: { description: p.description, config: p.config } });
      return yield* toProject((yield* projectRow(d, p.projectId))!);
    });
  }

  async getProject(projectId: string): Promise<QueueProject | undefined> {
    return this.db.read(function* (d) {
      const row = yield* projectRow(d, projectId);
      return row ? yield* toProject(row) : undefined;
    });
  }

  async listProjects(includeClosed: boolean): Promise<QueueProject[]> {
    return this.db.read(function* (d) {
      const projects: QueueProject[] = [];
      for (const r of yield* all<ProjectRow>(
        `SELECT ${PROJECT_COLUMNS} FROM projects ${includeClosed ? '' : "WHERE status = 'active'"} ORDER BY created_at, project_id${d.byteOrder}`,
      )) {
        projects.push(yield* toProject(r));
      }
      return projects;
    });
  }

  async closeProject(projectId: string, at: string, actor: Actor): Promise<QueueProject> {
    return this.db.write(function* (d) {
      const row = yield* projectRow(d, projectId);
      if (!row) throw notFound(`Project not found: ${projectId}. Use list_projects to see the projects.`, { projectId });
      if (row.status !== 'closed') {
        yield* run("UPDATE projects SET status = 'closed', closed_at = ?, updated_at = ? WHERE project_id = ?", [at, at, projectId]);
        yield* audit({ projectId, at, actor, action: 'project_closed' });
      }
      return yield* toProject((yield* projectRow(d, projectId))!);
    });
  }

  // ---- task types ----------------------------------------------------------------------------

  async createTaskType(t: NewTaskType, actor: Actor): Promise<TaskType> {
    return this.db.write(function* (d) {
      const project = yield* openProjectRow(d, t.projectId, 'task types');
      const made = yield* run(
        `INSERT INTO task_types (type_id, project_id, name, template, variables, duplicate_handling, max_retries, lease_minutes, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING`,
        [
          t.id,
          t.projectId,
          t.name,
          t.template,
          JSON.stringify(t.variables),
          t.duplicateHandling,
          t.maxRetries ?? Number(project.default_max_retries),
          t.leaseDurationMinutes ?? Number(project.default_lease_minutes),
          t.at,
        ],
      );
      if (made.changes === 0) {
        throw new LedgerError('conflict', `Task type "${t.name}" already exists in project ${t.projectId}. Use get_task_type to see it, or choose another name.`, {
          details: { projectId: t.projectId, name: t.name },
        });
      }
      yield* audit({ projectId: t.projectId, at: t.at, actor, action: 'task_type_created', details: { typeId: t.id, name: t.name } });
      return toType((yield* get<TypeRow>('SELECT * FROM task_types WHERE type_id = ?', [t.id]))!);
    });
  }

  async listTaskTypes(projectId: string): Promise<TaskType[]> {
    return this.db.read(function* () {
      return (yield* all<TypeRow>('SELECT * FROM task_types WHERE project_id = ? ORDER BY created_at, name', [projectId])).map(toType);
    });
  }

  async getTaskType(projectId: string, idOrName: string): Promise<TaskType | undefined> {
    return this.db.read(function* () {
      const row =
        (yield* get<TypeRow>('SELECT * FROM task_types WHERE project_id = ? AND type_id = ?', [projectId, idOrName])) ??
        (yield* get<TypeRow>('SELECT * FROM task_types WHERE project_id = ? AND name = ?', [projectId, idOrName]));
      return row ? toType(row) : undefined;
    });
  }

  // ---- tasks ---------------------------------------------------------------------------------

  async addTasks(projectId: string, tasks: NewTask[], at: string, actor: Actor): Promise<AddOutcome[]> {
    return this.db.write(function* (d) {
      const outcomes: AddOutcome[] = [];
      const types = new Map<string, TypeRow>();
      let created = 0;
      const project = yield* openProjectRow(d, projectId, 'tasks');
      if (tasks.some((t) => t.typeId === '')) {
        const defaultType = (): Sql<TypeRow | undefined> => get<TypeRow>("SELECT * FROM task_types WHERE project_id = ? AND name = 'default'", [projectId]);
        let fallback = yield* defaultType();
        if (!fallback) {
          // Another writer may be creating it at this moment (PostgreSQL, READ COMMITTED): the
          // insert then waits for it and does nothing, and the next statement sees its row.
          const id = newQueueId();
          const made = yield* run(
            `INSERT INTO task_types (type_id, project_id, name, template, variables, duplicate_handling, max_retries, lease_minutes, created_at)
             VALUES (?, ?, 'default', NULL, '[]', 'allow', ?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING`,
            [id, projectId, Number(project.default_max_retries), Number(project.default_lease_minutes), at],
          );
          if (made.changes > 0) yield* audit({ projectId, at, actor, action: 'task_type_created', details: { typeId: id, name: 'default', auto: true } });
          fallback = (yield* defaultType())!;
        }
        types.set('', fallback);
      }
      for (const t of tasks) {
        let type = types.get(t.typeId);
        if (!type) {
          type = yield* get<TypeRow>('SELECT * FROM task_types WHERE project_id = ? AND type_id = ?', [projectId, t.typeId]);
          if (!type) {
            outcomes.push({ kind: 'error', message: `Task type ${t.typeId} does not exist in project ${projectId}` });
            continue;
          }
          types.set(t.typeId, type);
        }
        if (t.variablesKey !== null && type.duplicate_handling !== 'allow') {
          const dup = yield* get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE type_id = ? AND variables_key = ? ORDER BY ${d.rowOrder} LIMIT 1`, [
            type.type_id,
            t.variablesKey,
          ]);
          if (dup) {
            if (type.duplicate_handling === 'ignore') {
              outcomes.push({ kind: 'duplicate', task: toTask(dup), handling: 'ignore' });
            } else {
              outcomes.push({ kind: 'error', message: `A task with the same variables already exists (${dup.task_id}); task type "${type.name}" refuses duplicates` });
            }
            continue;
          }
        }
        yield* run(
          `INSERT INTO tasks (task_id, project_id, type_id, instructions, variables, variables_key, status, retry_count, max_retries, lease_minutes, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
          [t.id, projectId, type.type_id, t.instructions, t.variables ? JSON.stringify(t.variables) : null, t.variablesKey, type.max_retries, type.lease_minutes, at],
        );
        outcomes.push({ kind: 'created', task: toTask((yield* taskRow(d, t.id))!) });
        created++;
      }
      if (created > 0) {
        yield* audit({
          projectId,
          at,
          actor,
          action: created === 1 ? 'task_added' : 'tasks_added',
          taskId: created === 1 ? (outcomes.find((o) => o.kind === 'created') as { task: Task }).task.id : null,
          details: { count: created, duplicatesIgnored: outcomes.filter((o) => o.kind === 'duplicate').length, errors: outcomes.filter((o) => o.kind === 'error').length },
        });
      }
      return outcomes;
    });
  }

  async getTask(taskId: string): Promise<TaskWithHistory | undefined> {
    return this.db.read(function* (d) {
      const row = yield* taskRow(d, taskId);
      if (!row) return undefined;
      const attempts = (yield* all<AttemptRow>(`SELECT * FROM task_attempts WHERE task_id = ? ORDER BY started_at, ${d.rowOrder}`, [taskId])).map(toAttempt);
      return { ...toTask(row), attempts };
    });
  }

  async listTasks(projectId: string, f: TaskFilter): Promise<{ tasks: Task[]; total: number }> {
    const where = ['project_id = ?'];
    const params: SqlValue[] = [projectId];
    if (f.status) {
      where.push('status = ?');
      params.push(f.status);
    }
    if (f.typeId) {
      where.push('type_id = ?');
      params.push(f.typeId);
    }
    if (f.agentName) {
      where.push('assigned_to = ?');
      params.push(f.agentName);
    }
    const clause = where.join(' AND ');
    return this.db.read(function* (d) {
      const total = Number((yield* get<{ n: number }>(`SELECT count(*) AS n FROM tasks WHERE ${clause}`, params))?.n ?? 0);
      const rows = yield* all<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE ${clause} ORDER BY ${d.rowOrder} LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]);
      return { tasks: rows.map(toTask), total };
    });
  }

  // ---- agents --------------------------------------------------------------------------------

  async registerAgent(a: AgentAuth & { at: string }, actor: Actor): Promise<Agent> {
    return this.db.write(function* (d) {
      yield* openProjectRow(d, a.projectId, 'agents');
      const made = yield* run(
        "INSERT INTO agents (project_id, name, key_hash, status, session_id, connected_at, last_seen) VALUES (?, ?, ?, 'idle', ?, ?, ?) ON CONFLICT (project_id, name) DO NOTHING",
        [a.projectId, a.name, a.keyHash, a.sessionId, a.at, a.at],
      );
      if (made.changes === 0) {
        throw new LedgerError(
          'conflict',
          `Agent name "${a.name}" is already registered in project ${a.projectId}. Pass its apiKey to reconnect, or choose another name (or none, to get one).`,
          {
            details: { projectId: a.projectId, agentName: a.name },
          },
        );
      }
      yield* audit({ projectId: a.projectId, at: a.at, actor, action: 'agent_registered', agentName: a.name });
      return toAgent((yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [a.projectId, a.name]))!);
    });
  }

  async agentAuth(projectId: string, name: string): Promise<AgentAuth | undefined> {
    return this.db.read(function* () {
      const r = yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]);
      return r ? { name: r.name, projectId: r.project_id, keyHash: r.key_hash, sessionId: r.session_id } : undefined;
    });
  }

  async agentByKeyHash(projectId: string, keyHash: string): Promise<AgentAuth | undefined> {
    return this.db.read(function* () {
      const r = yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND key_hash = ?', [projectId, keyHash]);
      return r ? { name: r.name, projectId: r.project_id, keyHash: r.key_hash, sessionId: r.session_id } : undefined;
    });
  }

  async bindAgentSession(projectId: string, name: string, sessionId: string, at: string, reconnect: boolean): Promise<Agent> {
    return this.db.write(function* (d) {
      const before = yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]);
      if (!before) throw notFound(`Agent not found: ${name} in project ${projectId}. Register it with register_agent.`, { projectId, agentName: name });
      yield* run(
        `UPDATE agents SET session_id = ?, last_seen = ?, connected_at = CASE WHEN ${d.same('session_id', d.textParam)} THEN connected_at ELSE ? END WHERE project_id = ? AND name = ?`,
        [sessionId, at, sessionId, at, projectId, name],
      );
      if (reconnect && before.session_id !== null && before.session_id !== sessionId) {
        yield* audit({ projectId, at, actor: { kind: 'agent', name }, action: 'agent_reconnected', agentName: name, details: { supersededSession: before.session_id !== null } });
      }
      return toAgent((yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]))!);
    });
  }

  async getAgent(projectId: string, name: string): Promise<Agent | undefined> {
    return this.db.read(function* () {
      const r = yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]);
      return r ? toAgent(r) : undefined;
    });
  }

  // ---- the atomic agent operations -----------------------------------------------------------

  async requestTask(projectId: string, agentName: string, at: string, holder?: Holder): Promise<RequestOutcome> {
    return this.db.write(function* (d): Sql<RequestOutcome> {
      yield* heldBy(holder, agentName);
      yield* reap(d, at, projectId);
      const project = yield* projectRow(d, projectId);
      if (!project) throw notFound(`Project not found: ${projectId}`, { projectId });
      yield* run('UPDATE agents SET last_seen = ? WHERE project_id = ? AND name = ?', [at, projectId, agentName]);
      const agent = yield* get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, agentName]);
      if (!agent) throw notFound(`Agent not found: ${agentName} in project ${projectId}. Register it with register_agent.`, { projectId, agentName });
      if (agent.current_task_id) {
        const current = yield* get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ? AND status = 'running' AND assigned_to = ?`, [agent.current_task_id, agentName]);
        if (current) return { kind: 'current', task: toTask(current) };
        yield* run("UPDATE agents SET status = 'idle', current_task_id = NULL WHERE project_id = ? AND name = ?", [projectId, agentName]);
      }
      if (project.status === 'closed') return { kind: 'closed' };
      // A task this agent just failed waits for another agent, if one is there (rules.ts).
      const others = yield* get('SELECT 1 AS x FROM agents WHERE project_id = ? AND name <> ? AND (session_id IS NOT NULL OR last_seen > ?) LIMIT 1', [
        projectId,
        agentName,
        presentSince(at),
      ]);
      // The queue head that no other transaction is assigning right now: many agents on many
      // machines take tasks at once, each a different one, none waiting on another's lock.
      const next = others
        ? yield* get<TaskRow>(
            `SELECT ${TASK_COLUMNS} FROM tasks WHERE project_id = ? AND status = 'queued' AND (backoff_agent IS NULL OR backoff_agent <> ? OR backoff_until <= ?) ORDER BY ${d.rowOrder} LIMIT 1${d.skipLocked}`,
            [projectId, agentName, at],
          )
        : yield* get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE project_id = ? AND status = 'queued' ORDER BY ${d.rowOrder} LIMIT 1${d.skipLocked}`, [projectId]);
      if (!next) {
        const c = yield* counts(projectId);
        const held = others
          ? (yield* get<{ t: string | null }>("SELECT min(backoff_until) AS t FROM tasks WHERE project_id = ? AND status = 'queued' AND backoff_agent = ? AND backoff_until > ?", [
              projectId,
              agentName,
              at,
            ]))?.t
          : null;
        return { kind: 'empty', counts: { running: c.runningTasks, queued: c.queuedTasks }, ...(held ? { retryAt: held } : {}) };
      }
      const expires = addMinutes(at, Number(next.lease_minutes));
      yield* run(
        "UPDATE tasks SET status = 'running', assigned_to = ?, lease_expires_at = ?, assigned_at = ?, backoff_agent = NULL, backoff_until = NULL WHERE task_id = ? AND status = 'queued'",
        [agentName, expires, at, next.task_id],
      );
      yield* run("INSERT INTO task_attempts (attempt_id, task_id, agent_name, started_at, status, lease_expires_at) VALUES (?, ?, ?, ?, 'running', ?)", [
        newQueueId(),
        next.task_id,
        agentName,
        at,
        expires,
      ]);
      yield* run("UPDATE agents SET status = 'working', current_task_id = ? WHERE project_id = ? AND name = ?", [next.task_id, projectId, agentName]);
      yield* audit({ projectId, at, actor: { kind: 'agent', name: agentName }, action: 'task_assigned', taskId: next.task_id, agentName, details: { leaseExpiresAt: expires } });
      return { kind: 'assigned', task: toTask((yield* taskRow(d, next.task_id))!) };
    });
  }

  async currentTask(projectId: string, agentName: string, at: string, holder?: Holder): Promise<Task | undefined> {
    return this.db.write(function* (d) {
      yield* heldBy(holder, agentName);
      yield* reap(d, at, projectId);
      yield* run('UPDATE agents SET last_seen = ? WHERE project_id = ? AND name = ?', [at, projectId, agentName]);
      const row = yield* get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE project_id = ? AND status = 'running' AND assigned_to = ? LIMIT 1`, [projectId, agentName]);
      return row ? toTask(row) : undefined;
    });
  }

  async completeTask(taskId: string, agentName: string, explanation: string, at: string, holder?: Holder): Promise<Task> {
    return this.db.write(function* (d) {
      yield* heldBy(holder, agentName);
      const projectId = (yield* taskRow(d, taskId))?.project_id;
      if (projectId) yield* reap(d, at, projectId);
      const row = yield* ownedRunningTask(d, taskId, agentName, 'complete');
      yield* run("UPDATE tasks SET status = 'completed', completed_at = ?, result = ?, lease_expires_at = NULL, failure_reason = NULL WHERE task_id = ?", [
        at,
        explanation,
        taskId,
      ]);
      yield* run("UPDATE task_attempts SET status = 'completed', completed_at = ?, explanation = ? WHERE task_id = ? AND status = 'running'", [at, explanation, taskId]);
      yield* run("UPDATE agents SET status = 'idle', current_task_id = NULL, last_seen = ? WHERE project_id = ? AND name = ?", [at, row.project_id, agentName]);
      yield* audit({ projectId: row.project_id, at, actor: { kind: 'agent', name: agentName }, action: 'task_completed', taskId, agentName });
      return toTask((yield* taskRow(d, taskId))!);
    });
  }

  async failTask(taskId: string, agentName: string, explanation: string, canRetry: boolean, at: string, holder?: Holder): Promise<{ task: Task; requeued: boolean }> {
    return this.db.write(function* (d) {
      yield* heldBy(holder, agentName);
      const projectId = (yield* taskRow(d, taskId))?.project_id;
      if (projectId) yield* reap(d, at, projectId);
      const row = yield* ownedRunningTask(d, taskId, agentName, 'fail');
      const next = afterFailure(toTask(row), canRetry);
      const backoffUntil = next.status === 'queued' ? retryBackoffUntil(at, Number(row.lease_minutes)) : null;
      yield* run(
        `UPDATE tasks SET status = ?, retry_count = ?, assigned_to = CASE WHEN ${d.textParam} = 'failed' THEN assigned_to ELSE NULL END, lease_expires_at = NULL,
                result = ?, failure_reason = 'agent_reported', completed_at = CASE WHEN ${d.textParam} = 'failed' THEN ? ELSE NULL END,
                backoff_agent = ?, backoff_until = ?
          WHERE task_id = ?`,
        [next.status, next.retryCount, next.status, explanation, next.status, at, backoffUntil === null ? null : agentName, backoffUntil, taskId],
      );
      yield* run("UPDATE task_attempts SET status = 'failed', completed_at = ?, explanation = ?, failure_reason = 'agent_reported' WHERE task_id = ? AND status = 'running'", [
        at,
        explanation,
        taskId,
      ]);
      yield* run("UPDATE agents SET status = 'idle', current_task_id = NULL, last_seen = ? WHERE project_id = ? AND name = ?", [at, row.project_id, agentName]);
      yield* audit({
        projectId: row.project_id,
        at,
        actor: { kind: 'agent', name: agentName },
        action: next.status === 'queued' ? 'task_failed_requeued' : 'task_failed',
        taskId,
        agentName,
        details: { canRetry, retryCount: next.retryCount, maxRetries: Number(row.max_retries) },
      });
      return { task: toTask((yield* taskRow(d, taskId))!), requeued: next.status === 'queued' };
    });
  }

  async extendLease(taskId: string, agentName: string, minutes: number, at: string, holder?: Holder): Promise<Task> {
    return this.db.write(function* (d) {
      yield* heldBy(holder, agentName);
      const projectId = (yield* taskRow(d, taskId))?.project_id;
      if (projectId) yield* reap(d, at, projectId);
      const row = yield* ownedRunningTask(d, taskId, agentName, 'extend');
      const expires = addMinutes(row.lease_expires_at ?? at, minutes);
      yield* run('UPDATE tasks SET lease_expires_at = ? WHERE task_id = ?', [expires, taskId]);
      yield* run("UPDATE task_attempts SET lease_expires_at = ? WHERE task_id = ? AND status = 'running'", [expires, taskId]);
      yield* run('UPDATE agents SET last_seen = ? WHERE project_id = ? AND name = ?', [at, row.project_id, agentName]);
      yield* audit({
        projectId: row.project_id,
        at,
        actor: { kind: 'agent', name: agentName },
        action: 'lease_extended',
        taskId,
        agentName,
        details: { minutes, leaseExpiresAt: expires },
      });
      return toTask((yield* taskRow(d, taskId))!);
    });
  }

  async requeueTask(taskId: string, at: string, actor: Actor): Promise<Task> {
    return this.db.write(function* (d) {
      const row = yield* taskRow(d, taskId, true);
      if (!row) throw notFound(`Task not found: ${taskId}`, { taskId });
      if (row.status === 'queued') return toTask(row);
      if (row.status === 'completed') throw new LedgerError('conflict', `Task ${taskId} is completed; add a new task instead of requeueing it.`, { details: { taskId } });
      if (row.status === 'running') yield* closeRunningAttempt(row, at, `Requeued by ${actor.name}`);
      // A person's requeue gives the task a fresh set of retries.
      yield* run(
        "UPDATE tasks SET status = 'queued', retry_count = 0, assigned_to = NULL, lease_expires_at = NULL, completed_at = NULL, backoff_agent = NULL, backoff_until = NULL WHERE task_id = ?",
        [taskId],
      );
      yield* audit({ projectId: row.project_id, at, actor, action: 'task_requeued', taskId, details: { from: row.status } });
      return toTask((yield* taskRow(d, taskId))!);
    });
  }

  async cancelTask(taskId: string, at: string, actor: Actor): Promise<Task> {
    return this.db.write(function* (d) {
      const row = yield* taskRow(d, taskId, true);
      if (!row) throw notFound(`Task not found: ${taskId}`, { taskId });
      if (row.status === 'cancelled') return toTask(row);
      if (row.status !== 'queued' && row.status !== 'running') {
        throw new LedgerError('conflict', `Task ${taskId} is ${row.status}; only a queued or running task can be cancelled.`, { details: { taskId, status: row.status } });
      }
      if (row.status === 'running') yield* closeRunningAttempt(row, at, `Cancelled by ${actor.name}`);
      yield* run("UPDATE tasks SET status = 'cancelled', lease_expires_at = NULL, completed_at = ?, result = ? WHERE task_id = ?", [at, `Cancelled by ${actor.name}`, taskId]);
      yield* audit({ projectId: row.project_id, at, actor, action: 'task_cancelled', taskId, details: { from: row.status } });
      return toTask((yield* taskRow(d, taskId))!);
    });
  }

  async reapExpired(at: string, projectId?: string): Promise<{ requeued: number; failed: number }> {
    const due = await this.db.read(() =>
      get(
        `SELECT 1 AS x FROM tasks WHERE status = 'running' AND lease_expires_at < ?${projectId === undefined ? '' : ' AND project_id = ?'} LIMIT 1`,
        projectId === undefined ? [at] : [at, projectId],
      ),
    );
    if (!due) return { requeued: 0, failed: 0 };
    return this.db.write((d) => reap(d, at, projectId));
  }

  // ---- status ----------------------------------------------------------------------------------

  async projectStatus(projectId: string, _at: string): Promise<ProjectQueueStatus | undefined> {
    return this.db.read(function* (d) {
      const row = yield* projectRow(d, projectId);
      if (!row) return undefined;
      const agents = (yield* all<AgentRow>('SELECT * FROM agents WHERE project_id = ? ORDER BY name', [projectId])).map(toAgent);
      return {
        project: yield* toProject(row),
        agents: { total: agents.length, working: agents.filter((a) => a.status === 'working').length, idle: agents.filter((a) => a.status === 'idle').length, list: agents },
        oldestQueuedAt: (yield* get<{ t: string | null }>("SELECT min(created_at) AS t FROM tasks WHERE project_id = ? AND status = 'queued'", [projectId]))?.t ?? null,
        nextLeaseExpiresAt: (yield* get<{ t: string | null }>("SELECT min(lease_expires_at) AS t FROM tasks WHERE project_id = ? AND status = 'running'", [projectId]))?.t ?? null,
      };
    });
  }

  async taskHistory(taskId: string): Promise<TaskAttempt[] | undefined> {
    return this.db.read(function* (d) {
      if (!(yield* taskRow(d, taskId))) return undefined;
      return (yield* all<AttemptRow>(`SELECT * FROM task_attempts WHERE task_id = ? ORDER BY started_at, ${d.rowOrder}`, [taskId])).map(toAttempt);
    });
  }

  async auditLog(projectId: string, limit: number, beforeId: number | undefined): Promise<AuditEvent[]> {
    return this.db.read(function* () {
      const rows = yield* all<{
        id: number;
        project_id: string;
        at: string;
        actor: string;
        action: string;
        task_id: string | null;
        agent_name: string | null;
        details: string | null;
      }>(
        `SELECT * FROM queue_audit WHERE project_id = ?${beforeId === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?`,
        beforeId === undefined ? [projectId, limit] : [projectId, beforeId, limit],
      );
      return rows.map((r) => ({
        id: Number(r.id),
        projectId: r.project_id,
        at: r.at,
        actor: r.actor,
        action: r.action,
        taskId: r.task_id,
        agentName: r.agent_name,
        details: parseJson<Record<string, unknown> | null>(r.details, null),
      }));
    });
  }

  async countsByStatus(): Promise<{ projectId: string; status: TaskStatus; count: number }[]> {
    return this.db.read(function* () {
      const rows = yield* all<{ project_id: string; status: string; n: number }>(
        'SELECT project_id, status, count(*) AS n FROM tasks GROUP BY project_id, status ORDER BY project_id, status',
      );
      return rows.map((r) => ({ projectId: r.project_id, status: r.status as TaskStatus, count: Number(r.n) }));
    });
  }

  async metricsSnapshot(): Promise<QueueMetricsSnapshot> {
    return this.db.read(function* () {
      const attempts = yield* all<{ project_id: string; status: string; n: number }>(
        'SELECT t.project_id, a.status, count(*) AS n FROM task_attempts a JOIN tasks t ON t.task_id = a.task_id GROUP BY t.project_id, a.status ORDER BY t.project_id, a.status',
      );
      const oldestQueued = yield* all<{ project_id: string; at: string }>(
        "SELECT project_id, min(created_at) AS at FROM tasks WHERE status = 'queued' GROUP BY project_id ORDER BY project_id",
      );
      const agents = yield* all<{ project_id: string; status: string; connected: number; n: number }>(
        'SELECT project_id, status, session_id IS NOT NULL AS connected, count(*) AS n FROM agents GROUP BY project_id, status, connected ORDER BY project_id, status, connected',
      );
      return {
        attempts: attempts.map((r) => ({ projectId: r.project_id, status: r.status as QueueMetricsSnapshot['attempts'][number]['status'], count: Number(r.n) })),
        oldestQueued: oldestQueued.map((r) => ({ projectId: r.project_id, createdAt: r.at })),
        agents: agents.map((r) => ({ projectId: r.project_id, status: r.status as 'idle' | 'working', connected: Boolean(r.connected), count: Number(r.n) })),
      };
    });
  }

  async reaperSchedule(): Promise<ReaperSchedule> {
    return this.db.read(function* () {
      const m = (yield* get<{ m: number | null }>("SELECT min(reaper_interval_minutes) AS m FROM projects WHERE status = 'active'"))?.m;
      const t = (yield* get<{ t: string | null }>("SELECT min(lease_expires_at) AS t FROM tasks WHERE status = 'running'"))?.t;
      return { intervalMinutes: m === null || m === undefined ? undefined : Number(m), nextLeaseExpiresAt: t ?? undefined };
    });
  }

  // ---- sessions --------------------------------------------------------------------------------

  async saveSession(s: StoredSession): Promise<void> {
    await this.db.write(function* () {
      yield* run(
        `INSERT INTO queue_sessions (session_id, project_id, agent_name, created_at, last_seen) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET project_id = excluded.project_id, agent_name = excluded.agent_name, last_seen = excluded.last_seen`,
        [s.id, s.projectId, s.agentName, s.createdAt, s.lastSeen],
      );
    });
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    return this.db.read(function* () {
      const r = yield* get<{ session_id: string; project_id: string | null; agent_name: string | null; created_at: string; last_seen: string }>(
        'SELECT * FROM queue_sessions WHERE session_id = ?',
        [id],
      );
      return r ? { id: r.session_id, projectId: r.project_id, agentName: r.agent_name, createdAt: r.created_at, lastSeen: r.last_seen } : undefined;
    });
  }

  async deleteSession(id: string): Promise<void> {
    await this.db.write(function* () {
      yield* run('DELETE FROM queue_sessions WHERE session_id = ?', [id]);
      yield* run('UPDATE agents SET session_id = NULL WHERE session_id = ?', [id]);
    });
  }

  async expireSessions(idleBefore: string): Promise<number> {
    return this.db.write(function* () {
      const stale = yield* all<{ session_id: string }>('SELECT session_id FROM queue_sessions WHERE last_seen < ?', [idleBefore]);
      for (const s of stale) {
        yield* run('DELETE FROM queue_sessions WHERE session_id = ?', [s.session_id]);
        yield* run('UPDATE agents SET session_id = NULL WHERE session_id = ?', [s.session_id]);
      }
      return stale.length;
    });
  }
}
