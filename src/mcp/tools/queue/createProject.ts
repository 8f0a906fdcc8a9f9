// create_project: Create a task queue project (its id is the name) (TaskDriver specification, README "Tools").

import { createProjectInput, projectResult } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { MCP_OPERATOR } from './format';

export const createProject = queueTool('create_project', APPENDS, createProjectInput, projectResult, {
  description: 'Create a task queue project (id = name). Next: create_task_type, add_task.',
  async run(queue, args, { session }) {
    const project = await queue.createProject(args, MCP_OPERATOR, session);
    return toolSuccess(`Created project ${project.id}. Next: create_task_type, then add_task or create_tasks_bulk.`, { project });
  },
});
