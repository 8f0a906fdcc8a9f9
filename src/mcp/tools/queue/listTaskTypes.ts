// list_task_types: A project's task types with their templates and variables (TaskDriver specification, README "Tools").

import { projectScopeInput, taskTypesOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerListTaskTypes(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'list_task_types',
    title: 'List task types',
    description: "A project's task types.",
    input: projectScopeInput,
    output: taskTypesOutput,
    annotations: READ_ONLY,
    more: 'get_task_type returns one task type.',
    async handler(args, ctx) {
      const taskTypes = await (await deps.queue()).listTaskTypes(args, ctx.session);
      const lines = taskTypes.map((t) => `${t.name} (${t.id})${t.variables.length ? `: ${t.variables.join(', ')}` : ''}`);
      return toolSuccess(lines.length ? lines.join('\n') : 'No task types yet: create_task_type.', { taskTypes });
    },
  };
}
