// add_task: Queue one task: a type's variables (its template makes the instructions), or plain instructions without a type (TaskDriver specification, README "Tools").

import { addTaskInput, addTaskOutput } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { MCP_OPERATOR, taskLine } from './format';

export const addTask = queueTool('add_task', APPENDS, addTaskInput, addTaskOutput, {
  description: "Queue a task in an open project (create_project first): a type's variables, or plain instructions. Many: create_tasks_bulk.",
  async run(queue, args, { session }) {
    const out = await queue.addTask(args, MCP_OPERATOR, session);
    return toolSuccess(out.created ? `Queued task ${out.task.id}.` : `A task with these variables exists: ${taskLine(out.task)} (not added again).`, out);
  },
});
