// The store interface of review runs: what ReviewService needs from any backend (the embedded
// sql.js engine today, PostgreSQL later). Async, backend-neutral: no SQL here. Rules that must hold
// under concurrent writers (a phase moved from where it was read, an action decided once) are
// checked inside the write, so two processes cannot both win.

import type {
  ActionKind,
  ActionStatus,
  ActionTarget,
  ReviewAction,
  ReviewAgent,
  ReviewContext,
  ReviewDefinition,
  ReviewEvent,
  ReviewRun,
  ReviewThread,
  ThreadComment,
  ThreadStatus,
} from '../review/types';

export interface NewReviewRun {
  id: string;
  projectId: string;
  definition: ReviewDefinition;
  context: ReviewContext;
  createdAt: string;
  startedBy: string;
  eventId: string;
}

export interface PhaseChange {
  runId: string;
  /** The phase the caller saw; the write is refused (conflict, retryable) if it changed since. */
  from: string;
  to: string;
  at: string;
  forced: boolean;
  note: string | null;
  eventId: string;
}

export interface AgentStart {
  runId: string;
  name: string;
  at: string;
}

export interface AgentCompletion {
  runId: string;
  name: string;
  at: string;
  state: 'completed' | 'failed';
  summary: string | null;
}

export interface NewThread {
  id: string;
  runId: string;
  file: string | null;
  line: number | null;
  endLine: number | null;
  createdAt: string;
  createdBy: string;
  actionId: string | null;
  /** The first comment. */
  comment: { id: string; body: string };
}

export interface NewAction {
  id: string;
  runId: string;
  kind: ActionKind;
  target: ActionTarget;
  text: string;
  createdAt: string;
  createdBy: string | null;
  threadId: string | null;
  /** For open_thread: the thread it opens, stored in the same write. */
  thread?: NewThread;
}

export interface ActionDecision {
  actionId: string;
  status: Exclude<ActionStatus, 'pending'>;
  by: string;
  at: string;
  note: string | null;
  /** Ids for what an approval writes: a reply comment (reply_thread). */
  commentId: string;
}

export interface RunQuery {
  projectId?: string;
  /** true: only runs not completed or failed. */
  active?: boolean;
  /** Only runs of this definition, of this branch, of this merge request (context values, exact). */
  workflow?: string;
  branch?: string;
  mergeRequest?: string;
  limit: number;
}

export interface ReviewStore {
  /** Stores a run with its agents (all pending) in phase pending, creating its project on first use. */
  insertRun(run: NewReviewRun): Promise<void>;
  getRun(id: string): Promise<ReviewRun | undefined>;
  /** Runs newest first. */
  listRuns(query: RunQuery): Promise<ReviewRun[]>;
  /** Moves the phase. Throws not_found, or conflict (retryable) when the phase is no longer `from`. */
  setPhase(change: PhaseChange): Promise<ReviewRun>;
  /** The run's agents in definition order. */
  listAgents(runId: string): Promise<ReviewAgent[]>;
  /**
   * Marks an agent running. An agent already running or done is started again and the anomaly
   * recorded ("started twice"). Throws not_found for a run or agent that does not exist.
   */
  startAgent(start: AgentStart): Promise<ReviewAgent>;
  /**
   * Marks an agent completed or failed with its time and summary. Without a start first, or a
   * second time, it is recorded as an anomaly. Throws not_found for a run or agent that does not exist.
   */
  completeAgent(completion: AgentCompletion): Promise<ReviewAgent>;
  /** Queues an action (and opens its thread). Throws not_found for the run or the target thread. */
  insertAction(action: NewAction): Promise<void>;
  getAction(id: string): Promise<ReviewAction | undefined>;
  /** The run's actions in the order they were queued; optionally only those in `status`. */
  listActions(runId: string, status?: ActionStatus): Promise<ReviewAction[]>;
  /** Changes a pending action's text (a person's edit); conflict once decided. */
  editAction(actionId: string, text: string, by: string, at: string): Promise<ReviewAction>;
  /**
   * Approves or dismisses a pending action; conflict once decided. Approving applies it to the
   * ledger's threads: reply_thread adds its text as a comment, resolve_thread resolves the thread.
   */
  decideAction(decision: ActionDecision): Promise<ReviewAction>;
  insertThread(thread: NewThread): Promise<void>;
  getThread(id: string): Promise<ReviewThread | undefined>;
  /** The run's threads in creation order, with their comments. */
  listThreads(runId: string, status?: ThreadStatus): Promise<ReviewThread[]>;
  /** Adds a comment to a thread. Throws not_found. */
  addComment(comment: ThreadComment): Promise<void>;
  /** Resolves or reopens a thread. Throws not_found. */
  setThreadStatus(threadId: string, status: ThreadStatus, by: string, at: string): Promise<ReviewThread>;
  /** Phase changes and starts, oldest first. */
  listEvents(runId: string): Promise<ReviewEvent[]>;
}
