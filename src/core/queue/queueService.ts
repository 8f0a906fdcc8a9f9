// The task queue's rules as the transports see them (TaskDriver specification, README "Tools": its Project, TaskType, Task,
// Agent and Reaper services, in one place): validation, ids, API keys, templates, who may act
// on what, and clear messages. The MCP tools, the CLI and the extension all call this.

import { customAlphabet } from 'nanoid';
import { newQueueId } from './ids';
import { invalidArgument, isLedgerError, LedgerError, notFound } from '../errors';
import type { Logger } from '../log';
import type { AddOutcome, Holder, NewTask, QueueStore } from '../storage/queueStore';
import { parseInput } from '../validation';
import { apiKeyMatches, hashApiKey, newApiKey } from './apiKeys';
import { projectClosed, projectNotFound } from './projectRefusals';
import { Reaper } from './reaper';
import { interpolate, validateTemplate, variablesKey, variablesProblem } from './rules';
import {
  addTaskInput,
  agentInput,
  agentStatusInput,
  auditLogInput,
  bulkRowInput,
  completeTaskInput,
  createProjectInput,
  createTasksBulkInput,
  createTaskTypeInput,
  extendLeaseInput,
  failTaskInput,
  listProjectsInput,
  listTasksInput,
  projectInput,
  projectScopeInput,
  QUEUE_LIMITS,
  registerAgentInput,
  taskInput,
  taskTypeInput,
} from './schemas';
import type { Actor, Agent, AuditEvent, ProjectConfig, ProjectQueueStatus, QueueProject, Task, TaskAttempt, TaskStatus, TaskType, TaskWithHistory } from './types';
import { newQueueSession, type QueueSession } from './session';

export { newQueueSession, type QueueSession };

export const DEFAULT_PROJECT_CONFIG: ProjectConfig = { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 10, reaperIntervalMinutes: 1 };
export const DEFAULT_TYPE_NAME = 'default';
/** The typeId of a task that goes to its project's default type (created with the task if missing). */
export const DEFAULT_TYPE_REF = '';

const agentSuffix = customAlphabet('abcdefghijkmnpqrstuvwxyz23456789', 5);

export interface BulkResult {
  tasksCreated: number;
  duplicatesIgnored: number;
  errors: { index: number; message: string }[];
  createdTasks: { id: string; typeId: string; status: string }[];
}

export interface QueueServiceDeps {
  store: QueueStore;
  logger: Logger;
  clock?: () => Date;
  /** The ledger's change events, so that the reaper hears of other processes' projects and leases. */
  onLedgerChange?: (listener: (change: { foreign: boolean; maintenance: boolean }) => void) => () => void;
}

export class QueueService {
  private readonly clock: () => Date;
  private reaper: Reaper | undefined;

