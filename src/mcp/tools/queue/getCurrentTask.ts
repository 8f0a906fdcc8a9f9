// get_current_task: The task you hold now, if any, with its instructions and lease (TaskDriver specification, README "Tools").

import { agentInput, currentTaskOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { RESPONSE_CEILING, toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { assignedText } from './format';

export const getCurrentTask = queueTool('get_current_task', READ_ONLY, agentInput, currentTaskOutput, {
  description: 'The task you hold, if any.',
  responseBudget: RESPONSE_CEILING,
  async run(queue, args, { session }) {
    const task = await queue.getCurrentTask(args, session);
    return toolSuccess(task ? assignedText(task, true) : 'You hold no task: call request_task.', { task: task ?? null });
  },
});
