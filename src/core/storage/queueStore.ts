// The task queue's store interface. Every method that changes a task is one atomic transaction
// (under the embedded engine's inter-process lock; row locks on a server database), expired leases
// reaped first, so two agents never hold the same task under any interleaving.

import type { Actor, Agent, AuditEvent, ProjectConfig, ProjectQueueStatus, QueueProject, Task, TaskAttempt, TaskStatus, TaskType, TaskWithHistory } from '../queue/types';

export interface NewQueueProject {
  projectId: string;
  description: string;
  config: ProjectConfig;
  at: string;
}

/** A task type as the service creates it; retries and lease left undefined take the project's defaults. */
export interface NewTaskType extends Omit<TaskType, 'maxRetries' | 'leaseDurationMinutes' | 'createdAt'> {
  maxRetries: number | undefined;
  leaseDurationMinutes: number | undefined;
  at: string;
}

/** A task ready to store: instructions final (template applied), type resolved. */
export interface NewTask {
  id: string;
  typeId: string;
  instructions: string;
  variables: Record<string, string> | null;
  variablesKey: string | null;
}

export type AddOutcome = { kind: 'created'; task: Task } | { kind: 'duplicate'; task: Task; handling: 'ignore' } | { kind: 'error'; message: string };

export interface AgentAuth {
  name: string;
  projectId: string;
  keyHash: string;
  sessionId: string | null;
}

export interface TaskFilter {
  status?: TaskStatus;
  typeId?: string;
  agentName?: string;
  limit: number;
  offset: number;
}

export type RequestOutcome =
  | { kind: 'assigned'; task: Task }
  | { kind: 'current'; task: Task }
  /** retryAt: when a task this agent failed, kept from it for another agent, comes back to it. */
  | { kind: 'empty'; counts: { running: number; queued: number }; retryAt?: string }
  | { kind: 'closed' };

export interface StoredSession {
  id: string;
  projectId: string | null;
  agentName: string | null;
  createdAt: string;
  lastSeen: string;
}

export interface ReaperSchedule {
  /** The shortest reaperIntervalMinutes of the active projects, whether or not they run tasks. */
  intervalMinutes: number | undefined;
  /** The earliest lease_expires_at of the running tasks, in any project. */
  nextLeaseExpiresAt: string | undefined;
}

export interface QueueMetricsSnapshot {
  attempts: { projectId: string; status: 'running' | 'completed' | 'failed' | 'timeout'; count: number }[];
  oldestQueued: { projectId: string; createdAt: string }[];
  agents: { projectId: string; status: 'idle' | 'working'; connected: boolean; count: number }[];
}

/**
 * The session that must hold the agent an operation acts as: checked first, inside the
 * operation's own transaction (a refusal changes nothing), so that an agent's call is one trip
 * to the ledger. Refused with not_found when the agent is gone, permission_denied when another
 * session took it over (core/queue/agentRefusals.ts).
 */
export interface Holder {
  projectId: string;
  sessionId: string;
}

export interface QueueStore {
  /** Creates the project (throws conflict if it exists). */
  createProject(project: NewQueueProject, actor: Actor): Promise<QueueProject>;
  getProject(projectId: string): Promise<QueueProject | undefined>;
  listProjects(includeClosed: boolean): Promise<QueueProject[]>;
  closeProject(projectId: string, at: string, actor: Actor): Promise<QueueProject>;

  /** Refuses a project that does not exist (not_found) or is closed (conflict). */
  createTaskType(type: NewTaskType, actor: Actor): Promise<TaskType>;
  listTaskTypes(projectId: string): Promise<TaskType[]>;
  /** By id, or by name within the project. */
  getTaskType(projectId: string, idOrName: string): Promise<TaskType | undefined>;

  /**
   * Adds tasks in one transaction, creating the project's "default" type for tasks whose typeId
   * is '' (plain instructions); each row's outcome (duplicates by variables). Refuses a project
   * that does not exist (not_found) or is closed (conflict): a task never creates its project.
   */
  addTasks(projectId: string, tasks: NewTask[], at: string, actor: Actor): Promise<AddOutcome[]>;
  getTask(taskId: string): Promise<TaskWithHistory | undefined>;
  listTasks(projectId: string, filter: TaskFilter): Promise<{ tasks: Task[]; total: number }>;

  /** Refuses a project that does not exist (not_found) or is closed (conflict). */
  registerAgent(agent: AgentAuth & { at: string }, actor: Actor): Promise<Agent>;
  /** The agent with its key hash, for authentication. */
  agentAuth(projectId: string, name: string): Promise<AgentAuth | undefined>;
  /** The agents of a project whose key hash is this one (at most one). */
  agentByKeyHash(projectId: string, keyHash: string): Promise<AgentAuth | undefined>;
  /** Binds the agent to a session (a reconnect supersedes any other session). */
  bindAgentSession(projectId: string, name: string, sessionId: string, at: string, reconnect: boolean): Promise<Agent>;
  getAgent(projectId: string, name: string): Promise<Agent | undefined>;

  /**
   * The agent's running task, else the oldest queued task, skipping one this agent failed within
   * its back-off (rules.ts retryBackoffUntil) while another agent of the project is present.
   */
  requestTask(projectId: string, agentName: string, at: string, holder?: Holder): Promise<RequestOutcome>;
  currentTask(projectId: string, agentName: string, at: string, holder?: Holder): Promise<Task | undefined>;
  completeTask(taskId: string, agentName: string, explanation: string, at: string, holder?: Holder): Promise<Task>;
  failTask(taskId: string, agentName: string, explanation: string, canRetry: boolean, at: string, holder?: Holder): Promise<{ task: Task; requeued: boolean }>;
  extendLease(taskId: string, agentName: string, minutes: number, at: string, holder?: Holder): Promise<Task>;
  /** A person puts a task back in the queue (running or failed) or withdraws it. */
  requeueTask(taskId: string, at: string, actor: Actor): Promise<Task>;
  cancelTask(taskId: string, at: string, actor: Actor): Promise<Task>;
  /** Expired leases: requeued while retries remain, else failed with reason timeout. */
  reapExpired(at: string, projectId?: string): Promise<{ requeued: number; failed: number }>;

  projectStatus(projectId: string, at: string): Promise<ProjectQueueStatus | undefined>;
  taskHistory(taskId: string): Promise<TaskAttempt[] | undefined>;
  auditLog(projectId: string, limit: number, beforeId: number | undefined): Promise<AuditEvent[]>;
  /** Counts by project and status, for /metrics. */
  countsByStatus(): Promise<{ projectId: string; status: TaskStatus; count: number }[]>;
  /** For /metrics: attempts by outcome, the oldest queued task and agents by state, per project. */
  metricsSnapshot(): Promise<QueueMetricsSnapshot>;
  /** What the reaper timer follows: the shortest interval of the active projects, the next lease to expire. */
  reaperSchedule(): Promise<ReaperSchedule>;

  saveSession(session: StoredSession): Promise<void>;
  getSession(id: string): Promise<StoredSession | undefined>;
  deleteSession(id: string): Promise<void>;
  expireSessions(idleBefore: string): Promise<number>;
}
