// Review runs' rules (MCP Review Progress specification, README "Tools"): a run starts from a definition in the workspace; its
// phase moves forward only (backwards, or out of completed/failed, needs force); agents are the
// definition's, started and completed with times (order problems recorded, not refused); actions
// wait for a person's decision; threads live in the ledger. Every transport calls this.

import { customAlphabet } from 'nanoid';
import { invalidArgument, LedgerError, notFound } from '../errors';
import type { Logger } from '../log';
import type { ReviewStore } from '../storage/reviewStore';
import { parseInput } from '../validation';
import { listDefinitions, loadDefinition, type DefinitionListing } from './definitions';
import {
  addActionInput,
  completeAgentInput,
  getThreadsInput,
  getWorkflowInput,
  setPhaseInput,
  startAgentInput,
  type ActionOut,
  type AddActionOutput,
  type AgentResultOutput,
  type GetThreadsOutput,
  type GetWorkflowOutput,
  type SetPhaseOutput,
  type ThreadOut,
} from './schemas';
import {
  isFinalPhase,
  type ActionStatus,
  type ReviewAction,
  type ReviewAgent,
  type ReviewContext,
  type ReviewRun,
  type ReviewState,
  type ReviewThread,
  type ThreadStatus,
} from './types';

export const newReviewId: () => string = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);

export interface ReviewServiceDeps {
  store: ReviewStore;
  logger: Logger;
  /** The workspace whose .agent-progress/reviews/ holds the definitions. */
  workspace: () => string;
  /** The project runs belong to. */
  projectId: () => string;
  clock?: () => Date;
  newId?: () => string;
}

/** The JSON a CI script reads to carry out the decided actions (exportActions). */
export interface ActionsExport {
  format: 'agent-progress.review-actions/1';
  exported_at: string;
  review: { review_id: string; project_id: string; workflow: string; phase: string; context: ReviewContext };
  actions: ActionOut[];
}

/** The run's state as the status file and `review-status --json` give it. */
export interface ReviewStatusDocument {
  format: 'agent-progress.review-status/1';
  updated_at: string;
  review: {
    review_id: string;
    project_id: string;
    workflow: string;
    title: string | null;
    phase: string;
    phases: string[];
    phase_changed_at: string;
    started_at: string;
    finished_at: string | null;
    context: ReviewContext;
  } | null;
  agents: { name: string; state: string; started_at: string | null; completed_at: string | null; duration_ms: number | null; summary: string | null; anomalies: string[] }[];
  actions: { pending: number; approved: number; dismissed: number };
  threads: { open: number; resolved: number };
}

export function actionOut(a: ReviewAction): ActionOut {
  return {
    action_id: a.id,
    kind: a.kind,
    target: a.target,
    text: a.text,
    status: a.status,
    created_by: a.createdBy,
    created_at: a.createdAt,
    edited: a.originalText !== null,
    decided_by: a.decidedBy,
    decided_at: a.decidedAt,
    note: a.note,
    thread_id: a.threadId,
  };
}

export function threadOut(t: ReviewThread): ThreadOut {
  return {
    thread_id: t.id,
    file: t.file,
    line: t.line,
    end_line: t.endLine,
    status: t.status,
    created_by: t.createdBy,
    created_at: t.createdAt,
    resolved_by: t.resolvedBy,
    resolved_at: t.resolvedAt,
    comments: t.comments.map((c) => ({ id: c.id, author: c.author, body: c.body, created_at: c.createdAt })),
  };
}

function agentOut(a: ReviewAgent) {
  return {
    name: a.name,
    description: a.description,
    state: a.state,
    started_at: a.startedAt,
    completed_at: a.completedAt,
    duration_ms: a.durationMs,
    summary: a.summary,
    anomalies: a.anomalies,
  };
}

function nextAgent(agents: ReviewAgent[]): string | null {
  return agents.find((a) => a.state === 'pending')?.name ?? null;
}

/** A run as a refusal or a note names it: its id and what it reviews. */
export function runLabel(r: ReviewRun): string {
  const what = [r.context.merge_request ? `merge request ${r.context.merge_request}` : '', r.context.branch ? `branch ${r.context.branch}` : ''].filter(Boolean).join(', ');
  return `${r.id} (${r.workflow}${what ? `, ${what}` : ''}, ${r.phase})`;
}

