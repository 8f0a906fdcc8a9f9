// get_task: One task with its instructions, status and every attempt (the history) (TaskDriver specification, README "Tools").

import { taskInput, taskWithHistoryOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { taskLine, attemptLine } from './format';

export const getTask = queueTool('get_task', READ_ONLY, taskInput, taskWithHistoryOutput, {
  description: 'A task with its instructions, status and attempt history.',
  more: 'get_current_task (for the task you hold), `agent-progress get-task ID --json` and the task page in VS Code show it whole.',
  async run(queue, args, { session }) {
    const task = await queue.getTask(args, session);
    return toolSuccess([taskLine(task), ...task.attempts.map((a) => `  ${attemptLine(a)}`)].join('\n'), { task });
  },
});