  constructor(private readonly deps: QueueServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  private now(): string {
    return this.clock().toISOString();
  }

  // ---- projects ----------------------------------------------------------------------------

  async createProject(raw: unknown, actor: Actor, session?: QueueSession): Promise<QueueProject> {
    const input = parseInput(createProjectInput, raw);
    this.assertOperator(session, 'create a project');
    const project = await this.deps.store.createProject(
      {
        projectId: input.name,
        description: input.description ?? '',
        config: {
          defaultMaxRetries: input.defaultMaxRetries ?? DEFAULT_PROJECT_CONFIG.defaultMaxRetries,
          defaultLeaseDurationMinutes: input.defaultLeaseDurationMinutes ?? DEFAULT_PROJECT_CONFIG.defaultLeaseDurationMinutes,
          reaperIntervalMinutes: input.reaperIntervalMinutes ?? DEFAULT_PROJECT_CONFIG.reaperIntervalMinutes,
        },
        at: this.now(),
      },
      actor,
    );
    this.deps.logger.info('project created', { project_id: project.id, actor: actor.name });
    this.reaper?.wakeWithin(project.config.reaperIntervalMinutes * 60_000);
    return project;
  }

  async listProjects(raw: unknown, session?: QueueSession): Promise<QueueProject[]> {
    const input = parseInput(listProjectsInput, raw);
    const projects = await this.deps.store.listProjects(input.includeClosed ?? false);
    const scope = session?.agent?.projectId;
    return scope ? projects.filter((p) => p.id === scope) : projects;
  }

  async getProject(raw: unknown, session?: QueueSession): Promise<QueueProject> {
    const projectId = this.projectOf(parseInput(projectScopeInput, raw), session);
    this.assertScope(session, projectId);
    return this.requireProject(projectId);
  }

  async closeProject(raw: unknown, actor: Actor, session?: QueueSession): Promise<QueueProject> {
    const { projectId } = parseInput(projectInput, raw);
    this.assertOperator(session, 'close a project');
    const project = await this.deps.store.closeProject(projectId, this.now(), actor);
    this.deps.logger.info('project closed', { project_id: projectId, actor: actor.name });
    return project;
  }

  /** Sets the session's project: its later calls that leave projectId out default to it. */
  async joinProject(raw: unknown, session: QueueSession): Promise<QueueProject> {
    const { projectId } = parseInput(projectInput, raw);
    this.assertScope(session, projectId);
    const project = await this.requireProject(projectId);
    session.projectId = projectId;
    await this.persist(session);
    return project;
  }

  // ---- task types --------------------------------------------------------------------------

  async createTaskType(raw: unknown, actor: Actor, session?: QueueSession): Promise<TaskType> {
    const input = parseInput(createTaskTypeInput, raw);
    const projectId = this.projectOf(input, session);
    this.assertScope(session, projectId);
    if (input.variables !== undefined && input.template === undefined && input.variables.length > 0) {
      throw invalidArgument('variables without a template: give the template that uses them, e.g. "Summarise thread {{threadId}}"');
    }
    const variables = input.template !== undefined ? validateTemplate(input.template, input.variables) : [];
    await this.requireOpenProject(projectId, 'task types');
    return this.deps.store.createTaskType(
      {
        id: newQueueId(),
        projectId,
        name: input.name,
        template: input.template ?? null,
        variables,
        duplicateHandling: input.duplicateHandling ?? 'allow',
        maxRetries: input.maxRetries,
        leaseDurationMinutes: input.leaseDurationMinutes,
        at: this.now(),
      },
      actor,
    );
  }

  async listTaskTypes(raw: unknown, session?: QueueSession): Promise<TaskType[]> {
    const projectId = this.projectOf(parseInput(projectScopeInput, raw), session);
    this.assertScope(session, projectId);
    await this.requireProject(projectId);
    return this.deps.store.listTaskTypes(projectId);
  }

  async getTaskType(raw: unknown, session?: QueueSession): Promise<TaskType> {
    const input = parseInput(taskTypeInput, raw);
    const projectId = this.projectOf(input, session);
    const { typeId } = input;
    this.assertScope(session, projectId);
    return this.requireType(projectId, typeId);
  }

  // ---- tasks -------------------------------------------------------------------------------

  async addTask(raw: unknown, actor: Actor, session?: QueueSession): Promise<{ task: Task; created: boolean }> {
    const input = parseInput(addTaskInput, raw);
    const projectId = this.projectOf(input, session);
    this.assertScope(session, projectId);
    await this.requireOpenProject(projectId, 'tasks');
    const prepared = await this.prepareTask(projectId, input, new Map());
    const [outcome] = await this.deps.store.addTasks(projectId, [prepared], this.now(), actor);
    if (!outcome || outcome.kind === 'error') throw new LedgerError('conflict', outcome?.message ?? 'The task was not added', { details: { projectId } });
    this.deps.logger.info(outcome.kind === 'created' ? 'task added' : 'duplicate task ignored', { project_id: projectId, task_id: outcome.task.id });
    return { task: outcome.task, created: outcome.kind === 'created' };
  }

  /** Up to 1,000 tasks; rows that are wrong are reported by index and the rest are created. */
  async createTasksBulk(raw: unknown, actor: Actor, session?: QueueSession): Promise<BulkResult> {
    const input = parseInput(createTasksBulkInput, raw);
    const projectId = this.projectOf(input, session);
    this.assertScope(session, projectId);
    await this.requireOpenProject(projectId, 'tasks');
    const types = new Map<string, TaskType>();
    const errors: { index: number; message: string }[] = [];
    const rows: { index: number; task: NewTask }[] = [];
    for (const [index, row] of input.tasks.entries()) {
      try {
        const parsed = parseInput(bulkRowInput, row);
        rows.push({ index, task: await this.prepareTask(projectId, parsed, types) });
      } catch (err) {
        if (!isLedgerError(err)) throw err;
        errors.push({ index, message: err.message });
      }
    }
    const outcomes: AddOutcome[] =
      rows.length > 0
        ? await this.deps.store.addTasks(
            projectId,
            rows.map((r) => r.task),
            this.now(),
            actor,
          )
        : [];
    const result: BulkResult = { tasksCreated: 0, duplicatesIgnored: 0, errors, createdTasks: [] };
    outcomes.forEach((outcome, i) => {
      const index = rows[i]!.index;
      if (outcome.kind === 'created') {
        result.tasksCreated++;
        result.createdTasks.push({ id: outcome.task.id, typeId: outcome.task.typeId, status: outcome.task.status });
      } else if (outcome.kind === 'duplicate') {
        result.duplicatesIgnored++;
      } else {
        errors.push({ index, message: outcome.message });
      }
    });
    errors.sort((a, b) => a.index - b.index);
    this.deps.logger.info('tasks added in bulk', { project_id: projectId, created: result.tasksCreated, errors: errors.length });
    return result;
  }

  async getTask(raw: unknown, session?: QueueSession): Promise<TaskWithHistory> {
    const { taskId } = parseInput(taskInput, raw);
    const task = await this.deps.store.getTask(taskId);
    if (!task) throw notFound(`Task not found: ${taskId}. Use list_tasks to see a project's tasks.`, { taskId });
    this.assertScope(session, task.projectId);
    return task;
  }

  async listTasks(raw: unknown, session?: QueueSession): Promise<{ tasks: Task[]; total: number }> {
    const input = parseInput(listTasksInput, raw);
    const projectId = this.projectOf(input, session);
    this.assertScope(session, projectId);
    await this.requireProject(projectId);
    const typeId = input.typeId !== undefined ? (await this.requireType(projectId, input.typeId)).id : undefined;
    return this.deps.store.listTasks(projectId, {
      ...(input.status ? { status: input.status as TaskStatus } : {}),
      ...(typeId ? { typeId } : {}),
      limit: input.limit ?? QUEUE_LIMITS.defaultListLimit,
      offset: input.offset ?? 0,
    });
  }

  // ---- agents ------------------------------------------------------------------------------

  async registerAgent(raw: unknown, session: QueueSession): Promise<{ agent: Agent; apiKey?: string; reconnected: boolean }> {
    const input = parseInput(registerAgentInput, raw);
    const projectId = this.projectOf(input, session);
    this.assertScope(session, projectId, true);
    // A closed project's agents may reconnect (to finish what they hold), but no new one joins.
    const project = input.apiKey !== undefined ? await this.requireProject(projectId) : await this.requireOpenProject(projectId, 'agents');
    const at = this.now();
    if (input.apiKey !== undefined) {
      const auth =
        input.agentName !== undefined ? await this.deps.store.agentAuth(project.id, input.agentName) : await this.deps.store.agentByKeyHash(project.id, hashApiKey(input.apiKey));
      if (!auth || !apiKeyMatches(input.apiKey, auth.keyHash)) throw this.badKey(project.id, input.agentName);
      const agent = await this.deps.store.bindAgentSession(project.id, auth.name, session.id, at, true);
      await this.bind(session, project.id, auth.name);
      this.deps.logger.info('agent reconnected', { project_id: project.id, agent_id: auth.name, session_id: session.id });
      return { agent, reconnected: true };
    }
    const apiKey = newApiKey();
    for (let attempt = 0; ; attempt++) {
      const name = input.agentName ?? `agent-${agentSuffix()}`;
      try {
        const agent = await this.deps.store.registerAgent({ name, projectId: project.id, keyHash: hashApiKey(apiKey), sessionId: session.id, at }, { kind: 'agent', name });
        await this.bind(session, project.id, name);
        this.deps.logger.info('agent registered', { project_id: project.id, agent_id: name, session_id: session.id });
        return { agent, apiKey, reconnected: false };
      } catch (err) {
        if (input.agentName === undefined && isLedgerError(err) && err.code === 'conflict' && attempt < 5) continue;
        throw err;
      }
    }
  }

  async getCurrentTask(raw: unknown, session: QueueSession): Promise<Task | undefined> {
    const input = parseInput(agentInput, raw);
    const me = await this.authenticate(session, input);
    const task = await this.deps.store.currentTask(me.projectId, me.name, this.now(), me.holder);
    await me.bind();
    return task;
  }

  async requestTask(
    raw: unknown,
    session: QueueSession,
  ): Promise<{
    task: Task | undefined;
    alreadyAssigned: boolean;
    reason: 'assigned' | 'current' | 'empty' | 'closed';
    counts?: { running: number; queued: number };
    retryAt?: string;
  }> {
    const input = parseInput(agentInput, raw);
    const me = await this.authenticate(session, input);
    const outcome = await this.deps.store.requestTask(me.projectId, me.name, this.now(), me.holder);
    await me.bind();
    const fields = { project_id: me.projectId, agent_id: me.name, session_id: session.id };
    switch (outcome.kind) {
      case 'assigned':
        this.deps.logger.info('task assigned', { ...fields, task_id: outcome.task.id, lease_expires_at: outcome.task.leaseExpiresAt });
        if (outcome.task.leaseExpiresAt) this.reaper?.wakeBy(outcome.task.leaseExpiresAt);
        return { task: outcome.task, alreadyAssigned: false, reason: 'assigned' };
      case 'current':
        return { task: outcome.task, alreadyAssigned: true, reason: 'current' };
      case 'empty':
        return { task: undefined, alreadyAssigned: false, reason: 'empty', counts: outcome.counts, ...(outcome.retryAt ? { retryAt: outcome.retryAt } : {}) };
      case 'closed':
        return { task: undefined, alreadyAssigned: false, reason: 'closed' };
    }
  }

  async completeTask(raw: unknown, session: QueueSession): Promise<Task> {
    const input = parseInput(completeTaskInput, raw);
    const me = await this.authenticate(session, input, input.taskId);
    const task = await this.deps.store.completeTask(input.taskId, me.name, input.explanation, this.now(), me.holder);
    await me.bind();
    this.deps.logger.info('task completed', { project_id: me.projectId, agent_id: me.name, task_id: task.id });
    return task;
  }

  async failTask(raw: unknown, session: QueueSession): Promise<{ task: Task; requeued: boolean }> {
    const input = parseInput(failTaskInput, raw);
    const me = await this.authenticate(session, input, input.taskId);
    const out = await this.deps.store.failTask(input.taskId, me.name, input.explanation, input.canRetry ?? true, this.now(), me.holder);
    await me.bind();
    this.deps.logger.info(out.requeued ? 'task failed, requeued' : 'task failed', {
      project_id: me.projectId,
      agent_id: me.name,
      task_id: out.task.id,
      retry_count: out.task.retryCount,
    });
    return out;
  }

  async extendLease(raw: unknown, session: QueueSession): Promise<Task> {
    const input = parseInput(extendLeaseInput, raw);
    const me = await this.authenticate(session, input, input.taskId);
    const task = await this.deps.store.extendLease(input.taskId, me.name, input.additionalMinutes, this.now(), me.holder);
    await me.bind();
    if (task.leaseExpiresAt) this.reaper?.wakeBy(task.leaseExpiresAt);
    return task;
  }

  // ---- status ------------------------------------------------------------------------------

  async getProjectStatus(raw: unknown, session?: QueueSession): Promise<ProjectQueueStatus> {
    const projectId = this.projectOf(parseInput(projectScopeInput, raw), session);
    this.assertScope(session, projectId);
    await this.deps.store.reapExpired(this.now(), projectId);
    const status = await this.deps.store.projectStatus(projectId, this.now());
    if (!status) throw projectNotFound(projectId);
    return status;
  }

  async getAgentStatus(raw: unknown, session?: QueueSession): Promise<Agent> {
    const input = parseInput(agentStatusInput, raw);
    const projectId = this.projectOf(input, session);
    const { agentName } = input;
    this.assertScope(session, projectId);
    const agent = await this.deps.store.getAgent(projectId, agentName);
    if (!agent) throw notFound(`Agent not found: ${agentName} in project ${projectId}. get_project_status lists the agents.`, { projectId, agentName });
    return agent;
  }

  async getTaskHistory(raw: unknown, session?: QueueSession): Promise<{ taskId: string; attempts: TaskAttempt[] }> {
    const task = await this.getTask(raw, session);
    return { taskId: task.id, attempts: task.attempts };
  }

  async getAuditLog(raw: unknown, session?: QueueSession): Promise<{ events: AuditEvent[]; nextBefore: number | null }> {
    const input = parseInput(auditLogInput, raw);
    const projectId = this.projectOf(input, session);
    this.assertScope(session, projectId);
    await this.requireProject(projectId);
    const limit = input.limit ?? QUEUE_LIMITS.defaultListLimit;
    const events = await this.deps.store.auditLog(projectId, limit, input.before);
    return { events, nextBefore: events.length === limit ? events[events.length - 1]!.id : null };
  }

  // ---- operators (the editor, the CLI) -----------------------------------------------------

  async requeueTask(taskId: string, actor: Actor): Promise<Task> {
    const task = await this.deps.store.requeueTask(taskId, this.now(), actor);
    this.deps.logger.info('task requeued by a person', { project_id: task.projectId, task_id: taskId, actor: actor.name });
    return task;
  }

  async cancelTask(taskId: string, actor: Actor): Promise<Task> {
    const task = await this.deps.store.cancelTask(taskId, this.now(), actor);
    this.deps.logger.info('task cancelled by a person', { project_id: task.projectId, task_id: taskId, actor: actor.name });
    return task;
  }

  /** Reaps expired leases everywhere; the timer calls this, and so may anyone. */
  async reap(): Promise<{ requeued: number; failed: number }> {
    const out = await this.deps.store.reapExpired(this.now());
    if (out.requeued + out.failed > 0) this.deps.logger.info('expired leases reaped', { requeued: out.requeued, failed: out.failed });
    return out;
  }

  /**
   * Runs the reaper on a timer (src/core/queue/reaper.ts): at the shortest reaper interval of the
   * active projects, and just after the next lease it knows of expires, whether or not anything
   * runs; a project or lease made here, or another process's write the ledger announces, brings
   * it forward. Idle HTTP sessions are expired at most once a minute.
   */
  startReaper(options: { maxMs?: number; sessionIdleMs?: number } = {}): () => void {
    let sessionsCheckedAt = 0;
    const reaper = new Reaper({
      work: async () => {
        await this.reap();
        const now = this.clock().getTime();
        if (options.sessionIdleMs && now - sessionsCheckedAt >= 60_000) {
          sessionsCheckedAt = now;
          await this.deps.store.expireSessions(new Date(now - options.sessionIdleMs).toISOString());
        }
      },
      schedule: () => this.deps.store.reaperSchedule(),
      logger: this.deps.logger,
      clock: this.clock,
      maxMs: options.maxMs ?? 60_000,
    });
    const unsubscribe = this.deps.onLedgerChange?.((change) => {
      if (change.foreign && !change.maintenance) reaper.replan();
    });
    this.reaper = reaper;
    reaper.start();
    return () => {
      unsubscribe?.();
      reaper.stop();
      if (this.reaper === reaper) this.reaper = undefined;
    };
  }

  /** Prometheus text: tasks by project and status, and queue depth per project. */
  async metrics(): Promise<string> {
    const rows = await this.deps.store.countsByStatus();
    const projects = await this.deps.store.listProjects(true);
    const label = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
    const lines = ['# HELP agent_progress_tasks Tasks by project and status.', '# TYPE agent_progress_tasks gauge'];
    const statuses: TaskStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];
    for (const p of projects) {
      for (const s of statuses) {
        const n = rows.find((r) => r.projectId === p.id && r.status === s)?.count ?? 0;
        lines.push(`agent_progress_tasks{project="${label(p.id)}",status="${s}"} ${n}`);
      }
    }
    lines.push('# HELP agent_progress_queue_depth Queued tasks waiting for an agent, by project.', '# TYPE agent_progress_queue_depth gauge');
    for (const p of projects) lines.push(`agent_progress_queue_depth{project="${label(p.id)}"} ${rows.find((r) => r.projectId === p.id && r.status === 'queued')?.count ?? 0}`);
    lines.push('# HELP agent_progress_projects_closed Whether a project is closed (1) or active (0).', '# TYPE agent_progress_projects_closed gauge');
    for (const p of projects) lines.push(`agent_progress_projects_closed{project="${label(p.id)}"} ${p.status === 'closed' ? 1 : 0}`);

    const snap = await this.deps.store.metricsSnapshot();
    const now = this.now();
    lines.push(
      '# HELP agent_progress_attempts_total Task attempts (assignments) by project and outcome: running, completed, failed, timeout.',
      '# TYPE agent_progress_attempts_total counter',
    );
    for (const p of projects) {
      for (const s of ['running', 'completed', 'failed', 'timeout'] as const) {
        lines.push(`agent_progress_attempts_total{project="${label(p.id)}",outcome="${s}"} ${snap.attempts.find((a) => a.projectId === p.id && a.status === s)?.count ?? 0}`);
      }
    }
    lines.push('# HELP agent_progress_oldest_queued_seconds Age of the oldest queued task, by project (0 when none waits).', '# TYPE agent_progress_oldest_queued_seconds gauge');
    for (const p of projects) {
      const at = snap.oldestQueued.find((o) => o.projectId === p.id)?.createdAt;
      const age = at ? Math.max(0, (Date.parse(now) - Date.parse(at)) / 1000) : 0;
      lines.push(`agent_progress_oldest_queued_seconds{project="${label(p.id)}"} ${Math.round(age * 1000) / 1000}`);
    }
    lines.push('# HELP agent_progress_agents Registered agents by project and state (working, idle, disconnected).', '# TYPE agent_progress_agents gauge');
    for (const p of projects) {
      const of = (pred: (a: (typeof snap.agents)[number]) => boolean) => snap.agents.filter((a) => a.projectId === p.id && pred(a)).reduce((n, a) => n + a.count, 0);
      lines.push(`agent_progress_agents{project="${label(p.id)}",state="working"} ${of((a) => a.status === 'working')}`);
      lines.push(`agent_progress_agents{project="${label(p.id)}",state="idle"} ${of((a) => a.status === 'idle' && a.connected)}`);
      lines.push(`agent_progress_agents{project="${label(p.id)}",state="disconnected"} ${of((a) => a.status === 'idle' && !a.connected)}`);
    }
    return lines.join('\n') + '\n';
  }

