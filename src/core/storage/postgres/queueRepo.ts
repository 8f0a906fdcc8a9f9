// QueueStore on PostgreSQL: every SQL statement of the task queue for this backend. Each changing
// method is one transaction with row locks: request_task takes the queue head with
// FOR UPDATE SKIP LOCKED, so agents on many machines never wait on each other nor get one task
// twice; the reaper skips leases another transaction holds, so it is safe on every instance at
// once. The decisions themselves come from core/queue/rules.ts, as in the embedded engine.

import { newQueueId } from '../../queue/ids';
import { LedgerError, notFound } from '../../errors';
import { projectClosed, projectNotFound } from '../../queue/projectRefusals';
import { addMinutes, afterFailure, presentSince, retryBackoffUntil } from '../../queue/rules';
import type {
  Actor,
  Agent,
  AuditEvent,
  ProjectQueueStatus,
  QueueProject,
  Task,
  TaskAttempt,
  TaskCounts,
  TaskStatus,
  TaskType,
  TaskWithHistory,
} from '../../queue/types';
import type {
  AddOutcome,
  AgentAuth,
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
import type { PgEngine, PgReadTx, PgValue, PgWriteTx } from './engine';
import { parseJson } from '../rows/json';
import {
  type ProjectRow,
  type TaskRow,
  type TypeRow,
  type AttemptRow,
  type AgentRow,
  TASK_COLUMNS,
  PROJECT_COLUMNS,
  toTask,
  toType,
  toAttempt,
  toAgent,
} from '../rows/queueRows';

async function counts(tx: PgReadTx, projectId: string): Promise<TaskCounts> {
  const byStatus = new Map(
    (await tx.all<{ status: string; n: number }>('SELECT status, count(*) AS n FROM tasks WHERE project_id = ? GROUP BY status', [projectId])).map((r) => [r.status, Number(r.n)]),
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

async function toProject(tx: PgReadTx, r: ProjectRow): Promise<QueueProject> {
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
    stats: await counts(tx, r.project_id),
  };
}

async function projectRow(tx: PgReadTx, projectId: string, lock = false): Promise<ProjectRow | undefined> {
  return tx.get<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE project_id = ?${lock ? ' FOR UPDATE' : ''}`, [projectId]);
}

/**
 * The project a new task, type or agent goes into: it must exist and be open. FOR SHARE: a
 * close_project committing meanwhile waits for this transaction, so nothing lands in it after.
 */
async function openProjectRow(tx: PgReadTx, projectId: string, what: 'tasks' | 'task types' | 'agents'): Promise<ProjectRow> {
  const row = await tx.get<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE project_id = ? FOR SHARE`, [projectId]);
  if (!row) throw projectNotFound(projectId);
  if (row.status === 'closed') throw projectClosed(projectId, what);
  return row;
}

async function taskRow(tx: PgReadTx, taskId: string, lock = false): Promise<TaskRow | undefined> {
  return tx.get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ?${lock ? ' FOR UPDATE' : ''}`, [taskId]);
}

async function audit(tx: PgWriteTx, e: { projectId: string; at: string; actor: Actor; action: string; taskId?: string | null; agentName?: string | null; details?: object }): Promise<void> {
  await tx.run('INSERT INTO queue_audit (project_id, at, actor, action, task_id, agent_name, details) VALUES (?, ?, ?, ?, ?, ?, ?)', [
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
async function reap(tx: PgWriteTx, at: string, projectId?: string): Promise<{ requeued: number; failed: number }> {
  const where = projectId === undefined ? '' : ' AND project_id = ?';
  const expired = await tx.all<TaskRow>(
    // SKIP LOCKED: a lease another transaction is completing, or another reaper is reaping, is theirs.
    `SELECT ${TASK_COLUMNS} FROM tasks WHERE status = 'running' AND lease_expires_at < ?${where} ORDER BY lease_expires_at, n FOR UPDATE SKIP LOCKED`,
    projectId === undefined ? [at] : [at, projectId],
  );
  let requeued = 0;
  let failed = 0;
  for (const row of expired) {
    const task = toTask(row);
    const next = afterFailure(task, true);
    const why = `The lease of ${task.assignedTo ?? 'its agent'} expired at ${task.leaseExpiresAt} without a result`;
    await tx.run("UPDATE task_attempts SET status = 'timeout', completed_at = ?, failure_reason = 'timeout', explanation = ? WHERE task_id = ? AND status = 'running'", [at, why, task.id]);
    const backoff = next.status === 'queued' && task.assignedTo ? { agent: task.assignedTo, until: retryBackoffUntil(at, task.leaseDurationMinutes) } : undefined;
    await tx.run(
      `UPDATE tasks SET status = ?, retry_count = ?, assigned_to = CASE WHEN ?::text = 'failed' THEN assigned_to ELSE NULL END,
              lease_expires_at = NULL, result = ?, failure_reason = 'timeout', completed_at = CASE WHEN ?::text = 'failed' THEN ? ELSE NULL END,
              backoff_agent = ?, backoff_until = ?
        WHERE task_id = ?`,
      [next.status, next.retryCount, next.status, why, next.status, at, backoff?.agent ?? null, backoff?.until ?? null, task.id],
    );
    if (task.assignedTo) {
      await tx.run("UPDATE agents SET status = 'idle', current_task_id = NULL WHERE project_id = ? AND name = ? AND current_task_id = ?", [task.projectId, task.assignedTo, task.id]);
    }
    await audit(tx, {
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

/** The running task `agentName` holds, or an error that says why it cannot act on it. */
async function ownedRunningTask(tx: PgReadTx, taskId: string, agentName: string, verb: string): Promise<TaskRow> {
  const row = await taskRow(tx, taskId, true);
  if (!row) throw notFound(`Task not found: ${taskId}. Use get_current_task to see the task you hold.`, { taskId });
  if (row.status === 'running' && row.assigned_to === agentName) return row;
  if (row.status === 'running') {
    throw new LedgerError('conflict', `Task ${taskId} is assigned to agent ${row.assigned_to}, not to ${agentName}; you can only ${verb} your own task.`, { details: { taskId } });
  }
  const lastAttempt = await tx.get<AttemptRow>('SELECT * FROM task_attempts WHERE task_id = ? ORDER BY started_at DESC, n DESC LIMIT 1', [taskId]);
  if (lastAttempt?.agent_name === agentName && lastAttempt.status === 'timeout') {
    throw new LedgerError(
      'conflict',
      `Your lease on task ${taskId} expired at ${lastAttempt.lease_expires_at} and the task was ${row.status === 'queued' ? 'put back in the queue' : 'failed'}; call request_task for your next task (extend_lease keeps a long task).`,
      { details: { taskId, status: row.status } },
    );
  }
  throw new LedgerError('conflict', `Task ${taskId} is ${row.status}, not running for ${agentName}; nothing to ${verb}.`, { details: { taskId, status: row.status } });
}

export class PgQueueStore implements QueueStore {
  constructor(private readonly engine: PgEngine) {}

  // ---- projects ----------------------------------------------------------------------------

  async createProject(p: NewQueueProject, actor: Actor): Promise<QueueProject> {
    return this.engine.write(async (tx) => {
      if (await projectRow(tx, p.projectId)) {
        throw new LedgerError('conflict', `Project ${p.projectId} already exists. Use get_project to see it, or join_project to work in it.`, { details: { projectId: p.projectId } });
      }
      await tx.run(
        `INSERT INTO projects (project_id, name, created_at, description, status, updated_at, default_max_retries, default_lease_minutes, reaper_interval_minutes)
         VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
        [p.projectId, p.projectId, p.at, p.description, p.at, p.config.defaultMaxRetries, p.config.defaultLeaseDurationMinutes, p.config.reaperIntervalMinutes],
      );
      await audit(tx, { projectId: p.projectId, at: p.at, actor, action: 'project_created', details: { description: p.description, config: p.config } });
      return await toProject(tx, (await projectRow(tx, p.projectId))!);
    });
  }

  async getProject(projectId: string): Promise<QueueProject | undefined> {
    return this.engine.read(async (tx) => {
      const row = await projectRow(tx, projectId);
      return row ? await toProject(tx, row) : undefined;
    });
  }

  async listProjects(includeClosed: boolean): Promise<QueueProject[]> {
    return this.engine.read(async (tx) =>
      Promise.all(
        (await tx.all<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects ${includeClosed ? '' : "WHERE status = 'active'"} ORDER BY created_at, project_id COLLATE "C"`)).map((r) =>
          toProject(tx, r),
        ),
      ),
    );
  }

  async closeProject(projectId: string, at: string, actor: Actor): Promise<QueueProject> {
    return this.engine.write(async (tx) => {
      const row = await projectRow(tx, projectId);
      if (!row) throw notFound(`Project not found: ${projectId}. Use list_projects to see the projects.`, { projectId });
      if (row.status !== 'closed') {
        await tx.run("UPDATE projects SET status = 'closed', closed_at = ?, updated_at = ? WHERE project_id = ?", [at, at, projectId]);
        await audit(tx, { projectId, at, actor, action: 'project_closed' });
      }
      return await toProject(tx, (await projectRow(tx, projectId))!);
    });
  }

  // ---- task types ----------------------------------------------------------------------------

  async createTaskType(t: NewTaskType, actor: Actor): Promise<TaskType> {
    return this.engine.write(async (tx) => {
      const project = await openProjectRow(tx, t.projectId, 'task types');
      if (await tx.get('SELECT 1 AS x FROM task_types WHERE project_id = ? AND name = ?', [t.projectId, t.name])) {
        throw new LedgerError('conflict', `Task type "${t.name}" already exists in project ${t.projectId}. Use get_task_type to see it, or choose another name.`, {
          details: { projectId: t.projectId, name: t.name },
        });
      }
      await tx.run(
        `INSERT INTO task_types (type_id, project_id, name, template, variables, duplicate_handling, max_retries, lease_minutes, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      await audit(tx, { projectId: t.projectId, at: t.at, actor, action: 'task_type_created', details: { typeId: t.id, name: t.name } });
      return toType((await tx.get<TypeRow>('SELECT * FROM task_types WHERE type_id = ?', [t.id]))!);
    });
  }

  async listTaskTypes(projectId: string): Promise<TaskType[]> {
    return this.engine.read(async (tx) => (await tx.all<TypeRow>('SELECT * FROM task_types WHERE project_id = ? ORDER BY created_at, name', [projectId])).map(toType));
  }

  async getTaskType(projectId: string, idOrName: string): Promise<TaskType | undefined> {
    return this.engine.read(async (tx) => {
      const row =
        await tx.get<TypeRow>('SELECT * FROM task_types WHERE project_id = ? AND type_id = ?', [projectId, idOrName]) ??
        await tx.get<TypeRow>('SELECT * FROM task_types WHERE project_id = ? AND name = ?', [projectId, idOrName]);
      return row ? toType(row) : undefined;
    });
  }

  // ---- tasks ---------------------------------------------------------------------------------

  async addTasks(projectId: string, tasks: NewTask[], at: string, actor: Actor): Promise<AddOutcome[]> {
    return this.engine.write(async (tx) => {
      const outcomes: AddOutcome[] = [];
      const types = new Map<string, TypeRow>();
      let created = 0;
      const project = await openProjectRow(tx, projectId, 'tasks');
      if (tasks.some((t) => t.typeId === '')) {
        let fallback = await tx.get<TypeRow>("SELECT * FROM task_types WHERE project_id = ? AND name = 'default'", [projectId]);
        if (!fallback) {
          const id = newQueueId();
          await tx.run(
            `INSERT INTO task_types (type_id, project_id, name, template, variables, duplicate_handling, max_retries, lease_minutes, created_at)
             VALUES (?, ?, 'default', NULL, '[]', 'allow', ?, ?, ?)`,
            [id, projectId, Number(project.default_max_retries), Number(project.default_lease_minutes), at],
          );
          await audit(tx, { projectId, at, actor, action: 'task_type_created', details: { typeId: id, name: 'default', auto: true } });
          fallback = (await tx.get<TypeRow>('SELECT * FROM task_types WHERE type_id = ?', [id]))!;
        }
        types.set('', fallback);
      }
      for (const t of tasks) {
        let type = types.get(t.typeId);
        if (!type) {
          type = await tx.get<TypeRow>('SELECT * FROM task_types WHERE project_id = ? AND type_id = ?', [projectId, t.typeId]);
          if (!type) {
            outcomes.push({ kind: 'error', message: `Task type ${t.typeId} does not exist in project ${projectId}` });
            continue;
          }
          types.set(t.typeId, type);
        }
        if (t.variablesKey !== null && type.duplicate_handling !== 'allow') {
          const dup = await tx.get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE type_id = ? AND variables_key = ? ORDER BY n LIMIT 1`, [type.type_id, t.variablesKey]);
          if (dup) {
            if (type.duplicate_handling === 'ignore') {
              outcomes.push({ kind: 'duplicate', task: toTask(dup), handling: 'ignore' });
            } else {
              outcomes.push({ kind: 'error', message: `A task with the same variables already exists (${dup.task_id}); task type "${type.name}" refuses duplicates` });
            }
            continue;
          }
        }
        await tx.run(
          `INSERT INTO tasks (task_id, project_id, type_id, instructions, variables, variables_key, status, retry_count, max_retries, lease_minutes, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
          [t.id, projectId, type.type_id, t.instructions, t.variables ? JSON.stringify(t.variables) : null, t.variablesKey, type.max_retries, type.lease_minutes, at],
        );
        outcomes.push({ kind: 'created', task: toTask((await taskRow(tx, t.id))!) });
        created++;
      }
      if (created > 0) {
        await audit(tx, {
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
    return this.engine.read(async (tx) => {
      const row = await taskRow(tx, taskId);
      if (!row) return undefined;
      const attempts = (await tx.all<AttemptRow>('SELECT * FROM task_attempts WHERE task_id = ? ORDER BY started_at, n', [taskId])).map(toAttempt);
      return { ...toTask(row), attempts };
    });
  }

  async listTasks(projectId: string, f: TaskFilter): Promise<{ tasks: Task[]; total: number }> {
    const where = ['project_id = ?'];
    const params: PgValue[] = [projectId];
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
    return this.engine.read(async (tx) => {
      const total = Number((await tx.get<{ n: number }>(`SELECT count(*) AS n FROM tasks WHERE ${clause}`, params))?.n ?? 0);
      const rows = await tx.all<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE ${clause} ORDER BY n LIMIT ? OFFSET ?`, [...params, f.limit, f.offset]);
      return { tasks: rows.map(toTask), total };
    });
  }

  // ---- agents --------------------------------------------------------------------------------

  async registerAgent(a: AgentAuth & { at: string }, actor: Actor): Promise<Agent> {
    return this.engine.write(async (tx) => {
      await openProjectRow(tx, a.projectId, 'agents');
      if (await tx.get('SELECT 1 AS x FROM agents WHERE project_id = ? AND name = ?', [a.projectId, a.name])) {
        throw new LedgerError('conflict', `Agent name "${a.name}" is already registered in project ${a.projectId}. Pass its apiKey to reconnect, or choose another name (or none, to get one).`, {
          details: { projectId: a.projectId, agentName: a.name },
        });
      }
      await tx.run("INSERT INTO agents (project_id, name, key_hash, status, session_id, connected_at, last_seen) VALUES (?, ?, ?, 'idle', ?, ?, ?)", [
        a.projectId,
        a.name,
        a.keyHash,
        a.sessionId,
        a.at,
        a.at,
      ]);
      await audit(tx, { projectId: a.projectId, at: a.at, actor, action: 'agent_registered', agentName: a.name });
      return toAgent((await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [a.projectId, a.name]))!);
    });
  }

  async agentAuth(projectId: string, name: string): Promise<AgentAuth | undefined> {
    return this.engine.read(async (tx) => {
      const r = await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]);
      return r ? { name: r.name, projectId: r.project_id, keyHash: r.key_hash, sessionId: r.session_id } : undefined;
    });
  }

  async agentByKeyHash(projectId: string, keyHash: string): Promise<AgentAuth | undefined> {
    return this.engine.read(async (tx) => {
      const r = await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND key_hash = ?', [projectId, keyHash]);
      return r ? { name: r.name, projectId: r.project_id, keyHash: r.key_hash, sessionId: r.session_id } : undefined;
    });
  }

  async bindAgentSession(projectId: string, name: string, sessionId: string, at: string, reconnect: boolean): Promise<Agent> {
    return this.engine.write(async (tx) => {
      const before = await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]);
      if (!before) throw notFound(`Agent not found: ${name} in project ${projectId}. Register it with register_agent.`, { projectId, agentName: name });
      await tx.run('UPDATE agents SET session_id = ?, last_seen = ?, connected_at = CASE WHEN session_id IS NOT DISTINCT FROM ?::text THEN connected_at ELSE ? END WHERE project_id = ? AND name = ?', [
        sessionId,
        at,
        sessionId,
        at,
        projectId,
        name,
      ]);
      if (reconnect && before.session_id !== null && before.session_id !== sessionId) {
        await audit(tx, { projectId, at, actor: { kind: 'agent', name }, action: 'agent_reconnected', agentName: name, details: { supersededSession: before.session_id !== null } });
      }
      return toAgent((await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]))!);
    });
  }

  async getAgent(projectId: string, name: string): Promise<Agent | undefined> {
    return this.engine.read(async (tx) => {
      const r = await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, name]);
      return r ? toAgent(r) : undefined;
    });
  }

  // ---- the atomic agent operations -----------------------------------------------------------

  async requestTask(projectId: string, agentName: string, at: string): Promise<RequestOutcome> {
    return this.engine.write(async (tx): Promise<RequestOutcome> => {
      await reap(tx, at, projectId);
      const project = await projectRow(tx, projectId);
      if (!project) throw notFound(`Project not found: ${projectId}`, { projectId });
      await tx.run('UPDATE agents SET last_seen = ? WHERE project_id = ? AND name = ?', [at, projectId, agentName]);
      const agent = await tx.get<AgentRow>('SELECT * FROM agents WHERE project_id = ? AND name = ?', [projectId, agentName]);
      if (!agent) throw notFound(`Agent not found: ${agentName} in project ${projectId}. Register it with register_agent.`, { projectId, agentName });
      if (agent.current_task_id) {
        const current = await tx.get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ? AND status = 'running' AND assigned_to = ?`, [agent.current_task_id, agentName]);
        if (current) return { kind: 'current', task: toTask(current) };
        await tx.run("UPDATE agents SET status = 'idle', current_task_id = NULL WHERE project_id = ? AND name = ?", [projectId, agentName]);
      }
      if (project.status === 'closed') return { kind: 'closed' };
      // A task this agent just failed waits for another agent, if one is there (rules.ts).
      const others = await tx.get('SELECT 1 AS x FROM agents WHERE project_id = ? AND name <> ? AND (session_id IS NOT NULL OR last_seen > ?) LIMIT 1', [projectId, agentName, presentSince(at)]);
      // The queue head that no other transaction is assigning right now: many agents on many
      // machines take tasks at once, each a different one, none waiting on another's lock.
      const next = others
        ? await tx.get<TaskRow>(
            `SELECT ${TASK_COLUMNS} FROM tasks WHERE project_id = ? AND status = 'queued' AND (backoff_agent IS NULL OR backoff_agent <> ? OR backoff_until <= ?) ORDER BY n LIMIT 1 FOR UPDATE SKIP LOCKED`,
            [projectId, agentName, at],
          )
        : await tx.get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE project_id = ? AND status = 'queued' ORDER BY n LIMIT 1 FOR UPDATE SKIP LOCKED`, [projectId]);
      if (!next) {
        const c = await counts(tx, projectId);
        const held = others
          ? (await tx.get<{ t: string | null }>("SELECT min(backoff_until) AS t FROM tasks WHERE project_id = ? AND status = 'queued' AND backoff_agent = ? AND backoff_until > ?", [projectId, agentName, at]))?.t
          : null;
        return { kind: 'empty', counts: { running: c.runningTasks, queued: c.queuedTasks }, ...(held ? { retryAt: held } : {}) };
      }
      const expires = addMinutes(at, Number(next.lease_minutes));
      await tx.run("UPDATE tasks SET status = 'running', assigned_to = ?, lease_expires_at = ?, assigned_at = ?, backoff_agent = NULL, backoff_until = NULL WHERE task_id = ? AND status = 'queued'", [
        agentName,
        expires,
        at,
        next.task_id,
      ]);
      await tx.run("INSERT INTO task_attempts (attempt_id, task_id, agent_name, started_at, status, lease_expires_at) VALUES (?, ?, ?, ?, 'running', ?)", [
        newQueueId(),
        next.task_id,
        agentName,
        at,
        expires,
      ]);
      await tx.run("UPDATE agents SET status = 'working', current_task_id = ? WHERE project_id = ? AND name = ?", [next.task_id, projectId, agentName]);
      await audit(tx, { projectId, at, actor: { kind: 'agent', name: agentName }, action: 'task_assigned', taskId: next.task_id, agentName, details: { leaseExpiresAt: expires } });
      return { kind: 'assigned', task: toTask((await taskRow(tx, next.task_id))!) };
    });
  }

  async currentTask(projectId: string, agentName: string, at: string): Promise<Task | undefined> {
    return this.engine.write(async (tx) => {
      await reap(tx, at, projectId);
      await tx.run('UPDATE agents SET last_seen = ? WHERE project_id = ? AND name = ?', [at, projectId, agentName]);
      const row = await tx.get<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE project_id = ? AND status = 'running' AND assigned_to = ? LIMIT 1`, [projectId, agentName]);
      return row ? toTask(row) : undefined;
    });
  }

  async completeTask(taskId: string, agentName: string, explanation: string, at: string): Promise<Task> {
    return this.engine.write(async (tx) => {
      const projectId = (await taskRow(tx, taskId))?.project_id;
      if (projectId) await reap(tx, at, projectId);
      const row = await ownedRunningTask(tx, taskId, agentName, 'complete');
      await tx.run("UPDATE tasks SET status = 'completed', completed_at = ?, result = ?, lease_expires_at = NULL, failure_reason = NULL WHERE task_id = ?", [at, explanation, taskId]);
      await tx.run("UPDATE task_attempts SET status = 'completed', completed_at = ?, explanation = ? WHERE task_id = ? AND status = 'running'", [at, explanation, taskId]);
      await tx.run("UPDATE agents SET status = 'idle', current_task_id = NULL, last_seen = ? WHERE project_id = ? AND name = ?", [at, row.project_id, agentName]);
      await audit(tx, { projectId: row.project_id, at, actor: { kind: 'agent', name: agentName }, action: 'task_completed', taskId, agentName });
      return toTask((await taskRow(tx, taskId))!);
    });
  }

  async failTask(taskId: string, agentName: string, explanation: string, canRetry: boolean, at: string): Promise<{ task: Task; requeued: boolean }> {
    return this.engine.write(async (tx) => {
      const projectId = (await taskRow(tx, taskId))?.project_id;
      if (projectId) await reap(tx, at, projectId);
      const row = await ownedRunningTask(tx, taskId, agentName, 'fail');
      const next = afterFailure(toTask(row), canRetry);
      const backoffUntil = next.status === 'queued' ? retryBackoffUntil(at, Number(row.lease_minutes)) : null;
      await tx.run(
        `UPDATE tasks SET status = ?, retry_count = ?, assigned_to = CASE WHEN ?::text = 'failed' THEN assigned_to ELSE NULL END, lease_expires_at = NULL,
                result = ?, failure_reason = 'agent_reported', completed_at = CASE WHEN ?::text = 'failed' THEN ? ELSE NULL END,
                backoff_agent = ?, backoff_until = ?
          WHERE task_id = ?`,
        [next.status, next.retryCount, next.status, explanation, next.status, at, backoffUntil === null ? null : agentName, backoffUntil, taskId],
      );
      await tx.run("UPDATE task_attempts SET status = 'failed', completed_at = ?, explanation = ?, failure_reason = 'agent_reported' WHERE task_id = ? AND status = 'running'", [
        at,
        explanation,
        taskId,
      ]);
      await tx.run("UPDATE agents SET status = 'idle', current_task_id = NULL, last_seen = ? WHERE project_id = ? AND name = ?", [at, row.project_id, agentName]);
      await audit(tx, {
        projectId: row.project_id,
        at,
        actor: { kind: 'agent', name: agentName },
        action: next.status === 'queued' ? 'task_failed_requeued' : 'task_failed',
        taskId,
        agentName,
        details: { canRetry, retryCount: next.retryCount, maxRetries: Number(row.max_retries) },
      });
      return { task: toTask((await taskRow(tx, taskId))!), requeued: next.status === 'queued' };
    });
  }

  async extendLease(taskId: string, agentName: string, minutes: number, at: string): Promise<Task> {
    return this.engine.write(async (tx) => {
      const projectId = (await taskRow(tx, taskId))?.project_id;
      if (projectId) await reap(tx, at, projectId);
      const row = await ownedRunningTask(tx, taskId, agentName, 'extend');
      const expires = addMinutes(row.lease_expires_at ?? at, minutes);
      await tx.run('UPDATE tasks SET lease_expires_at = ? WHERE task_id = ?', [expires, taskId]);
      await tx.run("UPDATE task_attempts SET lease_expires_at = ? WHERE task_id = ? AND status = 'running'", [expires, taskId]);
      await tx.run('UPDATE agents SET last_seen = ? WHERE project_id = ? AND name = ?', [at, row.project_id, agentName]);
      await audit(tx, { projectId: row.project_id, at, actor: { kind: 'agent', name: agentName }, action: 'lease_extended', taskId, agentName, details: { minutes, leaseExpiresAt: expires } });
      return toTask((await taskRow(tx, taskId))!);
    });
  }

  async requeueTask(taskId: string, at: string, actor: Actor): Promise<Task> {
    return this.engine.write(async (tx) => {
      const row = await taskRow(tx, taskId, true);
      if (!row) throw notFound(`Task not found: ${taskId}`, { taskId });
      if (row.status === 'queued') return toTask(row);
      if (row.status === 'completed') throw new LedgerError('conflict', `Task ${taskId} is completed; add a new task instead of requeueing it.`, { details: { taskId } });
      if (row.status === 'running') await this.closeRunningAttempt(tx, row, at, `Requeued by ${actor.name}`);
      // A person's requeue gives the task a fresh set of retries.
      await tx.run("UPDATE tasks SET status = 'queued', retry_count = 0, assigned_to = NULL, lease_expires_at = NULL, completed_at = NULL, backoff_agent = NULL, backoff_until = NULL WHERE task_id = ?", [taskId]);
      await audit(tx, { projectId: row.project_id, at, actor, action: 'task_requeued', taskId, details: { from: row.status } });
      return toTask((await taskRow(tx, taskId))!);
    });
  }

  async cancelTask(taskId: string, at: string, actor: Actor): Promise<Task> {
    return this.engine.write(async (tx) => {
      const row = await taskRow(tx, taskId, true);
      if (!row) throw notFound(`Task not found: ${taskId}`, { taskId });
      if (row.status === 'cancelled') return toTask(row);
      if (row.status !== 'queued' && row.status !== 'running') {
        throw new LedgerError('conflict', `Task ${taskId} is ${row.status}; only a queued or running task can be cancelled.`, { details: { taskId, status: row.status } });
      }
      if (row.status === 'running') await this.closeRunningAttempt(tx, row, at, `Cancelled by ${actor.name}`);
      await tx.run("UPDATE tasks SET status = 'cancelled', lease_expires_at = NULL, completed_at = ?, result = ? WHERE task_id = ?", [at, `Cancelled by ${actor.name}`, taskId]);
      await audit(tx, { projectId: row.project_id, at, actor, action: 'task_cancelled', taskId, details: { from: row.status } });
      return toTask((await taskRow(tx, taskId))!);
    });
  }

  private async closeRunningAttempt(tx: PgWriteTx, row: TaskRow, at: string, why: string): Promise<void> {
    await tx.run("UPDATE task_attempts SET status = 'failed', completed_at = ?, explanation = ?, failure_reason = 'server_error' WHERE task_id = ? AND status = 'running'", [at, why, row.task_id]);
    if (row.assigned_to) {
      await tx.run("UPDATE agents SET status = 'idle', current_task_id = NULL WHERE project_id = ? AND name = ? AND current_task_id = ?", [row.project_id, row.assigned_to, row.task_id]);
    }
  }

  async reapExpired(at: string, projectId?: string): Promise<{ requeued: number; failed: number }> {
    const due = await this.engine.read(async (tx) =>
      await tx.get(`SELECT 1 AS x FROM tasks WHERE status = 'running' AND lease_expires_at < ?${projectId === undefined ? '' : ' AND project_id = ?'} LIMIT 1`, projectId === undefined ? [at] : [at, projectId]),
    );
    if (!due) return { requeued: 0, failed: 0 };
    return this.engine.write(async (tx) => await reap(tx, at, projectId));
  }

  // ---- status ----------------------------------------------------------------------------------

  async projectStatus(projectId: string, _at: string): Promise<ProjectQueueStatus | undefined> {
    return this.engine.read(async (tx) => {
      const row = await projectRow(tx, projectId);
      if (!row) return undefined;
      const agents = (await tx.all<AgentRow>('SELECT * FROM agents WHERE project_id = ? ORDER BY name', [projectId])).map(toAgent);
      return {
        project: await toProject(tx, row),
        agents: { total: agents.length, working: agents.filter((a) => a.status === 'working').length, idle: agents.filter((a) => a.status === 'idle').length, list: agents },
        oldestQueuedAt: (await tx.get<{ t: string | null }>("SELECT min(created_at) AS t FROM tasks WHERE project_id = ? AND status = 'queued'", [projectId]))?.t ?? null,
        nextLeaseExpiresAt: (await tx.get<{ t: string | null }>("SELECT min(lease_expires_at) AS t FROM tasks WHERE project_id = ? AND status = 'running'", [projectId]))?.t ?? null,
      };
    });
  }

  async taskHistory(taskId: string): Promise<TaskAttempt[] | undefined> {
    return this.engine.read(async (tx) => {
      if (!await taskRow(tx, taskId)) return undefined;
      return (await tx.all<AttemptRow>('SELECT * FROM task_attempts WHERE task_id = ? ORDER BY started_at, n', [taskId])).map(toAttempt);
    });
  }

  async auditLog(projectId: string, limit: number, beforeId: number | undefined): Promise<AuditEvent[]> {
    return this.engine.read(async (tx) =>
      (await tx
        .all<{ id: number; project_id: string; at: string; actor: string; action: string; task_id: string | null; agent_name: string | null; details: string | null }>(
          `SELECT * FROM queue_audit WHERE project_id = ?${beforeId === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?`,
          beforeId === undefined ? [projectId, limit] : [projectId, beforeId, limit],
        ))
        .map((r) => ({
          id: Number(r.id),
          projectId: r.project_id,
          at: r.at,
          actor: r.actor,
          action: r.action,
          taskId: r.task_id,
          agentName: r.agent_name,
          details: parseJson<Record<string, unknown> | null>(r.details, null),
        })),
    );
  }

  async countsByStatus(): Promise<{ projectId: string; status: TaskStatus; count: number }[]> {
    return this.engine.read(async (tx) =>
      (await tx
        .all<{ project_id: string; status: string; n: number }>('SELECT project_id, status, count(*) AS n FROM tasks GROUP BY project_id, status ORDER BY project_id, status'))
        .map((r) => ({ projectId: r.project_id, status: r.status as TaskStatus, count: Number(r.n) })),
    );
  }

  async metricsSnapshot(): Promise<QueueMetricsSnapshot> {
    return this.engine.read(async (tx) => ({
      attempts: (await tx
        .all<{ project_id: string; status: string; n: number }>(
          'SELECT t.project_id, a.status, count(*) AS n FROM task_attempts a JOIN tasks t ON t.task_id = a.task_id GROUP BY t.project_id, a.status ORDER BY t.project_id, a.status',
        ))
        .map((r) => ({ projectId: r.project_id, status: r.status as QueueMetricsSnapshot['attempts'][number]['status'], count: Number(r.n) })),
      oldestQueued: (await tx
        .all<{ project_id: string; at: string }>("SELECT project_id, min(created_at) AS at FROM tasks WHERE status = 'queued' GROUP BY project_id ORDER BY project_id"))
        .map((r) => ({ projectId: r.project_id, createdAt: r.at })),
      agents: (await tx
        .all<{ project_id: string; status: string; connected: number; n: number }>(
          'SELECT project_id, status, session_id IS NOT NULL AS connected, count(*) AS n FROM agents GROUP BY project_id, status, connected ORDER BY project_id, status, connected',
        ))
        .map((r) => ({ projectId: r.project_id, status: r.status as 'idle' | 'working', connected: Boolean(r.connected), count: Number(r.n) })),
    }));
  }

  async reaperSchedule(): Promise<ReaperSchedule> {
    return this.engine.read(async (tx) => {
      const m = (await tx.get<{ m: number | null }>("SELECT min(reaper_interval_minutes) AS m FROM projects WHERE status = 'active'"))?.m;
      const t = (await tx.get<{ t: string | null }>("SELECT min(lease_expires_at) AS t FROM tasks WHERE status = 'running'"))?.t;
      return { intervalMinutes: m === null || m === undefined ? undefined : Number(m), nextLeaseExpiresAt: t ?? undefined };
    });
  }

  // ---- sessions --------------------------------------------------------------------------------

  async saveSession(s: StoredSession): Promise<void> {
    await this.engine.write(async (tx) => {
      await tx.run(
        `INSERT INTO queue_sessions (session_id, project_id, agent_name, created_at, last_seen) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET project_id = excluded.project_id, agent_name = excluded.agent_name, last_seen = excluded.last_seen`,
        [s.id, s.projectId, s.agentName, s.createdAt, s.lastSeen],
      );
    });
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    return this.engine.read(async (tx) => {
      const r = await tx.get<{ session_id: string; project_id: string | null; agent_name: string | null; created_at: string; last_seen: string }>('SELECT * FROM queue_sessions WHERE session_id = ?', [id]);
      return r ? { id: r.session_id, projectId: r.project_id, agentName: r.agent_name, createdAt: r.created_at, lastSeen: r.last_seen } : undefined;
    });
  }

  async deleteSession(id: string): Promise<void> {
    await this.engine.write(async (tx) => {
      await tx.run('DELETE FROM queue_sessions WHERE session_id = ?', [id]);
      await tx.run('UPDATE agents SET session_id = NULL WHERE session_id = ?', [id]);
    });
  }

  async expireSessions(idleBefore: string): Promise<number> {
    return this.engine.write(async (tx) => {
      const stale = await tx.all<{ session_id: string }>('SELECT session_id FROM queue_sessions WHERE last_seen < ?', [idleBefore]);
      for (const s of stale) {
        await tx.run('DELETE FROM queue_sessions WHERE session_id = ?', [s.session_id]);
        await tx.run('UPDATE agents SET session_id = NULL WHERE session_id = ?', [s.session_id]);
      }
      return stale.length;
    });
  }
}
