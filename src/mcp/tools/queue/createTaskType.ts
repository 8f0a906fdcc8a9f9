// create_task_type: Define a kind of task: a template with {{variable}} placeholders (filled per task), duplicate handling by variables, retries and lease length (TaskDriver specification, README "Tools").

import { createTaskTypeInput, taskTypeResult } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { MCP_OPERATOR } from './format';

export function registerCreateTaskType(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'create_task_type',
    title: 'Create task type',
    description: 'Define a task type in an open project: a {{variable}} template, duplicate handling, retries, lease.',
    input: createTaskTypeInput,
    output: taskTypeResult,
    annotations: APPENDS,
    async handler(args, ctx) {
      const type = await (await deps.queue()).createTaskType(args, MCP_OPERATOR, ctx.session);
      const vars = type.variables.length > 0 ? ` with variables ${type.variables.join(', ')}` : '';
      return toolSuccess(
        `Created task type ${type.name} (${type.id})${vars}; duplicates: ${type.duplicateHandling}, ${type.maxRetries} retries, ${type.leaseDurationMinutes} min lease.`,
        { taskType: type },
      );
    },
  };
}