  // ---- helpers -----------------------------------------------------------------------------

  /**
   * A task ready to store, or an error saying what is wrong with it. Reads only: the project's
   * default type (for plain instructions) is created in the same transaction as the tasks, so a
   * refused task leaves nothing behind.
   */
  private async prepareTask(
    projectId: string,
    input: { typeId?: string | undefined; instructions?: string | undefined; variables?: Record<string, string> | undefined },
    types: Map<string, TaskType>,
  ): Promise<NewTask> {
    let type: Pick<TaskType, 'id' | 'name' | 'template' | 'variables'>;
    if (input.typeId === undefined) {
      type = { id: DEFAULT_TYPE_REF, name: DEFAULT_TYPE_NAME, template: null, variables: [] };
    } else {
      let known = types.get(input.typeId);
      if (!known) {
        known = await this.requireType(projectId, input.typeId);
        types.set(input.typeId, known);
      }
      type = known;
    }
    let instructions: string;
    if (type.template !== null) {
      if (input.instructions !== undefined) {
        throw invalidArgument(`Task type "${type.name}" has a template: give variables (${type.variables.join(', ') || 'none'}), not instructions`);
      }
      const problem = variablesProblem(type.name, type.variables, input.variables);
      if (problem) throw invalidArgument(problem);
      instructions = interpolate(type.template, input.variables ?? {});
    } else {
      if (input.instructions === undefined || input.instructions.trim() === '') {
        throw invalidArgument(`instructions is required: task type "${type.name}" has no template`);
      }
      if (input.variables && Object.keys(input.variables).length > 0) {
        throw invalidArgument(`Task type "${type.name}" has no template, so it takes no variables; put everything in instructions`);
      }
      instructions = input.instructions;
    }
    if ([...instructions].length > QUEUE_LIMITS.instructions) {
      throw invalidArgument(`The instructions would be ${[...instructions].length} characters with the variables filled in; at most ${QUEUE_LIMITS.instructions}`);
    }
    return { id: newQueueId(), typeId: type.id, instructions, variables: input.variables ?? null, variablesKey: variablesKey(input.variables) };
  }

