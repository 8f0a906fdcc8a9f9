// complete_task: Report the task you hold as done, with what was done (TaskDriver specification, README "Tools").

import { completeTaskInput, completeOutput } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerCompleteTask(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'complete_task',
    title: 'Complete task',
    description: 'Report your task done, with what was done.',
    input: completeTaskInput,
    output: completeOutput,
    annotations: APPENDS,
    async handler(args, ctx) {
      const task = await (await deps.queue()).completeTask(args, ctx.session);
      return toolSuccess(`Task ${task.id} completed. Call request_task for the next one.`, { task });
    },
  };
}
