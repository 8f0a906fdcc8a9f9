// get_agent_status: An agent's state: idle or working, its current task, when it was last seen (TaskDriver specification, README "Tools").

import { agentStatusInput, agentResult } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const getAgentStatus = queueTool('get_agent_status', READ_ONLY, agentStatusInput, agentResult, {
  description: "An agent's state, current task and last seen time.",
  async run(queue, args, { session }) {
    const a = await queue.getAgentStatus(args, session);
    return toolSuccess(`${a.name}: ${a.status}${a.currentTaskId ? ` on ${a.currentTaskId}` : ''}, last seen ${a.lastSeen}${a.connected ? '' : ' (not connected)'}`, { agent: a });
  },
});
