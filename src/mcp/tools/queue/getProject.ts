// get_project: A project's details, settings and task counts (TaskDriver specification, README "Tools").

import { projectScopeInput, projectResult } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { projectLine } from './format';

export function registerGetProject(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_project',
    title: 'Get project',
    description: "A project's settings and task counts.",
    input: projectScopeInput,
    output: projectResult,
    annotations: READ_ONLY,
    async handler(args, ctx) {
      const project = await (await deps.queue()).getProject(args, ctx.session);
      return toolSuccess(projectLine(project), { project });
    },
  };
}
