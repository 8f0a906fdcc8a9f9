// create_project: Create a task queue project (its id is the name) (TaskDriver specification, README "Tools").

import { createProjectInput, projectResult } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { MCP_OPERATOR } from './format';

export function registerCreateProject(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'create_project',
    title: 'Create project',
    description: 'Create a task queue project (id = name). Next: create_task_type, add_task.',
    input: createProjectInput,
    output: projectResult,
    annotations: APPENDS,
    async handler(args, ctx) {
      const project = await (await deps.queue()).createProject(args, MCP_OPERATOR, ctx.session);
      return toolSuccess(`Created project ${project.id}. Next: create_task_type, then add_task or create_tasks_bulk.`, { project });
    },
  };
}
