// complete_task: end a tracked task; report the files it changed and check them against its
// declared areas (workflow-tracking protocol, README "Tools").

import { completeTaskInput, completeTaskOutput } from '../../../core/workflow/schemas';
import type { CompletedTask } from '../../../core/workflow/workflowService';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { workflowTool } from './deps';

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${seconds % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

function summary(out: CompletedTask): string {
  const f = out.files_changed;
  const lines = [`Completed task ${out.task_id} "${out.name}" (${out.status}) in ${duration(out.duration_seconds)}.`];
  const counts = [
    f.added.length > 0 ? `${f.added.length} added` : '',
    f.modified.length > 0 ? `${f.modified.length} modified` : '',
    f.deleted.length > 0 ? `${f.deleted.length} deleted` : '',
    f.renamed.length > 0 ? `${f.renamed.length} renamed` : '',
  ].filter(Boolean);
  if (out.files_known) lines.push(counts.length > 0 ? `Files changed: ${counts.join(', ')}.` : 'No file changed.');
  const listed = [...f.added.map((p) => `A ${p}`), ...f.modified.map((p) => `M ${p}`), ...f.deleted.map((p) => `D ${p}`), ...f.renamed.map((r) => `R ${r.from} -> ${r.to}`)];
  lines.push(...listed.slice(0, 30).map((l) => `  ${l}`));
  if (listed.length > 30) lines.push(`  … and ${listed.length - 30} more (see structuredContent)`);
  if (out.commits.length > 0) lines.push(`Commits during the task: ${out.commits.length}.`);
  const outside = out.verification.unexpected_files;
  if (out.verification.scope_match === null) lines.push('Scope: not checked (see the warning).');
  else if (out.verification.scope_match) lines.push('Scope: every changed file is inside the declared areas.');
  else lines.push(`Outside the declared areas: ${outside.slice(0, 30).join(', ')}${outside.length > 30 ? `, … and ${outside.length - 30} more (see structuredContent)` : ''}`);
  for (const w of out.verification.warnings) lines.push(`Warning: ${w}`);
  return lines.join('\n');
}

export const completeTask = workflowTool('completeTask', APPENDS, completeTaskInput, completeTaskOutput, {
  description:
    'Finish a task started with start_task: its status (success, partial_success, failed), an outcome (summary, achievements, limitations, whether a person must review) and optional metadata. ' +
    'Computes the files the task changed since its snapshot (committed, uncommitted and new files; renames; deletions) and checks them against the declared areas (scope_match null when it could not: no areas, or no snapshot). ' +
    'Complete subtasks before their parent. Returns the duration, files_changed and a verification with warnings.',
  answer(out) {
    const structured = {
      task_id: out.task_id,
      status: out.status,
      duration_seconds: out.duration_seconds,
      files_changed: out.files_changed,
      verification: out.verification,
      commits: out.commits,
    };
    return toolSuccess(summary(out), structured);
  },
});
