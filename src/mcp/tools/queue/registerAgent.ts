// register_agent: Become an agent of a project: pick a name or be given one, and receive an API key (shown once) (TaskDriver specification, README "Tools").

import { registerAgentInput, registerOutput } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerRegisterAgent(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'register_agent',
    title: 'Register agent',
    description: 'Become an agent of an open project; get an apiKey (shown once) to reconnect later. One session per agent.',
    input: registerAgentInput,
    output: registerOutput,
    annotations: APPENDS,
    async handler(args, ctx) {
      const out = await (await deps.queue()).registerAgent(args, ctx.session);
      const key = out.apiKey ? ` Your apiKey (shown only now; keep it to reconnect): ${out.apiKey}.` : '';
      return toolSuccess(`${out.reconnected ? 'Reconnected' : 'Registered'} as agent ${out.agent.name} in project ${out.agent.projectId}.${key} Next: request_task.`, out);
    },
  };
}
