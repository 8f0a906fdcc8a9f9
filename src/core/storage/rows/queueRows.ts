// Rows of the queue tables and their mapping to the core's types, shared by the embedded
// engine's and PostgreSQL's stores (src/core/storage/sqlite, src/core/storage/postgres): the
// same columns on both backends, read and written the same way.

import type { Agent, AgentStatus, DuplicateHandling, FailureReason, Task, TaskAttempt, TaskStatus, TaskType } from '../../queue/types';
import { parseJson } from './json';

export interface ProjectRow {
  project_id: string;
  name: string;
  description: string;
  status: string;
  created_at: string;
  updated_at: string | null;
  closed_at: string | null;
  default_max_retries: number;
  default_lease_minutes: number;
  reaper_interval_minutes: number;
}

export interface TaskRow {
  task_id: string;
  project_id: string;
  type_id: string;
  instructions: string;
  variables: string | null;
  status: string;
  assigned_to: string | null;
  lease_expires_at: string | null;
  retry_count: number;
  max_retries: number;
  lease_minutes: number;
  created_at: string;
  assigned_at: string | null;
  completed_at: string | null;
  result: string | null;
  failure_reason: string | null;
}

export interface TypeRow {
  type_id: string;
  project_id: string;
  name: string;
  template: string | null;
  variables: string;
  duplicate_handling: string;
  max_retries: number;
  lease_minutes: number;
  created_at: string;
}

export interface AttemptRow {
  attempt_id: string;
  agent_name: string;
  started_at: string;
  completed_at: string | null;
  status: string;
  explanation: string | null;
  failure_reason: string | null;
  lease_expires_at: string | null;
}

export interface AgentRow {
  project_id: string;
  name: string;
  key_hash: string;
  status: string;
  current_task_id: string | null;
  session_id: string | null;
  connected_at: string;
  last_seen: string;
}

export const TASK_COLUMNS =
  'task_id, project_id, type_id, instructions, variables, status, assigned_to, lease_expires_at, retry_count, max_retries, lease_minutes, created_at, assigned_at, completed_at, result, failure_reason';
export const PROJECT_COLUMNS = 'project_id, name, description, status, created_at, updated_at, closed_at, default_max_retries, default_lease_minutes, reaper_interval_minutes';

export function toTask(r: TaskRow): Task {
  return {
    id: r.task_id,
    projectId: r.project_id,
    typeId: r.type_id,
    instructions: r.instructions,
    variables: parseJson<Record<string, string> | null>(r.variables, null),
    status: r.status as TaskStatus,
    assignedTo: r.assigned_to,
    leaseExpiresAt: r.lease_expires_at,
    retryCount: Number(r.retry_count),
    maxRetries: Number(r.max_retries),
    leaseDurationMinutes: Number(r.lease_minutes),
    createdAt: r.created_at,
    assignedAt: r.assigned_at,
    completedAt: r.completed_at,
    result: r.result,
    failureReason: (r.failure_reason as FailureReason | null) ?? null,
  };
}

export function toType(r: TypeRow): TaskType {
  return {
    id: r.type_id,
    projectId: r.project_id,
    name: r.name,
    template: r.template,
    variables: parseJson<string[]>(r.variables, []),
    duplicateHandling: r.duplicate_handling as DuplicateHandling,
    maxRetries: Number(r.max_retries),
    leaseDurationMinutes: Number(r.lease_minutes),
    createdAt: r.created_at,
  };
}

export function toAttempt(r: AttemptRow): TaskAttempt {
  return {
    id: r.attempt_id,
    agentName: r.agent_name,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    status: r.status as TaskAttempt['status'],
    explanation: r.explanation,
    failureReason: (r.failure_reason as FailureReason | null) ?? null,
    leaseExpiresAt: r.lease_expires_at,
  };
}

export function toAgent(r: AgentRow): Agent {
  return {
    name: r.name,
    projectId: r.project_id,
    status: r.status as AgentStatus,
    currentTaskId: r.current_task_id,
    connectedAt: r.connected_at,
    lastSeen: r.last_seen,
    connected: r.session_id !== null,
  };
}
