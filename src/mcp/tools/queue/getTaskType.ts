// get_task_type: One task type by id or name: template, variables, duplicate handling, retries, lease (TaskDriver specification, README "Tools").

import { taskTypeInput, taskTypeResult } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const getTaskType = queueTool('get_task_type', READ_ONLY, taskTypeInput, taskTypeResult, {
  description: 'A task type by id or name.',
  more: '`agent-progress get-task-type PROJECT TYPE --json` shows it whole.',
  async run(queue, args, { session }) {
    const type = await queue.getTaskType(args, session);
    return toolSuccess(`${type.name} (${type.id}): ${type.template ?? 'no template'}`, { taskType: type });
  },
});