/** get_workflow's answer, plus the other running reviews for its text line (not in the schema). */
export type GetWorkflowWithNotes = GetWorkflowOutput & { other_running: string[] };

/** A workspace-relative path with forward slashes; refuses absolute paths and '..'. */
export function normaliseFile(file: string): string {
  const p = file
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '');
  if (p === '' || p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.split('/').includes('..')) {
    throw invalidArgument(`file must be a path from the workspace root without '..', such as "src/app.ts" (got ${JSON.stringify(file.slice(0, 80))})`);
  }
  return p.replace(/\/+/g, '/');
}

export class ReviewService {
  private readonly clock: () => Date;
  private readonly newId: () => string;

  constructor(private readonly deps: ReviewServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? newReviewId;
  }

  get workspace(): string {
    return this.deps.workspace();
  }

  get projectId(): string {
    return this.deps.projectId();
  }

  private now(): string {
    return this.clock().toISOString();
  }

  definitions(): DefinitionListing {
    return listDefinitions(this.deps.workspace());
  }

  /** Starts a run from a definition (the named one, else the only one, else "default"). */
  async startRun(options: { workflow?: string | undefined; context?: Partial<ReviewContext>; startedBy: string }): Promise<ReviewRun> {
    const definition = loadDefinition(this.deps.workspace(), options.workflow);
    const pick = (k: keyof ReviewContext) => {
      const v = options.context?.[k];
      return v !== undefined && v !== null && v.trim() !== '' ? v : definition.context[k];
    };
    const id = this.newId();
    await this.deps.store.insertRun({
      id,
      projectId: this.deps.projectId(),
      definition,
      context: { branch: pick('branch'), merge_request: pick('merge_request'), notes: pick('notes') },
      createdAt: this.now(),
      startedBy: options.startedBy,
      eventId: this.newId(),
    });
    const run = await this.deps.store.getRun(id);
    this.deps.logger.info(`Review ${id} started from ${definition.source} by ${options.startedBy}`);
    return run!;
  }

  /**
   * The run named, else the one running in this project; throws what to do when none runs, or when
   * several do (acting on one of them would be a guess: each reviews something else).
   */
  async resolveRun(reviewId: string | undefined): Promise<ReviewRun> {
    if (reviewId !== undefined) {
      const run = await this.deps.store.getRun(reviewId);
      if (!run) throw notFound(`No review ${reviewId}. Call get_workflow without review_id for the current review.`, { review_id: reviewId });
      return run;
    }
    const running = await this.deps.store.listRuns({ projectId: this.deps.projectId(), active: true, limit: 6 });
    if (running.length === 0) {
      throw notFound(
        `No review is running in project ${this.deps.projectId()}. Call get_workflow first: it starts one from a definition in .agent-progress/reviews/ (new_run: true after a completed review).`,
      );
    }
    if (running.length > 1) {
      throw invalidArgument(`Several reviews are running in project ${this.deps.projectId()}: ${running.slice(0, 5).map(runLabel).join('; ')}. Pass review_id to say which.`, {
        review_ids: running.map((r) => r.id),
      });
    }
    return running[0]!;
  }

  async state(runId: string): Promise<ReviewState> {
    const run = await this.deps.store.getRun(runId);
    if (!run) throw notFound(`No review ${runId}.`, { review_id: runId });
    const [agents, actions, threads, events] = await Promise.all([
      this.deps.store.listAgents(runId),
      this.deps.store.listActions(runId),
      this.deps.store.listThreads(runId),
      this.deps.store.listEvents(runId),
    ]);
    return { run, agents, actions, threads, events };
  }

  /** The latest runs of every project (or one), newest first. */
  listRuns(options: { projectId?: string; active?: boolean; limit?: number } = {}): Promise<ReviewRun[]> {
    return this.deps.store.listRuns({
      ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
      ...(options.active ? { active: true } : {}),
      limit: options.limit ?? 20,
    });
  }

  // ---------- tools ----------

