// CLI commands of workflow tracking: workflows (list), workflow (one, with its task tree and
// timeline), tracked-task (one task with its files changed). Thin wrappers over WorkflowService;
// they read the ledger and never take snapshots.

import { defaultProjectId } from '../core/projectId';
import type { TrackedTask, WorkflowEvent, WorkflowListing } from '../core/workflow/types';
import { flagSet, flagValue, parseArgv, UsageError } from './args';
import type { Command } from './command';

function when(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : '-';
}

function duration(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m ${seconds % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

function workflowState(w: WorkflowListing): string {
  if (w.running > 0) return 'running';
  if (w.taskCount === 0) return 'empty';
  if (w.failed > 0) return 'failed';
  if (w.partial > 0) return 'partial';
  return 'done';
}

function taskLine(t: TrackedTask): string {
  const status = t.status === 'in_progress' ? `running${t.progress !== null ? ` ${t.progress}%` : ''}${t.milestone ? `: ${t.milestone}` : ''}` : t.status;
  const f = t.filesChanged;
  const files = f ? `, ${f.added.length + f.modified.length + f.deleted.length + f.renamed.length} file(s)` : '';
  return `${t.id}  ${t.name}  [${status}${t.durationSeconds !== null ? `, ${duration(t.durationSeconds)}` : ''}${files}]`;
}

function depthOf(task: TrackedTask, byId: Map<string, TrackedTask>): number {
  let depth = 0;
  for (let p = task.parentTaskId; p !== null && depth < 10_000; p = byId.get(p)?.parentTaskId ?? null) depth++;
  return depth;
}

function eventLine(e: WorkflowEvent, names: Map<string, string>): string {
  const task = e.taskId ? ` ${names.get(e.taskId) ?? e.taskId}:` : '';
  const at = when(e.createdAt);
  switch (e.kind) {
    case 'workflow_started':
      return `${at}  workflow started`;
    case 'task_started':
      return `${at} ${task} started`;
    case 'decision':
      return `${at} ${task} decided ${e.data.question} -> ${e.data.chosen} (${e.data.category})`;
    case 'issue':
      return `${at} ${task} issue (${e.data.type}${e.data.requires_human_review ? ', review requested' : ''}): ${e.data.description}`;
    case 'milestone':
      return `${at} ${task} ${e.data.message}${e.data.progress !== undefined ? ` (${e.data.progress}%)` : ''}`;
    case 'task_completed':
      return `${at} ${task} completed ${e.data.status}${e.data.manual_review_needed ? ', manual review needed' : ''}: ${e.data.summary}`;
  }
}

const workflowsCommand: Command = {
  name: 'workflows',
  summary: 'list tracked workflows',
  usage: `Usage: agent-progress workflows [options]

Lists workflows (start_workflow), latest activity first, with their tasks' states.

Options:
  --project ID   project (default: the repository's folder name)
  --all          every project
  --limit N      at most N workflows (default 50)
  --json         print the result as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { project: { value: true, alias: 'p' }, all: {}, limit: { value: true, alias: 'n' }, json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    if (flagSet(p, 'all') && flagValue(p, 'project') !== undefined) throw new UsageError('Give --project or --all, not both');
    const rawLimit = flagValue(p, 'limit');
    const limit = rawLimit === undefined ? 50 : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive whole number, got "${rawLimit}"`);
    const projectId = flagSet(p, 'all') ? undefined : (flagValue(p, 'project') ?? defaultProjectId(ctx.cwd));
    const service = await ctx.services.workflow();
    const { workflows, total } = await service.listWorkflows({ ...(projectId !== undefined ? { projectId } : {}), limit });
    if (flagSet(p, 'json')) {
      ctx.out.json({ ...(projectId !== undefined ? { projectId } : {}), workflows, total });
      return;
    }
    if (total === 0) {
      ctx.out.line(projectId !== undefined ? `No workflows in ${projectId}. Try --all.` : 'No workflows in the ledger yet.');
      return;
    }
    for (const w of workflows) {
      const counts = `${w.taskCount} task${w.taskCount === 1 ? '' : 's'}${w.running ? `, ${w.running} running` : ''}${w.failed ? `, ${w.failed} failed` : ''}`;
      ctx.out.line(`${w.id}  ${when(w.lastActivityAt)}  ${workflowState(w).padEnd(7)}  ${w.name}  (${counts}${projectId === undefined ? `; ${w.projectId}` : ''})`);
    }
    ctx.out.line(`${workflows.length} of ${total} workflow${total === 1 ? '' : 's'}${projectId !== undefined ? ` in ${projectId}` : ''}`);
  },
};

