// get_agent_status: An agent's state: idle or working, its current task, when it was last seen (TaskDriver specification, README "Tools").

import { agentStatusInput, agentResult } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerGetAgentStatus(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_agent_status',
    title: 'Get agent status',
    description: "An agent's state, current task and last seen time.",
    input: agentStatusInput,
    output: agentResult,
    annotations: READ_ONLY,
    async handler(args, ctx) {
      const a = await (await deps.queue()).getAgentStatus(args, ctx.session);
      return toolSuccess(`${a.name}: ${a.status}${a.currentTaskId ? ` on ${a.currentTaskId}` : ''}, last seen ${a.lastSeen}${a.connected ? '' : ' (not connected)'}`, { agent: a });
    },
  };
}
