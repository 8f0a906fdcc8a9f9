// get_task_type: One task type by id or name: template, variables, duplicate handling, retries, lease (TaskDriver specification, README "Tools").

import { taskTypeInput, taskTypeResult } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerGetTaskType(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_task_type',
    title: 'Get task type',
    description: 'A task type by id or name.',
    input: taskTypeInput,
    output: taskTypeResult,
    annotations: READ_ONLY,
    more: '`agent-progress get-task-type PROJECT TYPE --json` shows it whole.',
    async handler(args, ctx) {
      const type = await (await deps.queue()).getTaskType(args, ctx.session);
      return toolSuccess(`${type.name} (${type.id}): ${type.template ?? 'no template'}`, { taskType: type });
    },
  };
}
