// create_task_type: Define a kind of task: a template with {{variable}} placeholders (filled per task), duplicate handling by variables, retries and lease length (TaskDriver specification, README "Tools").

import { createTaskTypeInput, taskTypeResult } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { MCP_OPERATOR } from './format';

export const createTaskType = queueTool('create_task_type', APPENDS, createTaskTypeInput, taskTypeResult, {
  description: 'Define a task type in an open project: a {{variable}} template, duplicate handling, retries, lease.',
  async run(queue, args, { session }) {
    const type = await queue.createTaskType(args, MCP_OPERATOR, session);
    const vars = type.variables.length > 0 ? ` with variables ${type.variables.join(', ')}` : '';
    return toolSuccess(
      `Created task type ${type.name} (${type.id})${vars}; duplicates: ${type.duplicateHandling}, ${type.maxRetries} retries, ${type.leaseDurationMinutes} min lease.`,
      { taskType: type },
    );
  },
});