  /**
   * The review an agent asks for. A review is keyed by what it reviews: with a merge_request,
   * branch or workflow, only a run of those (the running one, else the latest, completed
   * included, so the people's decisions show), started when there is none; with nothing, the
   * running run, else the latest. new_run always starts one. Never another merge request's run.
   */
  async getWorkflow(raw: unknown): Promise<GetWorkflowWithNotes> {
    const args = parseInput(getWorkflowInput, raw);
    const given = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);
    const key = { workflow: args.workflow, branch: given(args.branch), mergeRequest: given(args.merge_request) };
    let run: ReviewRun | undefined;
    let started = false;
    if (args.review_id !== undefined) {
      if (args.new_run) throw invalidArgument(`new_run starts another review and review_id names an existing one: pass one of them.`);
      run = await this.resolveRun(args.review_id);
      const differs = (
        [
          ['workflow', key.workflow, run.workflow],
          ['branch', key.branch, run.context.branch],
          ['merge_request', key.mergeRequest, run.context.merge_request],
        ] as const
      ).find(([, asked, has]) => asked !== undefined && asked !== has);
      if (differs) {
        const [field, asked, has] = differs;
        throw invalidArgument(
          `Review ${run.id} is of ${field} ${JSON.stringify(has)}, not ${JSON.stringify(asked)}. Leave review_id out to get (or start) the review of ${field} ${JSON.stringify(asked)}.`,
          { review_id: run.id, [field]: has },
        );
      }
    } else if (!args.new_run) {
      const query = {
        projectId: this.deps.projectId(),
        ...(key.workflow !== undefined ? { workflow: key.workflow } : {}),
        ...(key.branch !== undefined ? { branch: key.branch } : {}),
        ...(key.mergeRequest !== undefined ? { mergeRequest: key.mergeRequest } : {}),
      };
      [run] = await this.deps.store.listRuns({ ...query, active: true, limit: 1 });
      if (!run) [run] = await this.deps.store.listRuns({ ...query, limit: 1 });
    }
    if (!run) {
      run = await this.startRun({
        workflow: args.workflow,
        context: { ...(key.branch ? { branch: key.branch } : {}), ...(key.mergeRequest ? { merge_request: key.mergeRequest } : {}), ...(args.notes ? { notes: args.notes } : {}) },
        startedBy: 'agent',
      });
      started = true;
    }
    const s = await this.state(run.id);
    const others = (await this.deps.store.listRuns({ projectId: this.deps.projectId(), active: true, limit: 6 })).filter((r) => r.id !== run.id);
    return {
      review_id: s.run.id,
      started,
      workflow: s.run.workflow,
      title: s.run.definition.title,
      description: s.run.definition.description,
      project_id: s.run.projectId,
      phase: s.run.phase,
      phases: s.run.definition.phases,
      agents: s.agents.map(agentOut),
      next_agent: nextAgent(s.agents),
      context: s.run.context,
      threads: s.threads.filter((t) => t.status === 'open').map(threadOut),
      actions: s.actions.map(actionOut),
      definition_file: s.run.definition.source,
      other_running: others.slice(0, 5).map(runLabel),
    };
  }

  async setPhase(raw: unknown): Promise<SetPhaseOutput> {
    const args = parseInput(setPhaseInput, raw);
    const run = await this.resolveRun(args.review_id);
    const phases = run.definition.phases;
    const to = phases.indexOf(args.phase);
    if (to < 0) throw invalidArgument(`Unknown phase "${args.phase}" for review ${run.id}; its phases are ${phases.join(', ')}.`, { phases });
    const from = phases.indexOf(run.phase);
    const force = args.force === true;
    if (args.phase !== run.phase && !force) {
      if (isFinalPhase(run.phase)) {
        throw new LedgerError(
          'conflict',
          `Review ${run.id} is already ${run.phase}; pass force: true to reopen it, or call get_workflow with new_run: true to start another review.`,
          {
            details: { phase: run.phase },
          },
        );
      }
      if (args.phase !== 'failed' && to < from) {
        throw new LedgerError(
          'conflict',
          `Cannot move review ${run.id} back from ${run.phase} to ${args.phase}: phases only move forward (${phases.join(' → ')}). Pass force: true if that is really meant.`,
          {
            details: { phase: run.phase, requested: args.phase },
          },
        );
      }
    }
    if (args.phase === run.phase) {
      return { review_id: run.id, previous_phase: run.phase, phase: run.phase, forced: false, changed_at: run.phaseChangedAt };
    }
    const backwards = (to < from && args.phase !== 'failed') || isFinalPhase(run.phase);
    const at = this.now();
    const updated = await this.deps.store.setPhase({
      runId: run.id,
      from: run.phase,
      to: args.phase,
      at,
      forced: force && backwards,
      note: args.note ?? null,
      eventId: this.newId(),
    });
    return { review_id: run.id, previous_phase: run.phase, phase: updated.phase, forced: force && backwards, changed_at: at };
  }

  async startAgent(raw: unknown): Promise<AgentResultOutput> {
    const args = parseInput(startAgentInput, raw);
    const run = await this.resolveRun(args.review_id);
    const agent = await this.deps.store.startAgent({ runId: run.id, name: args.agent, at: this.now() });
    const warnings: string[] = [];
    if (agent.starts > 1) warnings.push(`${agent.name} was started ${agent.starts} times; recorded as an anomaly.`);
    if (isFinalPhase(run.phase)) warnings.push(`The review is already ${run.phase}.`);
    return { review_id: run.id, agent: agentOut(agent), warnings, next_agent: nextAgent(await this.deps.store.listAgents(run.id)) };
  }

  async completeAgent(raw: unknown): Promise<AgentResultOutput> {
    const args = parseInput(completeAgentInput, raw);
    const run = await this.resolveRun(args.review_id);
    const agent = await this.deps.store.completeAgent({ runId: run.id, name: args.agent, at: this.now(), state: args.status ?? 'completed', summary: args.summary ?? null });
    const warnings: string[] = [];
    if (agent.startedAt === null) warnings.push(`${agent.name} was completed without start_agent; recorded as an anomaly (no duration). Call start_agent before each audit.`);
    else if (agent.completions > 1) warnings.push(`${agent.name} was completed ${agent.completions} times; recorded as an anomaly.`);
    return { review_id: run.id, agent: agentOut(agent), warnings, next_agent: nextAgent(await this.deps.store.listAgents(run.id)) };
  }

  async addAction(raw: unknown): Promise<AddActionOutput> {
    const args = parseInput(addActionInput, raw);
    const run = await this.resolveRun(args.review_id);
    const file = args.file !== undefined && args.file.trim() !== '' ? normaliseFile(args.file) : undefined;
    if (args.end_line !== undefined && args.line === undefined) throw invalidArgument('end_line needs line');
    if (args.end_line !== undefined && args.line !== undefined && args.end_line < args.line) throw invalidArgument('end_line must be at or after line');
    if (args.line !== undefined && file === undefined) throw invalidArgument('line needs file: the path the line is in');
    const threadKinds = args.kind === 'reply_thread' || args.kind === 'resolve_thread';
    if (threadKinds && args.thread_id === undefined) throw invalidArgument(`${args.kind} needs thread_id: call get_threads for the open threads and their ids`);
    if (!threadKinds && args.thread_id !== undefined) throw invalidArgument(`thread_id is for reply_thread and resolve_thread; ${args.kind} does not take it`);
    if (args.kind === 'open_thread' && (file === undefined || args.line === undefined)) throw invalidArgument('open_thread needs file and line: where the thread points');
    const at = this.now();
    const by = args.agent ?? 'agent';
    const id = this.newId();
    const target = {
      ...(file !== undefined ? { file } : {}),
      ...(args.line !== undefined ? { line: args.line } : {}),
      ...(args.end_line !== undefined ? { end_line: args.end_line } : {}),
      ...(args.thread_id !== undefined ? { thread_id: args.thread_id } : {}),
    };
    const threadId = args.kind === 'open_thread' ? this.newId() : (args.thread_id ?? null);
    await this.deps.store.insertAction({
      id,
      runId: run.id,
      kind: args.kind,
      target,
      text: args.text,
      createdAt: at,
      createdBy: by,
      threadId,
      ...(args.kind === 'open_thread'
        ? {
            thread: {
              id: threadId!,
              runId: run.id,
              file: file!,
              line: args.line!,
              endLine: args.end_line ?? null,
              createdAt: at,
              createdBy: by,
              actionId: id,
              comment: { id: this.newId(), body: args.text },
            },
          }
        : {}),
    });
    return { review_id: run.id, action: actionOut((await this.deps.store.getAction(id))!) };
  }

  async getThreads(raw: unknown): Promise<GetThreadsOutput> {
    const args = parseInput(getThreadsInput, raw);
    const run = await this.resolveRun(args.review_id);
    const status = args.status ?? 'open';
    let threads = await this.deps.store.listThreads(run.id, status === 'all' ? undefined : status);
    if (args.file !== undefined && args.file.trim() !== '') {
      const file = normaliseFile(args.file);
      threads = threads.filter((t) => t.file === file);
    }
    return { review_id: run.id, threads: threads.map(threadOut) };
  }

  // ---------- people (VS Code, CLI) ----------

  async decideAction(actionId: string, decision: 'approve' | 'dismiss', by: string, note?: string): Promise<ReviewAction> {
    return this.deps.store.decideAction({
      actionId,
      status: decision === 'approve' ? 'approved' : 'dismissed',
      by,
      at: this.now(),
      note: note && note.trim() !== '' ? note : null,
      commentId: this.newId(),
    });
  }

  async editAction(actionId: string, text: string, by: string): Promise<ReviewAction> {
    if (text.trim() === '') throw invalidArgument('The action text cannot be empty; dismiss the action instead.');
    if (text.length > 10_000) throw invalidArgument('The action text exceeds maximum length of 10000 characters');
    return this.deps.store.editAction(actionId, text, by, this.now());
  }

  async openThread(runId: string, file: string, line: number, body: string, by: string, endLine?: number): Promise<ReviewThread> {
    if (body.trim() === '') throw invalidArgument('A thread needs a first comment.');
    if (!Number.isInteger(line) || line < 1) throw invalidArgument('line must be a whole number from 1');
    const id = this.newId();
    await this.deps.store.insertThread({
      id,
      runId,
      file: normaliseFile(file),
      line,
      endLine: endLine !== undefined && endLine > line ? endLine : null,
      createdAt: this.now(),
      createdBy: by,
      actionId: null,
      comment: { id: this.newId(), body },
    });
    return (await this.deps.store.getThread(id))!;
  }

  async reply(threadId: string, body: string, by: string): Promise<ReviewThread> {
    if (body.trim() === '') throw invalidArgument('A reply cannot be empty.');
    await this.deps.store.addComment({ id: this.newId(), threadId, author: by, body, createdAt: this.now() });
    return (await this.deps.store.getThread(threadId))!;
  }

  setThreadStatus(threadId: string, status: ThreadStatus, by: string): Promise<ReviewThread> {
    return this.deps.store.setThreadStatus(threadId, status, by, this.now());
  }

  async exportActions(runId: string, status?: ActionStatus): Promise<ActionsExport> {
    const run = await this.deps.store.getRun(runId);
    if (!run) throw notFound(`No review ${runId}.`, { review_id: runId });
    const actions = await this.deps.store.listActions(runId, status);
    return {
      format: 'agent-progress.review-actions/1',
      exported_at: this.now(),
      review: { review_id: run.id, project_id: run.projectId, workflow: run.workflow, phase: run.phase, context: run.context },
      actions: actions.map(actionOut),
    };
  }
}

