// Domain types of review runs (MCP Review Progress specification, README "Tools"): a definition read from the workspace, a run
// of it in the ledger with its phase, its agents' states, the actions agents queue for a person to
// approve, and the review threads on lines of files. Plain data; no storage, no transport.

/** The phases every definition has, in their default order; a definition may add its own between. */
export const REQUIRED_PHASES = ['pending', 'agents-running', 'synthesizing', 'publishing', 'completed', 'failed'] as const;
/** Phases that end a run: leaving one needs force. */
export const FINAL_PHASES: readonly string[] = ['completed', 'failed'];

export const AGENT_STATES = ['pending', 'running', 'completed', 'failed'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

/** What an agent may queue. open_thread also opens a thread in the ledger at once. */
export const ACTION_KINDS = ['post_comment', 'open_thread', 'reply_thread', 'resolve_thread'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export const ACTION_STATUSES = ['pending', 'approved', 'dismissed'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export type ThreadStatus = 'open' | 'resolved';

export interface ReviewContext {
  branch: string | null;
  merge_request: string | null;
  notes: string | null;
}

export interface DefinitionAgent {
  name: string;
  description: string | null;
}

export interface ReviewDefinition {
  /** The file's name without extension: what get_workflow's `workflow` argument names. */
  name: string;
  title: string | null;
  description: string | null;
  agents: DefinitionAgent[];
  /** Ordered; always holds every REQUIRED_PHASES name, `pending` first. */
  phases: string[];
  context: ReviewContext;
  /** Where it was read, relative to the workspace (e.g. .agent-progress/reviews/front.yaml). */
  source: string;
}

export interface ReviewRun {
  id: string;
  projectId: string;
  /** The definition's name. */
  workflow: string;
  /** The definition as it was when the run started (later edits of the file do not change a run). */
  definition: ReviewDefinition;
  phase: string;
  context: ReviewContext;
  createdAt: string;
  updatedAt: string;
  phaseChangedAt: string;
  /** When it reached completed or failed. */
  finishedAt: string | null;
  startedBy: string;
}

export interface ReviewAgent {
  runId: string;
  position: number;
  name: string;
  description: string | null;
  state: AgentState;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  summary: string | null;
  starts: number;
  completions: number;
  /** Order problems noticed (started twice, completed without start): recorded, not refused. */
  anomalies: string[];
}

export interface ActionTarget {
  file?: string;
  line?: number;
  end_line?: number;
  thread_id?: string;
}

export interface ReviewAction {
  id: string;
  runId: string;
  seq: number;
  kind: ActionKind;
  target: ActionTarget;
  text: string;
  /** The agent's text when a person edited it before deciding. */
  originalText: string | null;
  status: ActionStatus;
  createdAt: string;
  createdBy: string | null;
  editedBy: string | null;
  decidedAt: string | null;
  decidedBy: string | null;
  note: string | null;
  /** The thread it opened, replies to or resolves. */
  threadId: string | null;
}

export interface ThreadComment {
  id: string;
  threadId: string;
  author: string;
  body: string;
  createdAt: string;
}

export interface ReviewThread {
  id: string;
  runId: string;
  /** Workspace-relative path with forward slashes; null for a thread on the whole review. */
  file: string | null;
  /** 1-based. */
  line: number | null;
  endLine: number | null;
  status: ThreadStatus;
  createdAt: string;
  createdBy: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  actionId: string | null;
  comments: ThreadComment[];
}

export interface ReviewEvent {
  seq: number;
  runId: string;
  kind: 'run_started' | 'phase_changed';
  createdAt: string;
  data: Record<string, unknown>;
}

/** Everything a view or a status file shows of one run. */
export interface ReviewState {
  run: ReviewRun;
  agents: ReviewAgent[];
  actions: ReviewAction[];
  threads: ReviewThread[];
  events: ReviewEvent[];
}

export function isFinalPhase(phase: string): boolean {
  return FINAL_PHASES.includes(phase);
}
