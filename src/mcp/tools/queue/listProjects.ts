// list_projects: List task queue projects with their task counts; closed ones only with includeClosed (TaskDriver specification, README "Tools").

import { listProjectsInput, projectsOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { projectLine } from './format';

export function registerListProjects(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'list_projects',
    title: 'List projects',
    description: 'Projects with their task counts (closed ones with includeClosed).',
    input: listProjectsInput,
    output: projectsOutput,
    annotations: READ_ONLY,
    async handler(args, ctx) {
      const projects = await (await deps.queue()).listProjects(args, ctx.session);
      return toolSuccess(projects.length === 0 ? 'No projects yet: create_project makes one.' : projects.map(projectLine).join('\n'), { projects });
    },
  };
}
