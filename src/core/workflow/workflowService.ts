// Workflow tracking's rules (workflow-tracking protocol, README "Tools"): workflows, tracked tasks nested to
// any depth, decisions, issues and milestones while a task runs, and at its end the files it
// changed (from snapshots taken at start and end) checked against the areas it declared. Every
// transport (MCP, CLI, extension) calls this; none talks to the store or to git directly.

import * as path from 'node:path';
import { customAlphabet } from 'nanoid';
import { LedgerError, notFound } from '../errors';
import type { Logger } from '../log';
import type { NewEvent, RunningTask, WorkflowProject, WorkflowStore } from '../storage/workflowStore';
import { parseInput } from '../validation';
import {
  completeTaskInput,
  logDecisionInput,
  logIssueInput,
  logMilestoneInput,
  startTaskInput,
  startWorkflowInput,
  type CompleteTaskOutput,
  type LogDecisionOutput,
  type LogIssueOutput,
  type LogMilestoneOutput,
  type StartTaskOutput,
  type StartWorkflowOutput,
} from './schemas';
import { verifyScope } from './scope';
import type { BeforeContent, Snapshotter } from './snapshots';
import type { FilesChanged, ReviewRequest, Snapshot, TrackedTask, WorkflowDetail, WorkflowListing } from './types';

/** 12 characters of digits and lower-case letters: safe in git ref names, URLs and shells. */
export const newWorkflowId: () => string = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);

export interface WorkflowServiceDeps {
  store: WorkflowStore;
  snapshotter: Snapshotter;
  logger: Logger;
  /** The project a workflow belongs to when start_workflow names none. */
  defaultProjectId: () => string;
  clock?: () => Date;
  newId?: () => string;
}

export interface CompletedTask extends CompleteTaskOutput {
  name: string;
  workflow_id: string;
  /** false when the snapshots could not be compared. */
  files_known: boolean;
}

/** At most this many changed files are listed in complete_task's answer (the ledger keeps them all). */
export const MAX_LISTED_FILES = 1_000;
/** ...and at most this many characters of paths, so that the answer stays under 30 KB. */
export const MAX_LISTED_PATH_CHARS = 8_000;

const pathChars = (files: FilesChanged): number =>
  [...files.added, ...files.modified, ...files.deleted].reduce((n, p) => n + p.length + 4, 0) + files.renamed.reduce((n, r) => n + r.from.length + r.to.length + 40, 0);

/** The first `max` changed files, taken from each kind in proportion; how many were left out. */
function capFiles(files: FilesChanged, max: number): { files: FilesChanged; omitted: number } {
  // Fewer files while their paths are too long to list.
  let capped = capCount(files, max);
  for (let n = max; n > 10 && pathChars(capped.files) > MAX_LISTED_PATH_CHARS; ) {
    n = Math.floor(n * 0.8);
    capped = capCount(files, n);
  }
  return capped;
}

function capCount(files: FilesChanged, max: number): { files: FilesChanged; omitted: number } {
  const total = files.added.length + files.modified.length + files.deleted.length + files.renamed.length;
  if (total <= max) return { files, omitted: 0 };
  const share = (n: number) => Math.floor((n / total) * max);
  return {
    files: {
      added: files.added.slice(0, share(files.added.length)),
      modified: files.modified.slice(0, share(files.modified.length)),
      deleted: files.deleted.slice(0, share(files.deleted.length)),
      renamed: files.renamed.slice(0, share(files.renamed.length)),
    },
    omitted: total - (share(files.added.length) + share(files.modified.length) + share(files.deleted.length) + share(files.renamed.length)),
  };
}

function blankToNull(text: string | undefined): string | null {
  return text === undefined || text.trim() === '' ? null : text;
}

export class WorkflowService {
  private readonly clock: () => Date;
  private readonly newId: () => string;

  constructor(private readonly deps: WorkflowServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? newWorkflowId;
  }

  get workspace(): string {
    return this.deps.snapshotter.workspace;
  }

  async startWorkflow(raw: unknown): Promise<StartWorkflowOutput> {
    const input = parseInput(startWorkflowInput, raw);
    const projectId = blankToNull(input.project_id) ?? this.deps.defaultProjectId();
    const createdAt = this.clock().toISOString();
    const id = await this.withFreshId((wid) =>
      this.deps.store.insertWorkflow({
        id: wid,
        projectId,
        name: input.name,
        description: blankToNull(input.description),
        plan: input.plan ?? [],
        createdAt,
        eventId: this.newId(),
      }),
    );
    return { workflow_id: id, project_id: projectId, created_at: createdAt };
  }

