// join_project: Start working in a project: returns its purpose and counts, and makes it the default projectId of this session's later calls (TaskDriver specification, README "Tools").

import { projectInput, projectResult } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { countsLine } from './format';

export const joinProject = queueTool('join_project', READ_ONLY, projectInput, projectResult, {
  description: "Work in a project: its purpose and counts; this session's later calls default to it. Agents: then register_agent.",
  async run(queue, args, { session }) {
    const project = await queue.joinProject(args, session);
    return toolSuccess(
      `Joined ${project.id}${project.description ? `: ${project.description}` : ''}${project.status === 'closed' ? ' (closed: no new tasks or agents)' : ''}. ${countsLine(project)}. ` +
        `Later calls in this session default to ${project.id}. Next: register_agent (once), then request_task.`,
      { project },
    );
  },
});
