// What the workflow webview shows, built from the ledger's detail of a workflow: pure, so unit
// tests check it without VS Code.

import type { TrackedTask, WorkflowDetail, WorkflowEvent } from '../../core/workflow/types';
import type { FileView, TaskView, TimelineItem, WorkflowPage } from '../../shared/workflowProtocol';
import { fileChanges } from './workflowItems';

function depthOf(task: TrackedTask, byId: Map<string, TrackedTask>): number {
  let depth = 0;
  for (let p = task.parentTaskId; p !== null && depth < 10_000; p = byId.get(p)?.parentTaskId ?? null) depth++;
  return depth;
}

function snapshotText(task: TrackedTask): string {
  const s = task.startSnapshot;
  if (!s) return 'no snapshot';
  if (s.type === 'git') return `git snapshot ${s.head ? `at ${s.head.slice(0, 7)}` : 'of a repository without commits'}${s.branch ? ` on ${s.branch}` : ''}, working tree included`;
  if (s.type === 'checksum') return `checksum snapshot of ${s.fileCount ?? 0} files`;
  return `no snapshot: ${s.note ?? ''}`;
}

function toTaskView(task: TrackedTask, byId: Map<string, TrackedTask>): TaskView {
  const files: FileView[] | null = task.filesChanged
    ? fileChanges(task).map((f) => ({ status: f.status, path: f.path, ...(f.from ? { from: f.from } : {}), inScope: f.inScope }))
    : null;
  return {
    id: task.id,
    parentId: task.parentTaskId,
    depth: depthOf(task, byId),
    name: task.name,
    goal: task.goal,
    areas: task.areas,
    status: task.status,
    startedAt: task.startedAt,
    completedAt: task.completedAt,
    durationSeconds: task.durationSeconds,
    progress: task.progress,
    milestone: task.milestone,
    snapshot: snapshotText(task),
    summary: task.outcome?.summary ?? null,
    achievements: task.outcome?.achievements ?? [],
    limitations: task.outcome?.limitations ?? [],
    nextSteps: task.outcome?.next_steps ?? [],
    reviewNeeded: task.outcome?.manual_review_needed === true,
    reviewReason: task.outcome?.manual_review_reason ?? null,
    testsStatus: task.metadata?.tests_status ?? null,
    files,
    filesKnown: task.filesKnown,
    warnings: task.verification?.warnings ?? [],
    commits: task.commits,
  };
}

function timelineItem(e: WorkflowEvent, names: Map<string, string>): TimelineItem {
  const base = {
    seq: e.seq,
    kind: e.kind,
    at: e.createdAt,
    taskId: e.taskId,
    taskName: e.taskId ? (names.get(e.taskId) ?? e.taskId) : null,
    review: e.review,
    progress: null as number | null,
  };
  switch (e.kind) {
    case 'workflow_started':
      return { ...base, title: `Workflow started: ${e.data.name}`, detail: [] };
    case 'task_started':
      return { ...base, title: `Started ${e.data.name}`, detail: [] };
    case 'decision':
      return {
        ...base,
        title: `${e.data.question} → ${e.data.chosen}`,
        detail: [
          `${e.data.category.replace(/_/g, ' ')}`,
          ...(e.data.options_considered.length > 0 ? [`Options: ${e.data.options_considered.join(', ')}`] : []),
          e.data.reasoning,
          ...(e.data.trade_offs ? [`Trade-offs: ${e.data.trade_offs}`] : []),
        ],
      };
    case 'issue':
      return {
        ...base,
        title: e.data.description,
        detail: [e.data.type.replace(/_/g, ' '), `Resolution: ${e.data.resolution}`, ...(e.data.requires_human_review ? ['A person should review this.'] : [])],
      };
    case 'milestone':
      return { ...base, title: e.data.message, detail: e.data.metadata ? [JSON.stringify(e.data.metadata)] : [], progress: e.data.progress ?? null };
    case 'task_completed':
      return {
        ...base,
        title: `Completed (${e.data.status.replace(/_/g, ' ')}): ${e.data.summary}`,
        detail: [
          `${e.data.files} file${e.data.files === 1 ? '' : 's'} changed`,
          ...(e.data.manual_review_needed ? [`Manual review needed${e.data.manual_review_reason ? `: ${e.data.manual_review_reason}` : ''}`] : []),
        ],
      };
  }
}

export function toWorkflowPage(detail: WorkflowDetail): WorkflowPage {
  const byId = new Map(detail.tasks.map((t) => [t.id, t]));
  const names = new Map(detail.tasks.map((t) => [t.id, t.name]));
  const count = (s: TrackedTask['status']) => detail.tasks.filter((t) => t.status === s).length;
  const counts = { total: detail.tasks.length, running: count('in_progress'), success: count('success'), partial: count('partial_success'), failed: count('failed') };
  const w = detail.workflow;
  return {
    id: w.id,
    projectId: w.projectId,
    name: w.name,
    description: w.description,
    plan: w.plan,
    createdAt: w.createdAt,
    counts,
    percentDone: counts.total === 0 ? 0 : Math.round(((counts.total - counts.running) / counts.total) * 100),
    tasks: detail.tasks.map((t) => toTaskView(t, byId)),
    timeline: detail.events.map((e) => timelineItem(e, names)),
  };
}