  /** The projectId given, else the one this session joined (or its agent's). */
  private projectOf(input: { projectId?: string | undefined }, session: QueueSession | undefined): string {
    const projectId = input.projectId ?? session?.agent?.projectId ?? session?.projectId;
    if (projectId === undefined) throw invalidArgument('projectId is required: pass it, or call join_project first.');
    return projectId;
  }

  private async requireProject(projectId: string): Promise<QueueProject> {
    const project = await this.deps.store.getProject(projectId);
    if (!project) throw projectNotFound(projectId);
    return project;
  }

  /** A project that takes new tasks, types or agents (the store checks again in its transaction). */
  private async requireOpenProject(projectId: string, what: 'tasks' | 'task types' | 'agents'): Promise<QueueProject> {
    const project = await this.requireProject(projectId);
    if (project.status === 'closed') throw projectClosed(projectId, what);
    return project;
  }

  private async requireType(projectId: string, typeId: string): Promise<TaskType> {
    await this.requireProject(projectId);
    const type = await this.deps.store.getTaskType(projectId, typeId);
    if (!type) throw notFound(`Task type not found: ${typeId} in project ${projectId}. Use list_task_types to see them.`, { projectId, typeId });
    return type;
  }

  private badKey(projectId: string, agentName: string | undefined): LedgerError {
    return new LedgerError(
      'permission_denied',
      `That apiKey is not the key of ${agentName ? `agent ${agentName}` : 'an agent'} in project ${projectId}. Use the key register_agent returned, or register a new agent.`,
      { details: { projectId } },
    );
  }

