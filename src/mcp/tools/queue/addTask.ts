// add_task: Queue one task: a type's variables (its template makes the instructions), or plain instructions without a type (TaskDriver specification, README "Tools").

import { addTaskInput, addTaskOutput } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { MCP_OPERATOR, taskLine } from './format';

export function registerAddTask(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'add_task',
    title: 'Add task',
    description: "Queue a task in an open project (create_project first): a type's variables, or plain instructions. Many: create_tasks_bulk.",
    input: addTaskInput,
    output: addTaskOutput,
    annotations: APPENDS,
    async handler(args, ctx) {
      const out = await (await deps.queue()).addTask(args, MCP_OPERATOR, ctx.session);
      return toolSuccess(out.created ? `Queued task ${out.task.id}.` : `A task with these variables exists: ${taskLine(out.task)} (not added again).`, out);
    },
  };
}
