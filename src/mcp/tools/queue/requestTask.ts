// request_task: Take the next queued task (first in, first out) under a lease (TaskDriver specification, README "Tools").

import { agentInput, requestTaskOutput } from '../../../core/queue/schemas';
import { IDEMPOTENT_WRITE } from '../../toolRegistry';
import { RESPONSE_CEILING, toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { assignedText } from './format';

export const requestTask = queueTool('request_task', IDEMPOTENT_WRITE, agentInput, requestTaskOutput, {
  description: 'Take the next queued task (FIFO) under a lease; returns the one you hold if any. Finish with complete_task or fail_task.',
  // The instructions are the work itself: sent whole (the specification's 20,000 characters), up to the ceiling.
  responseBudget: RESPONSE_CEILING,
  async run(queue, args, { session }) {
    const out = await queue.requestTask(args, session);
    let text: string;
    if (out.task) text = assignedText(out.task, out.alreadyAssigned);
    else if (out.reason === 'closed') text = 'The project is closed: no more tasks are assigned.';
    else if (out.retryAt) {
      const n = out.counts?.queued ?? 1;
      text = `No task for you now: ${n} queued task${n === 1 ? '' : 's'} you failed wait${n === 1 ? 's' : ''} for another agent until ${out.retryAt}; ask again then.`;
    } else text = `No task is queued${out.counts ? ` (${out.counts.running} running)` : ''}. Try again later.`;
    return toolSuccess(text, { task: out.task ?? null, alreadyAssigned: out.alreadyAssigned, reason: out.reason, ...(out.retryAt ? { retryAt: out.retryAt } : {}) });
  },
});
