// complete_agent: an agent (audit) of the review ends, with an optional summary.

import { agentResultOutput, completeAgentInput } from '../../../core/review/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { reviewTool } from './deps';

export const completeAgent = reviewTool('completeAgent', APPENDS, completeAgentInput, agentResultOutput, {
  title: 'Complete review agent',
  description:
    'Signal that an agent (audit) ended, with status completed (default) or failed and an optional summary of its findings; the duration since start_agent is recorded. ' +
    'A name not in the list is refused; completing without start_agent, or twice, is recorded as an anomaly (see warnings). Returns next_agent.',
  answer(out) {
    const took = out.agent.duration_ms !== null ? ` in ${(out.agent.duration_ms / 1000).toFixed(1)} s` : '';
    const next = out.next_agent ? ` Next agent: ${out.next_agent}.` : ' No agent left to start.';
    return toolSuccess(`Agent ${out.agent.name} ${out.agent.state}${took}.${next}${out.warnings.length ? ` Warning: ${out.warnings.join(' ')}` : ''}`, out);
  },
});
