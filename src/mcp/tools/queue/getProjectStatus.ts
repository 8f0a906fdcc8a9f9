// get_project_status: A project's queue at a glance: counts by status, agents working and idle, the oldest queued task, the next lease to expire (TaskDriver specification, README "Tools").

import { projectScopeInput, projectStatusOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { projectLine } from './format';

export const getProjectStatus = queueTool('get_project_status', READ_ONLY, projectScopeInput, projectStatusOutput, {
  description: 'Counts by status, agents working and idle, oldest queued task, next lease to expire.',
  async run(queue, args, { session }) {
    const s = await queue.getProjectStatus(args, session);
    const agents = s.agents.list.map((a) => `${a.name} ${a.status}${a.currentTaskId ? ` on ${a.currentTaskId}` : ''}`).join(', ');
    return toolSuccess(`${projectLine(s.project)}\nAgents: ${s.agents.total ? agents : 'none'}${s.oldestQueuedAt ? `\nOldest queued since ${s.oldestQueuedAt}` : ''}`, s);
  },
});
