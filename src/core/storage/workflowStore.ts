// The store interface of workflow tracking: what WorkflowService needs from any backend. Rules
// that must hold under concurrent writers (a parent still running, a task completed once) are
// checked inside the write, so two processes cannot both win.

import type {
  CommitInfo,
  CompletionMetadata,
  FilesChanged,
  ReviewRequest,
  Snapshot,
  TaskOutcome,
  TaskOutcomeStatus,
  TrackedTask,
  Verification,
  Workflow,
  WorkflowEvent,
  WorkflowListing,
} from '../workflow/types';

/** A workflow as the service creates it, with its workflow_started event's id. */
export interface NewWorkflow extends Workflow {
  /** The workflow_started event. */
  eventId: string;
}

/** A tracked task as start_task records it: what it is, the snapshot taken, its task_started event. */
export interface NewTrackedTask extends Pick<TrackedTask, 'id' | 'workflowId' | 'parentTaskId' | 'name' | 'goal' | 'areas' | 'startedAt'> {
  startSnapshot: Snapshot;
  eventId: string;
}

export type NewEvent = Pick<WorkflowEvent, 'id' | 'taskId' | 'createdAt' | 'review'> & { kind: 'decision' | 'issue' | 'milestone'; data: WorkflowEvent['data'] };

export interface TaskCompletion {
  taskId: string;
  status: TaskOutcomeStatus;
  completedAt: string;
  durationSeconds: number;
  outcome: TaskOutcome;
  metadata: CompletionMetadata | null;
  verification: Verification;
  files: FilesChanged;
  /** false when the snapshots could not be compared (files empty, warnings say why). */
  filesKnown: boolean;
  /** Paths (of files and renames' ends) outside the declared areas. */
  unexpected: string[];
  commits: CommitInfo[];
  endSnapshot: Snapshot;
  eventId: string;
  review: boolean;
}

export interface WorkflowQuery {
  projectId?: string;
  limit: number;
  offset?: number;
}

export interface WorkflowProject {
  projectId: string;
  workflowCount: number;
  lastActivityAt: string;
}

/** A running task with its workflow's name, for status bars. */
export interface RunningTask {
  task: TrackedTask;
  workflowName: string;
  projectId: string;
}

export interface WorkflowStore {
  /** Stores a workflow, creating its project on first use. Throws conflict if the id is taken. */
  insertWorkflow(workflow: NewWorkflow): Promise<void>;
  getWorkflow(id: string): Promise<Workflow | undefined>;
  listWorkflows(query: WorkflowQuery): Promise<{ workflows: WorkflowListing[]; total: number }>;
  listWorkflowProjects(): Promise<WorkflowProject[]>;
  /**
   * Stores a task and its start snapshot. Throws not_found when the workflow or parent is gone,
   * conflict when the parent is no longer in progress or the id is taken.
   */
  insertTask(task: NewTrackedTask): Promise<void>;
  getTask(id: string): Promise<TrackedTask | undefined>;
  /** Every task of a workflow, parents before their children, in start order. */
  listTasks(workflowId: string): Promise<TrackedTask[]>;
  /** Ids of a task's ancestors, nearest first. */
  ancestorIds(taskId: string): Promise<string[]>;
  /** Appends a decision, issue or milestone. Throws not_found, or conflict when the task is not in progress. */
  addEvent(event: NewEvent): Promise<void>;
  /** Records the end of a task. Throws conflict when it is not in progress any more. */
  completeTask(completion: TaskCompletion): Promise<void>;
  listEvents(workflowId: string): Promise<WorkflowEvent[]>;
  /** Tasks in progress anywhere, newest activity first. */
  runningTasks(): Promise<RunningTask[]>;
  /** Other tasks whose snapshots cover the same root and that ran at some time between from and to. */
  overlappingTasks(taskId: string, root: string, from: string, to: string): Promise<{ id: string; name: string }[]>;
  /** Requests for review (issues that ask for one, outcomes that need one) after event number `afterSeq`. */
  reviewRequests(afterSeq: number, limit?: number): Promise<ReviewRequest[]>;
  /** The number of the latest event (0 when none). */
  latestEventSeq(): Promise<number>;
}
