// Domain types of workflow tracking (workflow-tracking protocol, README "Tools"): workflows, tracked tasks
// nested to any depth, their decisions, issues and milestones, snapshots and files changed.

export const TASK_OUTCOMES = ['success', 'partial_success', 'failed'] as const;
export type TaskOutcomeStatus = (typeof TASK_OUTCOMES)[number];
export type TaskStatus = 'in_progress' | TaskOutcomeStatus;

export const DECISION_CATEGORIES = ['architecture', 'library_choice', 'trade_off', 'workaround', 'other'] as const;
export type DecisionCategory = (typeof DECISION_CATEGORIES)[number];

export const ISSUE_TYPES = ['documentation_gap', 'bug_encountered', 'dependency_conflict', 'unclear_requirement', 'other'] as const;
export type IssueType = (typeof ISSUE_TYPES)[number];

export const TESTS_STATUSES = ['passed', 'failed', 'not_run'] as const;
export type TestsStatus = (typeof TESTS_STATUSES)[number];

/** git: HEAD plus a tree of the whole working tree; checksum: a file map outside git; none: no snapshot could be taken. */
export type SnapshotType = 'git' | 'checksum' | 'none';

export interface PlanStep {
  step: string;
  goal: string;
}

export interface Workflow {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  plan: PlanStep[];
  createdAt: string;
}

/** A workflow with the counts a listing shows. */
export interface WorkflowListing extends Workflow {
  taskCount: number;
  running: number;
  succeeded: number;
  partial: number;
  failed: number;
  /** Time of the latest event in the workflow. */
  lastActivityAt: string;
}

export interface RenamedFile {
  from: string;
  to: string;
  /** Similarity of the contents in percent (100 for an exact move). */
  similarity: number;
}

export interface FilesChanged {
  added: string[];
  modified: string[];
  deleted: string[];
  renamed: RenamedFile[];
}

export interface Verification {
  /** null when the scope was not checked (no areas, or the files changed are unknown). */
  scope_match: boolean | null;
  /** Absent in verifications recorded before it existed (those said scope_match true unchecked). */
  scope_checked?: boolean;
  unexpected_files: string[];
  warnings: string[];
}

export interface TaskOutcome {
  summary: string;
  achievements?: string[];
  limitations?: string[];
  manual_review_needed?: boolean;
  manual_review_reason?: string;
  next_steps?: string[];
}

export interface CompletionMetadata {
  packages_added?: string[];
  packages_removed?: string[];
  commands_executed?: string[];
  tests_status?: TestsStatus;
}

export interface CommitInfo {
  sha: string;
  subject: string;
}

export interface Snapshot {
  id: string;
  taskId: string;
  role: 'start' | 'end';
  type: SnapshotType;
  /** Absolute path of the repository's root (git) or of the folder that was walked (checksum). */
  root: string | null;
  /** The folder the server worked in (may be a subfolder of root). */
  workspace: string | null;
  /** git: the commit HEAD named, null in a repository without commits. */
  head: string | null;
  /** git: the branch HEAD named, null when detached. */
  branch: string | null;
  /** git: the tree object of the whole working tree (tracked and untracked, ignored files left out). */
  tree: string | null;
  /** git: the ref that keeps the tree from garbage collection. */
  ref: string | null;
  /** checksum: the manifest file beside the ledger. */
  manifest: string | null;
  fileCount: number | null;
  /** checksum: sha256 of the manifest's bytes, to notice a replaced file. */
  digest: string | null;
  createdAt: string;
  tookMs: number;
  /** Why no snapshot (type none), or what went wrong while taking one. */
  note: string | null;
}

export interface TrackedTask {
  id: string;
  workflowId: string;
  parentTaskId: string | null;
  name: string;
  goal: string;
  areas: string[];
  status: TaskStatus;
  startedAt: string;
  completedAt: string | null;
  durationSeconds: number | null;
  /** Progress of the latest milestone that gave one, 0-100. */
  progress: number | null;
  /** Message of the latest milestone. */
  milestone: string | null;
  lastActivityAt: string;
  outcome: TaskOutcome | null;
  metadata: CompletionMetadata | null;
  verification: Verification | null;
  filesChanged: FilesChanged | null;
  /** false when the snapshots could not be compared (the verification's warnings say why). */
  filesKnown: boolean;
  commits: CommitInfo[];
  startSnapshot: Snapshot | null;
  endSnapshot: Snapshot | null;
}

export interface DecisionData {
  category: DecisionCategory;
  question: string;
  options_considered: string[];
  chosen: string;
  reasoning: string;
  trade_offs?: string;
}

export interface IssueData {
  type: IssueType;
  description: string;
  resolution: string;
  requires_human_review: boolean;
}

export interface MilestoneData {
  message: string;
  progress?: number;
  metadata?: Record<string, unknown>;
}

export interface StartedData {
  name: string;
}

export interface CompletedData {
  status: TaskOutcomeStatus;
  summary: string;
  manual_review_needed: boolean;
  manual_review_reason?: string;
  files: number;
}

interface EventBase {
  /** Order of the event in the ledger (increasing). */
  seq: number;
  id: string;
  workflowId: string;
  taskId: string | null;
  createdAt: string;
  /** true when a person is asked to review (an issue or an outcome that says so). */
  review: boolean;
}

export type WorkflowEvent =
  | (EventBase & { kind: 'workflow_started'; data: StartedData })
  | (EventBase & { kind: 'task_started'; data: StartedData })
  | (EventBase & { kind: 'decision'; data: DecisionData })
  | (EventBase & { kind: 'issue'; data: IssueData })
  | (EventBase & { kind: 'milestone'; data: MilestoneData })
  | (EventBase & { kind: 'task_completed'; data: CompletedData });

export type WorkflowEventKind = WorkflowEvent['kind'];

/** A request for a person's review, with what a notification needs. */
export interface ReviewRequest {
  seq: number;
  eventId: string;
  kind: 'issue' | 'task_completed';
  workflowId: string;
  workflowName: string;
  taskId: string;
  taskName: string;
  createdAt: string;
  /** The issue's description, or the outcome's manual_review_reason (else its summary). */
  text: string;
}

/** A workflow with everything its page shows. */
export interface WorkflowDetail {
  workflow: Workflow;
  /** Every task, parents before children, in start order. */
  tasks: TrackedTask[];
  events: WorkflowEvent[];
}
