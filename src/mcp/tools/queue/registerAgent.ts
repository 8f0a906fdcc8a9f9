// register_agent: Become an agent of a project: pick a name or be given one, and receive an API key (shown once) (TaskDriver specification, README "Tools").

import { registerAgentInput, registerOutput } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const registerAgent = queueTool('register_agent', APPENDS, registerAgentInput, registerOutput, {
  description: 'Become an agent of an open project; get an apiKey (shown once) to reconnect later. One session per agent.',
  async run(queue, args, { session }) {
    const out = await queue.registerAgent(args, session);
    const key = out.apiKey ? ` Your apiKey (shown only now; keep it to reconnect): ${out.apiKey}.` : '';
    return toolSuccess(`${out.reconnected ? 'Reconnected' : 'Registered'} as agent ${out.agent.name} in project ${out.agent.projectId}.${key} Next: request_task.`, out);
  },
});
