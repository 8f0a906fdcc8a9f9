// list_projects: List task queue projects with their task counts; closed ones only with includeClosed (TaskDriver specification, README "Tools").

import { listProjectsInput, projectsOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { projectLine } from './format';

export const listProjects = queueTool('list_projects', READ_ONLY, listProjectsInput, projectsOutput, {
  description: 'Projects with their task counts (closed ones with includeClosed).',
  async run(queue, args, { session }) {
    const projects = await queue.listProjects(args, session);
    return toolSuccess(projects.length === 0 ? 'No projects yet: create_project makes one.' : projects.map(projectLine).join('\n'), { projects });
  },
});
