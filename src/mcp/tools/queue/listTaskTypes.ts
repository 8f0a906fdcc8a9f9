// list_task_types: A project's task types with their templates and variables (TaskDriver specification, README "Tools").

import { projectScopeInput, taskTypesOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const listTaskTypes = queueTool('list_task_types', READ_ONLY, projectScopeInput, taskTypesOutput, {
  description: "A project's task types.",
  more: 'get_task_type returns one task type.',
  async run(queue, args, { session }) {
    const taskTypes = await queue.listTaskTypes(args, session);
    const lines = taskTypes.map((t) => `${t.name} (${t.id})${t.variables.length ? `: ${t.variables.join(', ')}` : ''}`);
    return toolSuccess(lines.length ? lines.join('\n') : 'No task types yet: create_task_type.', { taskTypes });
  },
});