  async startTask(raw: unknown): Promise<StartTaskOutput> {
    const input = parseInput(startTaskInput, raw);
    const parentTaskId = blankToNull(input.parent_task_id);
    await this.requireWorkflow(input.workflow_id);
    if (parentTaskId !== null) {
      const parent = await this.deps.store.getTask(parentTaskId);
      if (!parent)
        throw notFound(`Parent task not found: ${parentTaskId}. Use a task_id that start_task returned, or omit parent_task_id for a top-level task.`, {
          parent_task_id: parentTaskId,
        });
      if (parent.workflowId !== input.workflow_id) {
        throw new LedgerError(
          'invalid_argument',
          `Parent task ${parentTaskId} belongs to workflow ${parent.workflowId}, not ${input.workflow_id}; pass workflow_id ${parent.workflowId}.`,
        );
      }
      if (parent.status !== 'in_progress') {
        throw new LedgerError(
          'conflict',
          `Parent task ${parentTaskId} ("${parent.name}") is already completed (${parent.status}); start subtasks before completing their parent, or start a top-level task.`,
          {
            details: { parent_task_id: parentTaskId, status: parent.status },
          },
        );
      }
    }
    const startedAt = this.clock().toISOString();
    const taskId = this.newId();
    const taken = await this.deps.snapshotter.take(this.newId());
    const snapshot: Snapshot = { ...taken.snapshot, taskId, role: 'start' };
    try {
      await this.deps.store.insertTask({
        id: taskId,
        workflowId: input.workflow_id,
        parentTaskId,
        name: input.name,
        goal: input.goal,
        areas: [...new Set((input.areas ?? []).map((a) => a.trim()).filter(Boolean))],
        startedAt,
        startSnapshot: snapshot,
        eventId: this.newId(),
      });
    } catch (err) {
      await this.deps.snapshotter.discard(taken.snapshot);
      throw err;
    }
    for (const w of taken.warnings) this.deps.logger.warn(`start_task ${taskId}: ${w}`);
    return {
      task_id: taskId,
      workflow_id: input.workflow_id,
      parent_task_id: parentTaskId,
      snapshot_id: snapshot.id,
      snapshot_type: snapshot.type,
      started_at: startedAt,
      repository: snapshot.root,
      head: snapshot.head,
      warnings: taken.warnings,
    };
  }

  async logDecision(raw: unknown): Promise<LogDecisionOutput> {
    const input = parseInput(logDecisionInput, raw);
    const { id, createdAt } = await this.addTaskEvent(input.task_id, 'decision', false, {
      category: input.category,
      question: input.question,
      options_considered: input.options_considered ?? [],
      chosen: input.chosen,
      reasoning: input.reasoning,
      ...(blankToNull(input.trade_offs) !== null ? { trade_offs: input.trade_offs! } : {}),
    });
    return { decision_id: id, task_id: input.task_id, created_at: createdAt };
  }

  async logIssue(raw: unknown): Promise<LogIssueOutput> {
    const input = parseInput(logIssueInput, raw);
    const review = input.requires_human_review === true;
    const { id, createdAt } = await this.addTaskEvent(input.task_id, 'issue', review, {
      type: input.type,
      description: input.description,
      resolution: input.resolution,
      requires_human_review: review,
    });
    return { issue_id: id, task_id: input.task_id, created_at: createdAt, requires_human_review: review };
  }

