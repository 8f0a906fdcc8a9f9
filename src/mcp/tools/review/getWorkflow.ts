// get_workflow: the review to run (started from a definition on first call), its agents in
// order, phase, context, open threads and queued actions with their decisions. Call first.

import { getWorkflowInput, getWorkflowOutput } from '../../../core/review/schemas';
import { isFinalPhase } from '../../../core/review/types';
import { IDEMPOTENT_WRITE } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { reviewTool } from './deps';

export const getWorkflow = reviewTool('getWorkflow', IDEMPOTENT_WRITE, getWorkflowInput, getWorkflowOutput, {
  title: 'Get review workflow',
  description:
    'Call first in a review. Returns the review to run: its agents (audits) in order with their states, the current phase and the phases in order, ' +
    "the context (branch, merge request, notes), open threads, and the actions queued so far with a person's decision (approved/dismissed, by whom, when). " +
    'A review is keyed by what it reviews: with merge_request, branch or workflow, returns the review of exactly that (the running one, else the latest, completed included), ' +
    "starting one from a definition in .agent-progress/reviews/ when it has none; never another merge request's review. Without them, the running review, else the latest. " +
    'new_run: true starts a new review. Then use set_phase, start_agent and complete_agent, with review_id when several reviews run.',
  shallowOutput: true,
  answer({ other_running: others, ...out }) {
    const next = out.next_agent ? ` Next agent: ${out.next_agent}.` : '';
    const what = [out.context.merge_request ? ` of merge request ${out.context.merge_request}` : '', out.context.branch ? ` on branch ${out.context.branch}` : ''].join('');
    const finished = isFinalPhase(out.phase) ? ` This review is ${out.phase}: the decisions above are final; call get_workflow with new_run: true to start another.` : '';
    const also = others.length > 0 ? ` Also running: ${others.join('; ')}. Pass review_id ${out.review_id} to the other tools.` : '';
    return toolSuccess(
      `${out.started ? 'Started' : 'Review'} ${out.review_id} (${out.workflow})${what}, phase ${out.phase}; agents in order: ${out.agents.map((a) => `${a.name} [${a.state}]`).join(', ')}.${next} ` +
        `${out.threads.length} open thread(s), ${out.actions.filter((a) => a.status === 'pending').length} action(s) awaiting a decision.${finished}${also}`,
      out,
    );
  },
});