/** The status document of a run (or of none), for the status file and the CLI. */
export function statusDocument(state: ReviewState | undefined, now: Date): ReviewStatusDocument {
  if (!state)
    return {
      format: 'agent-progress.review-status/1',
      updated_at: now.toISOString(),
      review: null,
      agents: [],
      actions: { pending: 0, approved: 0, dismissed: 0 },
      threads: { open: 0, resolved: 0 },
    };
  const { run } = state;
  const count = <T>(list: T[], f: (t: T) => boolean) => list.filter(f).length;
  return {
    format: 'agent-progress.review-status/1',
    updated_at: now.toISOString(),
    review: {
      review_id: run.id,
      project_id: run.projectId,
      workflow: run.workflow,
      title: run.definition.title,
      phase: run.phase,
      phases: run.definition.phases,
      phase_changed_at: run.phaseChangedAt,
      started_at: run.createdAt,
      finished_at: run.finishedAt,
      context: run.context,
    },
    agents: state.agents.map((a) => ({
      name: a.name,
      state: a.state,
      started_at: a.startedAt,
      completed_at: a.completedAt,
      duration_ms: a.state === 'running' && a.startedAt ? Math.max(0, now.getTime() - Date.parse(a.startedAt)) : a.durationMs,
      summary: a.summary,
      anomalies: a.anomalies,
    })),
    actions: {
      pending: count(state.actions, (a) => a.status === 'pending'),
      approved: count(state.actions, (a) => a.status === 'approved'),
      dismissed: count(state.actions, (a) => a.status === 'dismissed'),
    },
    threads: { open: count(state.threads, (t) => t.status === 'open'), resolved: count(state.threads, (t) => t.status === 'resolved') },
  };
}