  /** An authenticated agent session may only see its own project. */
  private assertScope(session: QueueSession | undefined, projectId: string, registering = false): void {
    const agent = session?.agent;
    if (!agent || agent.projectId === projectId || registering) return;
    throw new LedgerError('permission_denied', `This session is agent ${agent.name} of project ${agent.projectId}; it cannot read or change project ${projectId}.`, {
      details: { projectId, sessionProject: agent.projectId },
    });
  }

  /** Setting projects up is an operator's job, not an agent's. */
  private assertOperator(session: QueueSession | undefined, what: string): void {
    const agent = session?.agent;
    if (!agent) return;
    throw new LedgerError(
      'permission_denied',
      `This session is agent ${agent.name}; agents cannot ${what}. Ask the person running the queue, or use a session that is not registered as an agent.`,
    );
  }

  /**
   * Who is calling: the agent this session authenticated as, or the agent whose apiKey is given.
   * Changes nothing: a key given from another session binds this one (superseding the other)
   * through `bind`, called once the operation succeeded, so that a refused call changes nothing.
   * The session's own agent is not read here: the operation's transaction checks that this
   * session still holds it (`holder`), so an agent's call is one trip to the ledger, not two.
   */
  private async authenticate(
    session: QueueSession,
    input: { projectId?: string | undefined; agentName?: string | undefined; apiKey?: string | undefined },
    taskId?: string,
  ): Promise<{ projectId: string; name: string; holder?: Holder; bind: () => Promise<void> }> {
    let projectId = input.projectId ?? session.agent?.projectId ?? session.projectId;
    if (projectId === undefined && taskId !== undefined) projectId = (await this.deps.store.getTask(taskId))?.projectId;
    if (projectId === undefined) throw invalidArgument('projectId is required: pass it, or call join_project or register_agent first');
    this.assertScope(session, projectId, input.apiKey !== undefined);
    if (input.apiKey !== undefined) {
      const auth =
        input.agentName !== undefined ? await this.deps.store.agentAuth(projectId, input.agentName) : await this.deps.store.agentByKeyHash(projectId, hashApiKey(input.apiKey));
      if (!auth || !apiKeyMatches(input.apiKey, auth.keyHash)) throw this.badKey(projectId, input.agentName);
      const pid = projectId;
      return {
        projectId,
        name: auth.name,
        bind: async () => {
          if (auth.sessionId !== session.id) await this.deps.store.bindAgentSession(pid, auth.name, session.id, this.now(), true);
          await this.bind(session, pid, auth.name);
        },
      };
    }
    const agent = session.agent;
    if (agent && agent.projectId === projectId && (input.agentName === undefined || input.agentName === agent.name)) {
      return { projectId, name: agent.name, holder: { projectId, sessionId: session.id }, bind: async () => undefined };
    }
    if (agent && input.agentName !== undefined && input.agentName !== agent.name) {
      throw new LedgerError('permission_denied', `This session is agent ${agent.name}; to act as ${input.agentName}, pass that agent's apiKey.`, { details: { projectId } });
    }
    throw new LedgerError(
      'permission_denied',
      `Register first: register_agent gives you an apiKey (shown once) and binds this session to your agent. An agent registered before can pass agentName and apiKey instead.`,
      { details: { projectId } },
    );
  }

