// get_task: One task with its instructions, status and every attempt (the history) (TaskDriver specification, README "Tools").

import { taskInput, taskWithHistoryOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { taskLine, attemptLine } from './format';

export function registerGetTask(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_task',
    title: 'Get task',
    description: 'A task with its instructions, status and attempt history.',
    input: taskInput,
    output: taskWithHistoryOutput,
    annotations: READ_ONLY,
    more: 'get_current_task (for the task you hold), `agent-progress get-task ID --json` and the task page in VS Code show it whole.',
    async handler(args, ctx) {
      const task = await (await deps.queue()).getTask(args, ctx.session);
      return toolSuccess([taskLine(task), ...task.attempts.map((a) => `  ${attemptLine(a)}`)].join('\n'), { task });
    },
  };
}
