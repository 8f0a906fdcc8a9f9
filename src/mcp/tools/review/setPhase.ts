// set_phase: moves the review's global phase forward (backwards only with force).

import { setPhaseInput, setPhaseOutput } from '../../../core/review/schemas';
import { IDEMPOTENT_WRITE } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { reviewTool } from './deps';

export const setPhase = reviewTool('setPhase', IDEMPOTENT_WRITE, setPhaseInput, setPhaseOutput, {
  title: 'Set review phase',
  description:
    'Move the review to a phase: agents-running before the first agent, synthesizing while compiling the report, publishing while posting, then completed (or failed, with a note). ' +
    'Phases only move forward; a move backwards or out of completed/failed is refused unless force is true. The person watching sees it live.',
  answer(out) {
    const text =
      out.previous_phase === out.phase
        ? `Review ${out.review_id} is already in phase ${out.phase}.`
        : `Review ${out.review_id}: ${out.previous_phase} → ${out.phase}${out.forced ? ' (forced)' : ''}.`;
    return toolSuccess(text, out);
  },
});
