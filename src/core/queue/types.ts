// Domain types of the task queue (TaskDriver specification, README "Tools": projects, task types, tasks, attempts, agents).

export type ProjectStatus = 'active' | 'closed';
export type DuplicateHandling = 'ignore' | 'fail' | 'allow';
/** `cancelled`: withdrawn by a person; never assigned again (an addition to the specification's four). */
export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type AttemptStatus = 'running' | 'completed' | 'failed' | 'timeout';
export type FailureReason = 'agent_reported' | 'timeout' | 'server_error';
export type AgentStatus = 'idle' | 'working';

export const TASK_STATUSES: readonly TaskStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

export interface ProjectConfig {
  defaultMaxRetries: number;
  defaultLeaseDurationMinutes: number;
  reaperIntervalMinutes: number;
}

export interface TaskCounts {
  totalTasks: number;
  queuedTasks: number;
  runningTasks: number;
  completedTasks: number;
  failedTasks: number;
  cancelledTasks: number;
}

export interface QueueProject {
  id: string;
  name: string;
  description: string;
  status: ProjectStatus;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  config: ProjectConfig;
  stats: TaskCounts;
}

export interface TaskType {
  id: string;
  projectId: string;
  name: string;
  template: string | null;
  variables: string[];
  duplicateHandling: DuplicateHandling;
  maxRetries: number;
  leaseDurationMinutes: number;
  createdAt: string;
}

export interface TaskAttempt {
  id: string;
  agentName: string;
  startedAt: string;
  completedAt: string | null;
  status: AttemptStatus;
  explanation: string | null;
  failureReason: FailureReason | null;
  leaseExpiresAt: string | null;
}

export interface Task {
  id: string;
  projectId: string;
  typeId: string;
  instructions: string;
  variables: Record<string, string> | null;
  status: TaskStatus;
  assignedTo: string | null;
  leaseExpiresAt: string | null;
  retryCount: number;
  maxRetries: number;
  leaseDurationMinutes: number;
  createdAt: string;
  assignedAt: string | null;
  completedAt: string | null;
  /** The last explanation given (completion, failure, timeout). */
  result: string | null;
  failureReason: FailureReason | null;
}

export interface TaskWithHistory extends Task {
  attempts: TaskAttempt[];
}

export interface Agent {
  name: string;
  projectId: string;
  status: AgentStatus;
  currentTaskId: string | null;
  connectedAt: string;
  lastSeen: string;
  /** True when some session is bound to this agent now. */
  connected: boolean;
}

export interface AuditEvent {
  id: number;
  projectId: string;
  at: string;
  actor: string;
  action: string;
  taskId: string | null;
  agentName: string | null;
  details: Record<string, unknown> | null;
}

export interface ProjectQueueStatus {
  project: QueueProject;
  agents: { total: number; working: number; idle: number; list: Agent[] };
  oldestQueuedAt: string | null;
  nextLeaseExpiresAt: string | null;
}

/** Who acts: an agent (authenticated) or an operator (the CLI, the editor, an unbound MCP session). */
export interface Actor {
  kind: 'agent' | 'operator';
  name: string;
}