  private async bind(session: QueueSession, projectId: string, name: string): Promise<void> {
    session.agent = { projectId, name };
    session.projectId = projectId;
    await this.persist(session);
  }

  private async persist(session: QueueSession): Promise<void> {
    if (!session.persistent) return;
    await this.deps.store.saveSession({
      id: session.id,
      projectId: session.projectId ?? null,
      agentName: session.agent?.name ?? null,
      createdAt: session.createdAt,
      lastSeen: this.now(),
    });
  }

  /** Restores a saved session (HTTP, after a server restart). */
  async restoreSession(id: string): Promise<QueueSession | undefined> {
    const saved = await this.deps.store.getSession(id);
    if (!saved) return undefined;
    const session = newQueueSession({ id, persistent: true, at: saved.createdAt });
    session.projectId = saved.projectId ?? undefined;
    if (saved.projectId && saved.agentName) {
      const auth = await this.deps.store.agentAuth(saved.projectId, saved.agentName);
      if (auth?.sessionId === id) session.agent = { projectId: saved.projectId, name: saved.agentName };
    }
    return session;
  }

  /** A session ends: its agent is no longer connected (its task keeps its lease). */
  async endSession(session: QueueSession): Promise<void> {
    await this.deps.store.deleteSession(session.id);
  }
}
