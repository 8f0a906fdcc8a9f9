// get_workflow: the review to run (started from a definition on first call), its agents in
// order, phase, context, open threads and queued actions with their decisions. Call first.

import { getWorkflowInput, getWorkflowOutput } from '../../../core/review/schemas';
import type { ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { ReviewToolDeps } from './deps';

export function registerGetWorkflow(deps: ReviewToolDeps): ToolDefinition {
  return {
    name: 'get_workflow',
    title: 'Get review workflow',
    description:
      'Call first in a review. Returns the review to run: its agents (audits) in order with their states, the current phase and the phases in order, ' +
      'the context (branch, merge request, notes), open threads, and the actions queued so far with a person\'s decision (approved/dismissed, by whom, when). ' +
      'Starts a review from a definition in .agent-progress/reviews/ when none is running. Then use set_phase, start_agent and complete_agent.',
    input: getWorkflowInput,
    output: getWorkflowOutput,
    shallowOutput: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler(args) {
      const out = await (await deps.review()).getWorkflow(args);
      const next = out.next_agent ? ` Next agent: ${out.next_agent}.` : '';
      return toolSuccess(
        `${out.started ? 'Started' : 'Review'} ${out.review_id} (${out.workflow}), phase ${out.phase}; agents in order: ${out.agents.map((a) => `${a.name} [${a.state}]`).join(', ')}.${next} ` +
          `${out.threads.length} open thread(s), ${out.actions.filter((a) => a.status === 'pending').length} action(s) awaiting a decision.`,
        out,
      );
    },
  };
}
