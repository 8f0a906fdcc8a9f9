// Rows of the review tables and their mapping to the core's types, shared by the embedded
// engine's and PostgreSQL's stores (src/core/storage/sqlite, src/core/storage/postgres): the
// same columns on both backends, read and written the same way.

import type {
  ActionKind,
  ActionStatus,
  ActionTarget,
  AgentState,
  ReviewAction,
  ReviewAgent,
  ReviewContext,
  ReviewDefinition,
  ReviewRun,
  ReviewThread,
  ThreadComment,
} from '../../review/types';
import { parseJson } from './json';

export interface RunRow {
  id: string;
  project_id: string;
  workflow: string;
  definition: string;
  phase: string;
  context: string;
  created_at: string;
  updated_at: string;
  phase_changed_at: string;
  finished_at: string | null;
  started_by: string;
}

export interface AgentRow {
  run_id: string;
  position: number;
  name: string;
  description: string | null;
  state: string;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  summary: string | null;
  starts: number;
  completions: number;
  anomalies: string;
}

export interface ActionRow {
  n: number;
  id: string;
  run_id: string;
  kind: string;
  target: string;
  text: string;
  original_text: string | null;
  status: string;
  created_at: string;
  created_by: string | null;
  edited_by: string | null;
  decided_at: string | null;
  decided_by: string | null;
  note: string | null;
  thread_id: string | null;
}

export interface ThreadRow {
  id: string;
  run_id: string;
  file: string | null;
  line: number | null;
  end_line: number | null;
  status: string;
  created_at: string;
  created_by: string;
  resolved_at: string | null;
  resolved_by: string | null;
  action_id: string | null;
}

export interface CommentRow {
  id: string;
  thread_id: string;
  author: string;
  body: string;
  created_at: string;
}

export const RUN_COLUMNS = 'id, project_id, workflow, definition, phase, context, created_at, updated_at, phase_changed_at, finished_at, started_by';
export const AGENT_COLUMNS = 'run_id, position, name, description, state, started_at, completed_at, duration_ms, summary, starts, completions, anomalies';
export const ACTION_COLUMNS = 'n, id, run_id, kind, target, text, original_text, status, created_at, created_by, edited_by, decided_at, decided_by, note, thread_id';
export const THREAD_COLUMNS = 'id, run_id, file, line, end_line, status, created_at, created_by, resolved_at, resolved_by, action_id';

export function toRun(r: RunRow): ReviewRun {
  return {
    id: r.id,
    projectId: r.project_id,
    workflow: r.workflow,
    definition: parseJson<ReviewDefinition>(r.definition, {
      name: r.workflow,
      title: null,
      description: null,
      agents: [],
      phases: [],
      context: { branch: null, merge_request: null, notes: null },
      source: '',
    }),
    phase: r.phase,
    context: parseJson<ReviewContext>(r.context, { branch: null, merge_request: null, notes: null }),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    phaseChangedAt: r.phase_changed_at,
    finishedAt: r.finished_at,
    startedBy: r.started_by,
  };
}

export function toAgent(r: AgentRow): ReviewAgent {
  return {
    runId: r.run_id,
    position: Number(r.position),
    name: r.name,
    description: r.description,
    state: r.state as AgentState,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    summary: r.summary,
    starts: Number(r.starts),
    completions: Number(r.completions),
    anomalies: parseJson<string[]>(r.anomalies, []),
  };
}

export function toAction(r: ActionRow): ReviewAction {
  return {
    id: r.id,
    runId: r.run_id,
    seq: Number(r.n),
    kind: r.kind as ActionKind,
    target: parseJson<ActionTarget>(r.target, {}),
    text: r.text,
    originalText: r.original_text,
    status: r.status as ActionStatus,
    createdAt: r.created_at,
    createdBy: r.created_by,
    editedBy: r.edited_by,
    decidedAt: r.decided_at,
    decidedBy: r.decided_by,
    note: r.note,
    threadId: r.thread_id,
  };
}

export function toComment(r: CommentRow): ThreadComment {
  return { id: r.id, threadId: r.thread_id, author: r.author, body: r.body, createdAt: r.created_at };
}

export function toThread(r: ThreadRow, comments: ThreadComment[]): ReviewThread {
  return {
    id: r.id,
    runId: r.run_id,
    file: r.file,
    line: r.line === null ? null : Number(r.line),
    endLine: r.end_line === null ? null : Number(r.end_line),
    status: r.status === 'resolved' ? 'resolved' : 'open',
    createdAt: r.created_at,
    createdBy: r.created_by,
    resolvedAt: r.resolved_at,
    resolvedBy: r.resolved_by,
    actionId: r.action_id,
    comments,
  };
}

export const FINAL = ['completed', 'failed'];