const workflowCommand: Command = {
  name: 'workflow',
  summary: 'show a workflow: plan, tasks, timeline',
  usage: `Usage: agent-progress workflow ID [--json]

Prints a workflow: its plan, its tasks and subtasks with their state, and the timeline of
decisions, issues, milestones and completions.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    const [id, extra] = p.positionals;
    if (!id) throw new UsageError('Give the id of the workflow to show (agent-progress workflows lists them)');
    if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}"`);
    const service = await ctx.services.workflow();
    const detail = await service.workflowDetail(id);
    if (flagSet(p, 'json')) {
      ctx.out.json(detail);
      return;
    }
    const w = detail.workflow;
    ctx.out.line(w.name);
    ctx.out.line(`id: ${w.id}   project: ${w.projectId}   started: ${w.createdAt}`);
    if (w.description) ctx.out.line(w.description);
    if (w.plan.length > 0) {
      ctx.out.line('');
      ctx.out.line('Plan:');
      for (const s of w.plan) ctx.out.line(`  ${s.step}. ${s.goal}`);
    }
    ctx.out.line('');
    ctx.out.line(detail.tasks.length === 0 ? 'No tasks yet.' : 'Tasks:');
    const byId = new Map(detail.tasks.map((t) => [t.id, t]));
    for (const t of detail.tasks) ctx.out.line(`${'  '.repeat(depthOf(t, byId) + 1)}${taskLine(t)}`);
    const names = new Map(detail.tasks.map((t) => [t.id, t.name]));
    ctx.out.line('');
    ctx.out.line('Timeline:');
    for (const e of detail.events) ctx.out.line(`  ${eventLine(e, names)}`);
  },
};

const trackedTaskCommand: Command = {
  name: 'tracked-task',
  summary: 'show a tracked task with its files changed',
  usage: `Usage: agent-progress tracked-task ID [--json]

Prints a workflow task (start_task): goal, areas, state, snapshot, outcome, the files it changed
(A added, M modified, D deleted, R renamed; ! outside the declared areas), warnings, and its
decisions, issues and milestones.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    const [id, extra] = p.positionals;
    if (!id) throw new UsageError('Give the id of the task to show');
    if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}"`);
    const service = await ctx.services.workflow();
    const task = await service.task(id);
    const events = (await service.workflowDetail(task.workflowId)).events.filter((e) => e.taskId === task.id);
    if (flagSet(p, 'json')) {
      ctx.out.json({ task, events });
      return;
    }
    const out = ctx.out;
    out.line(task.name);
    out.line(`id: ${task.id}   workflow: ${task.workflowId}${task.parentTaskId ? `   parent: ${task.parentTaskId}` : ''}`);
    out.line(`status: ${task.status}   started: ${task.startedAt}${task.completedAt ? `   completed: ${task.completedAt} (${duration(task.durationSeconds)})` : ''}`);
    out.line(`goal: ${task.goal}`);
    if (task.areas.length > 0) out.line(`areas: ${task.areas.join(', ')}`);
    const s = task.startSnapshot;
    if (s) {
      const detail =
        s.type === 'git'
          ? `git, ${s.head ? `HEAD ${s.head.slice(0, 12)}` : 'no commit yet'}${s.branch ? ` on ${s.branch}` : ''}, tree ${s.tree?.slice(0, 12)}`
          : s.type === 'checksum'
            ? `checksum of ${s.fileCount} files`
            : `none (${s.note})`;
      out.line(`snapshot: ${detail}${s.root ? ` in ${s.root}` : ''}`);
    }
    if (task.status === 'in_progress' && (task.progress !== null || task.milestone)) out.line(`progress: ${task.progress ?? '?'}%${task.milestone ? ` (${task.milestone})` : ''}`);
    if (task.outcome) {
      out.line('');
      out.line(`outcome: ${task.outcome.summary}`);
      for (const a of task.outcome.achievements ?? []) out.line(`  + ${a}`);
      for (const l of task.outcome.limitations ?? []) out.line(`  - ${l}`);
      if (task.outcome.manual_review_needed) out.line(`manual review needed${task.outcome.manual_review_reason ? `: ${task.outcome.manual_review_reason}` : ''}`);
      for (const n of task.outcome.next_steps ?? []) out.line(`  next: ${n}`);
    }
    const f = task.filesChanged;
    if (f) {
      const outside = new Set(task.verification?.unexpected_files ?? []);
      const mark = (...paths: string[]) => (paths.some((x) => outside.has(x)) ? '!' : ' ');
      out.line('');
      const n = f.added.length + f.modified.length + f.deleted.length + f.renamed.length;
      out.line(task.filesKnown ? `files changed (${n}):` : 'files changed: unknown (see the warnings)');
      for (const x of f.added) out.line(` ${mark(x)}A ${x}`);
      for (const x of f.modified) out.line(` ${mark(x)}M ${x}`);
      for (const x of f.deleted) out.line(` ${mark(x)}D ${x}`);
      for (const r of f.renamed) out.line(` ${mark(r.from, r.to)}R ${r.from} -> ${r.to}${r.similarity < 100 ? ` (${r.similarity}%)` : ''}`);
      if (task.commits.length > 0) out.line(`commits: ${task.commits.map((c) => `${c.sha.slice(0, 7)} ${c.subject}`).join('; ')}`);
    }
    for (const w of task.verification?.warnings ?? []) out.line(`warning: ${w}`);
    const notes = events.filter((e) => e.kind === 'decision' || e.kind === 'issue' || e.kind === 'milestone');
    if (notes.length > 0) {
      out.line('');
      const names = new Map([[task.id, task.name]]);
      for (const e of notes) out.line(`  ${eventLine(e, names)}`);
    }
  },
};

export const WORKFLOW_COMMANDS: readonly Command[] = [workflowsCommand, workflowCommand, trackedTaskCommand].map((c) => ({ ...c, group: 'Workflows' }));
