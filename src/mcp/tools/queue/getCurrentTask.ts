// get_current_task: The task you hold now, if any, with its instructions and lease (TaskDriver specification, README "Tools").

import { agentInput, currentTaskOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { RESPONSE_CEILING, toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { assignedText } from './format';

export function registerGetCurrentTask(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_current_task',
    title: 'Get current task',
    description: 'The task you hold, if any.',
    input: agentInput,
    output: currentTaskOutput,
    annotations: READ_ONLY,
    responseBudget: RESPONSE_CEILING,
    async handler(args, ctx) {
      const task = await (await deps.queue()).getCurrentTask(args, ctx.session);
      return toolSuccess(task ? assignedText(task, true) : 'You hold no task: call request_task.', { task: task ?? null });
    },
  };
}
