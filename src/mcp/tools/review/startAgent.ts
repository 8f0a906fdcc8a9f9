// start_agent: an agent (audit) of the review begins.

import { agentResultOutput, startAgentInput } from '../../../core/review/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { reviewTool } from './deps';

export const startAgent = reviewTool('startAgent', APPENDS, startAgentInput, agentResultOutput, {
  title: 'Start review agent',
  description:
    "Signal that an agent (audit) of the review starts, by its name in get_workflow's list; its time is recorded and the person watching sees it running. " +
    'A name not in the list is refused. Starting one twice is recorded as an anomaly (see warnings). Call complete_agent when it ends.',
  answer: (out) => toolSuccess(`Agent ${out.agent.name} started in review ${out.review_id}.${out.warnings.length ? ` Warning: ${out.warnings.join(' ')}` : ''}`, out),
});
