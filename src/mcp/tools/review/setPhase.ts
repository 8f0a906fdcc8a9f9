// set_phase: moves the review's global phase forward (backwards only with force).

import { setPhaseInput, setPhaseOutput } from '../../../core/review/schemas';
import { IDEMPOTENT_WRITE, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { ReviewToolDeps } from './deps';

export function registerSetPhase(deps: ReviewToolDeps): ToolDefinition {
  return {
    name: 'set_phase',
    title: 'Set review phase',
    description:
      'Move the review to a phase: agents-running before the first agent, synthesizing while compiling the report, publishing while posting, then completed (or failed, with a note). ' +
      'Phases only move forward; a move backwards or out of completed/failed is refused unless force is true. The person watching sees it live.',
    input: setPhaseInput,
    output: setPhaseOutput,
    annotations: IDEMPOTENT_WRITE,
    async handler(args) {
      const out = await (await deps.review()).setPhase(args);
      const text =
        out.previous_phase === out.phase
          ? `Review ${out.review_id} is already in phase ${out.phase}.`
          : `Review ${out.review_id}: ${out.previous_phase} → ${out.phase}${out.forced ? ' (forced)' : ''}.`;
      return toolSuccess(text, out);
    },
  };
}
