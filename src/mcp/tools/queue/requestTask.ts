// request_task: Take the next queued task (first in, first out) under a lease (TaskDriver specification, README "Tools").

import { agentInput, requestTaskOutput } from '../../../core/queue/schemas';
import { IDEMPOTENT_WRITE, type ToolDefinition } from '../../toolRegistry';
import { RESPONSE_CEILING, toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { assignedText } from './format';

export function registerRequestTask(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'request_task',
    title: 'Request task',
    description: 'Take the next queued task (FIFO) under a lease; returns the one you hold if any. Finish with complete_task or fail_task.',
    input: agentInput,
    output: requestTaskOutput,
    annotations: IDEMPOTENT_WRITE,
    // The instructions are the work itself: sent whole (the specification's 20,000 characters), up to the ceiling.
    responseBudget: RESPONSE_CEILING,
    async handler(args, ctx) {
      const out = await (await deps.queue()).requestTask(args, ctx.session);
      let text: string;
      if (out.task) text = assignedText(out.task, out.alreadyAssigned);
      else if (out.reason === 'closed') text = 'The project is closed: no more tasks are assigned.';
      else if (out.retryAt) {
        const n = out.counts?.queued ?? 1;
        text = `No task for you now: ${n} queued task${n === 1 ? '' : 's'} you failed wait${n === 1 ? 's' : ''} for another agent until ${out.retryAt}; ask again then.`;
      } else text = `No task is queued${out.counts ? ` (${out.counts.running} running)` : ''}. Try again later.`;
      return toolSuccess(text, { task: out.task ?? null, alreadyAssigned: out.alreadyAssigned, reason: out.reason, ...(out.retryAt ? { retryAt: out.retryAt } : {}) });
    },
  };
}
