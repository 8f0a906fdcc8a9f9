// get_project: A project's details, settings and task counts (TaskDriver specification, README "Tools").

import { projectScopeInput, projectResult } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { projectLine } from './format';

export const getProject = queueTool('get_project', READ_ONLY, projectScopeInput, projectResult, {
  description: "A project's settings and task counts.",
  async run(queue, args, { session }) {
    const project = await queue.getProject(args, session);
    return toolSuccess(projectLine(project), { project });
  },
});
