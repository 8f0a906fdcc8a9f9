// complete_task: Report the task you hold as done, with what was done (TaskDriver specification, README "Tools").

import { completeTaskInput, completeOutput } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const completeTask = queueTool('complete_task', APPENDS, completeTaskInput, completeOutput, {
  description: 'Report your task done, with what was done.',
  async run(queue, args, { session }) {
    const task = await queue.completeTask(args, session);
    return toolSuccess(`Task ${task.id} completed. Call request_task for the next one.`, { task });
  },
});
