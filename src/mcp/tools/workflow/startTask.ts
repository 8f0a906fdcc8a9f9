// start_task: start a tracked task or subtask and snapshot the files (workflow-tracking protocol, README "Tools").

import { startTaskInput, startTaskOutput } from '../../../core/workflow/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { workflowTool } from './deps';

export const startTask = workflowTool('startTask', APPENDS, startTaskInput, startTaskOutput, {
  description:
    'Start a task of a workflow, or a subtask of a running task (parent_task_id; any depth), before you change any file. ' +
    'Takes a snapshot of the repository now (git: HEAD and the working tree, so earlier uncommitted work is not counted as yours; outside git: file checksums), ' +
    'so that complete_task can report exactly which files the task changed. Declare the areas you expect to touch. Returns the task_id.',
  answer(out) {
    const snapshot =
      out.snapshot_type === 'git'
        ? `git snapshot ${out.snapshot_id} at ${out.head ? `HEAD ${out.head.slice(0, 7)}` : 'a repository without commits'}, working tree included`
        : out.snapshot_type === 'checksum'
          ? `checksum snapshot ${out.snapshot_id} of ${out.repository}`
          : 'no snapshot';
    const warnings = out.warnings.length > 0 ? `\nWarning: ${out.warnings.join('\nWarning: ')}` : '';
    return toolSuccess(`Started task ${out.task_id} (${snapshot}). Call complete_task with task_id ${out.task_id} when it is done.${warnings}`, out);
  },
});
