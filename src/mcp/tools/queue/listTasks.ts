// list_tasks: A project's tasks in queue order, filtered by status or type, paged with limit and offset (TaskDriver specification, README "Tools").

import { listTasksInput, tasksOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { taskLine } from './format';

export function registerListTasks(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'list_tasks',
    title: 'List tasks',
    description: "A project's tasks in queue order, by status or type, paged.",
    input: listTasksInput,
    output: tasksOutput,
    annotations: READ_ONLY,
    more: 'get_task returns one task in full.',
    async handler(args, ctx) {
      const out = await (await deps.queue()).listTasks(args, ctx.session);
      const more = out.total > out.tasks.length ? `\n(${out.tasks.length} of ${out.total}; use offset for more)` : '';
      return toolSuccess(out.tasks.length ? out.tasks.map(taskLine).join('\n') + more : `No tasks (total ${out.total}).`, out);
    },
  };
}
