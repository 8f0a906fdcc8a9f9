// The words of the status bar and of review notifications, from ledger data. No vscode import:
// unit tests check them directly.

import type { RunningTask } from '../../core/storage/workflowStore';
import type { ReviewRequest } from '../../core/workflow/types';
import type { WorkflowRef } from './workflowItems';

const IDLE_MS = 60 * 60_000;

/** The status bar's text, tooltip lines and target for the running tasks (pure: unit-tested). */
export function statusFor(running: readonly RunningTask[], now: Date): { text: string; tooltip: string[]; target: WorkflowRef | undefined } | undefined {
  const live = running.filter((r) => now.getTime() - Date.parse(r.task.lastActivityAt) < IDLE_MS);
  if (live.length === 0) return undefined;
  const describe = (r: RunningTask) => `${r.task.progress !== null ? `${Math.round(r.task.progress)}%` : 'running'}${r.task.milestone ? ` · ${r.task.milestone}` : ''}`;
  const tooltip = live.map((r) => `${r.task.name} (${r.workflowName}): ${describe(r)}`);
  if (live.length === 1) {
    const r = live[0]!;
    return { text: `$(sync~spin) ${r.task.name} · ${describe(r)}`, tooltip, target: { workflowId: r.task.workflowId, taskId: r.task.id } };
  }
  return { text: `$(sync~spin) ${live.length} tracked tasks running`, tooltip, target: undefined };
}

/** The notification's text for one request (pure: unit-tested). */
export function reviewMessage(r: ReviewRequest): string {
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  return r.kind === 'issue'
    ? `Agent Progress: an agent asks for a review in "${clip(r.taskName, 80)}": ${clip(r.text, 200)}`
    : `Agent Progress: "${clip(r.taskName, 80)}" finished and needs a manual review: ${clip(r.text, 200)}`;
}
