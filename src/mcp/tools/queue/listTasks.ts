// list_tasks: A project's tasks in queue order, filtered by status or type, paged with limit and offset (TaskDriver specification, README "Tools").

import { listTasksInput, tasksOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { taskLine } from './format';

export const listTasks = queueTool('list_tasks', READ_ONLY, listTasksInput, tasksOutput, {
  description: "A project's tasks in queue order, by status or type, paged.",
  more: 'get_task returns one task in full.',
  async run(queue, args, { session }) {
    const out = await queue.listTasks(args, session);
    const more = out.total > out.tasks.length ? `\n(${out.tasks.length} of ${out.total}; use offset for more)` : '';
    return toolSuccess(out.tasks.length ? out.tasks.map(taskLine).join('\n') + more : `No tasks (total ${out.total}).`, out);
  },
});
