// get_project_status: A project's queue at a glance: counts by status, agents working and idle, the oldest queued task, the next lease to expire (TaskDriver specification, README "Tools").

import { projectScopeInput, projectStatusOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { projectLine } from './format';

export function registerGetProjectStatus(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_project_status',
    title: 'Get project status',
    description: 'Counts by status, agents working and idle, oldest queued task, next lease to expire.',
    input: projectScopeInput,
    output: projectStatusOutput,
    annotations: READ_ONLY,
    async handler(args, ctx) {
      const s = await (await deps.queue()).getProjectStatus(args, ctx.session);
      const agents = s.agents.list.map((a) => `${a.name} ${a.status}${a.currentTaskId ? ` on ${a.currentTaskId}` : ''}`).join(', ');
      return toolSuccess(`${projectLine(s.project)}\nAgents: ${s.agents.total ? agents : 'none'}${s.oldestQueuedAt ? `\nOldest queued since ${s.oldestQueuedAt}` : ''}`, s);
    },
  };
}
