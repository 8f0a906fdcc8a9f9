// analyze_session: a session's health: failures, loops, token usage and a 0-100 score whose
// deductions the insights explain (AgTrace specification, README "Tools").

import { SCORING } from '../../../core/traces/analysis';
import { analyzeSessionInput, analyzeSessionOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerAnalyzeSession(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'analyze_session',
    title: 'Analyze an agent session',
    description:
      "Check one session's health: failed tool calls, loops (the same tool with the same arguments 4+ times in a row), where the tokens went, " +
      'and a 0-100 score. Each insight names its turn, severity and the points it cost: ' +
      `${SCORING.failedCall} per failed call (at most ${SCORING.failedCap}), ${SCORING.nonZeroExit} per unflagged non-zero exit (at most ${SCORING.nonZeroExitCap}), ` +
      `${SCORING.loop} per loop (at most ${SCORING.loopCap}), ${SCORING.heavyTurn} when one turn used over 60% of the tokens. About 2 KB. ` +
      "Then use get_session_details(detail_level='turns') or get_event_details on the events it names.",
    input: analyzeSessionInput,
    output: analyzeSessionOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('analyze_session', deps.logger, async () => (await deps.traces()).analyzeSession(args)),
  };
}