  async logMilestone(raw: unknown): Promise<LogMilestoneOutput> {
    const input = parseInput(logMilestoneInput, raw);
    const { id, createdAt } = await this.addTaskEvent(input.task_id, 'milestone', false, {
      message: input.message,
      ...(input.progress !== undefined ? { progress: input.progress } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    });
    return { milestone_id: id, task_id: input.task_id, created_at: createdAt, progress: input.progress ?? null };
  }

  /** A decision, issue or milestone on an existing task, stamped now; review: shown to a person for review. */
  private async addTaskEvent(taskId: string, kind: NewEvent['kind'], review: boolean, data: NewEvent['data']): Promise<{ id: string; createdAt: string }> {
    await this.requireTask(taskId);
    const createdAt = this.clock().toISOString();
    const id = this.newId();
    await this.deps.store.addEvent({ id, taskId, createdAt, review, kind, data });
    return { id, createdAt };
  }

  async completeTask(raw: unknown): Promise<CompletedTask> {
    const input = parseInput(completeTaskInput, raw);
    const task = await this.requireTask(input.task_id);
    if (task.status !== 'in_progress') {
      throw new LedgerError(
        'conflict',
        `Task ${task.id} ("${task.name}") was already completed (${task.status}) at ${task.completedAt}; a task is completed once. Start a new task with start_task to continue.`,
        {
          details: { task_id: task.id, status: task.status },
        },
      );
    }
    const end = await this.deps.snapshotter.take(this.newId());
    const completedAt = this.clock().toISOString();
    const endSnapshot: Snapshot = { ...end.snapshot, taskId: task.id, role: 'end' };
    const start = task.startSnapshot;
    const changes = start
      ? await this.deps.snapshotter.changes(start, end)
      : {
          files: { added: [], modified: [], deleted: [], renamed: [] },
          commits: [],
          warnings: ['Files changed could not be computed: the task has no start snapshot.'],
          known: false,
        };

    const prefix = start?.root && start.workspace && start.type === 'git' ? path.relative(start.root, start.workspace).split(path.sep).join('/') : '';
    const scope = verifyScope(changes.files, task.areas, prefix.startsWith('..') ? '' : prefix, changes.known);
    const warnings = [...changes.warnings, ...scope.warnings, ...end.warnings];

    const running = (await this.deps.store.listTasks(task.workflowId)).filter((t) => t.status === 'in_progress' && t.id !== task.id);
    const ancestors = new Set(await this.deps.store.ancestorIds(task.id));
    const descendants = running.filter((t) => this.descendsFrom(t, task.id, running));
    if (descendants.length > 0) {
      warnings.push(
        `${descendants.length} subtask(s) still in progress: ${descendants
          .slice(0, 5)
          .map((t) => `"${t.name}" (${t.id})`)
          .join(', ')}; complete them with complete_task.`,
      );
    }
    if (start?.root) {
      const unrelated: { id: string; name: string }[] = [];
      for (const other of await this.deps.store.overlappingTasks(task.id, start.root, task.startedAt, completedAt)) {
        // The task's own ancestors and subtasks run at the same time by design.
        if (ancestors.has(other.id) || (await this.deps.store.ancestorIds(other.id)).includes(task.id)) continue;
        unrelated.push(other);
      }
      if (unrelated.length > 0) {
        warnings.push(
          `Another task ran in ${start.root} at the same time (${unrelated
            .slice(0, 3)
            .map((o) => `"${o.name}" ${o.id}`)
            .join(', ')}): files it changed are counted here too.`,
        );
      }
    }
    const verification = { scope_match: scope.scope_match, scope_checked: scope.scope_checked === true, unexpected_files: scope.unexpected_files, warnings };
    const durationSeconds = Math.max(0, Math.round((Date.parse(completedAt) - Date.parse(task.startedAt)) / 1000));
    const review = input.outcome.manual_review_needed === true;
    const metadata = input.metadata && Object.keys(input.metadata).length > 0 ? input.metadata : null;
    try {
      await this.deps.store.completeTask({
        taskId: task.id,
        status: input.status,
        completedAt,
        durationSeconds,
        outcome: input.outcome,
        metadata,
        verification,
        files: changes.files,
        filesKnown: changes.known,
        unexpected: scope.unexpected_files,
        commits: changes.commits,
        endSnapshot,
        eventId: this.newId(),
        review,
      });
    } catch (err) {
      await this.deps.snapshotter.discard(end.snapshot);
      throw err;
    }
    if (start) this.deps.snapshotter.release(start);
    this.deps.snapshotter.release(end.snapshot);
    const listed = capFiles(changes.files, MAX_LISTED_FILES);
    let unexpectedChars = 0;
    const unexpected = verification.unexpected_files.slice(0, MAX_LISTED_FILES).filter((p) => (unexpectedChars += p.length + 4) <= MAX_LISTED_PATH_CHARS / 2);
    const shownVerification = { ...verification, unexpected_files: unexpected, warnings: [...verification.warnings] };
    if (unexpected.length < verification.unexpected_files.length) {
      shownVerification.warnings.push(
        `${verification.unexpected_files.length - unexpected.length} of ${verification.unexpected_files.length} files outside the declared areas are left out of this answer.`,
      );
    }
    if (listed.omitted > 0) {
      const total = listed.omitted + listed.files.added.length + listed.files.modified.length + listed.files.deleted.length + listed.files.renamed.length;
      shownVerification.warnings.push(
        `${listed.omitted} of ${total} changed files are left out of this answer; all are recorded (agent-progress tracked-task ${task.id} lists them).`,
      );
    }
    return {
      task_id: task.id,
      name: task.name,
      workflow_id: task.workflowId,
      status: input.status,
      duration_seconds: durationSeconds,
      files_changed: listed.files,
      files_known: changes.known,
      verification: shownVerification,
      commits: changes.commits,
    };
  }

  private descendsFrom(t: TrackedTask, ancestorId: string, among: readonly TrackedTask[]): boolean {
    const byId = new Map(among.map((x) => [x.id, x]));
    let parent = t.parentTaskId;
    for (let guard = 0; parent !== null && guard < 10_000; guard++) {
      if (parent === ancestorId) return true;
      parent = byId.get(parent)?.parentTaskId ?? null;
    }
    return false;
  }

  // ---- reading (CLI, extension) --------------------------------------------------------------

  listWorkflows(options: { projectId?: string; limit?: number; offset?: number } = {}): Promise<{ workflows: WorkflowListing[]; total: number }> {
    return this.deps.store.listWorkflows({
      ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
      limit: Math.min(Math.max(options.limit ?? 50, 1), 500),
      offset: options.offset ?? 0,
    });
  }

  listProjects(): Promise<WorkflowProject[]> {
    return this.deps.store.listWorkflowProjects();
  }

  async workflowDetail(id: string): Promise<WorkflowDetail> {
    const workflow = await this.requireWorkflow(id);
    const [tasks, events] = await Promise.all([this.deps.store.listTasks(id), this.deps.store.listEvents(id)]);
    return { workflow, tasks, events };
  }

  async task(id: string): Promise<TrackedTask> {
    return this.requireTask(id);
  }

  runningTasks(): Promise<RunningTask[]> {
    return this.deps.store.runningTasks();
  }

  reviewRequests(afterSeq: number, limit?: number): Promise<ReviewRequest[]> {
    return this.deps.store.reviewRequests(afterSeq, limit);
  }

  latestEventSeq(): Promise<number> {
    return this.deps.store.latestEventSeq();
  }

  /** Whether an id names a workflow, a tracked task, or nothing. */
  async identify(id: string): Promise<'workflow' | 'task' | undefined> {
    if (await this.deps.store.getWorkflow(id)) return 'workflow';
    if (await this.deps.store.getTask(id)) return 'task';
    return undefined;
  }

  /**
   * A changed file as it was when the task started (`file` relative to the snapshot's root; for a
   * rename, the earlier path), for the editor's diff.
   */
  async contentAtStart(taskId: string, file: string): Promise<BeforeContent & { root: string | null }> {
    const task = await this.requireTask(taskId);
    const start = task.startSnapshot;
    if (!start) return { kind: 'unavailable', reason: 'the task has no start snapshot', root: null };
    return { ...(await this.deps.snapshotter.readBefore(start, file)), root: start.root };
  }

  // ---- helpers -------------------------------------------------------------------------------

  private async withFreshId(insert: (id: string) => Promise<void>): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const id = this.newId();
      try {
        await insert(id);
        return id;
      } catch (err) {
        if (err instanceof LedgerError && err.code === 'conflict' && attempt < 3) continue;
        throw err;
      }
    }
  }

  private async requireWorkflow(id: string) {
    const workflow = await this.deps.store.getWorkflow(id);
    if (workflow) return workflow;
    const task = await this.deps.store.getTask(id);
    if (task) throw notFound(`${id} is a task id, not a workflow id: its workflow is ${task.workflowId}. Pass workflow_id ${task.workflowId}.`, { workflow_id: id });
    throw notFound(`Workflow not found: ${id}. Use start_workflow to create one and pass the workflow_id it returns.`, { workflow_id: id });
  }

  private async requireTask(id: string): Promise<TrackedTask> {
    const task = await this.deps.store.getTask(id);
    if (task) return task;
    if (await this.deps.store.getWorkflow(id)) {
      throw notFound(`${id} is a workflow id, not a task id. Start a task in it with start_task and pass the task_id it returns.`, { task_id: id });
    }
    throw notFound(`Task not found: ${id}. Use the task_id that start_task returned.`, { task_id: id });
  }
}
