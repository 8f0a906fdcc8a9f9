// join_project: Start working in a project: returns its purpose and counts, and makes it the default projectId of this session's later calls (TaskDriver specification, README "Tools").

import { projectInput, projectResult } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { countsLine } from './format';

export function registerJoinProject(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'join_project',
    title: 'Join project',
    description: "Work in a project: its purpose and counts; this session's later calls default to it. Agents: then register_agent.",
    input: projectInput,
    output: projectResult,
    annotations: READ_ONLY,
    async handler(args, ctx) {
      const project = await (await deps.queue()).joinProject(args, ctx.session);
      return toolSuccess(
        `Joined ${project.id}${project.description ? `: ${project.description}` : ''}${project.status === 'closed' ? ' (closed: no new tasks or agents)' : ''}. ${countsLine(project)}. ` +
          `Later calls in this session default to ${project.id}. Next: register_agent (once), then request_task.`,
        { project },
      );
    },
  };
}
