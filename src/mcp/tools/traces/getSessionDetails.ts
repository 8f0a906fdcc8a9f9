// get_session_details: one session at the level of detail asked for, summary to full payloads,
// every page under the size cap (AgTrace specification, README "Tools").

import { getSessionDetailsInput, getSessionDetailsOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerGetSessionDetails(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'get_session_details',
    title: 'Get agent session details',
    description:
      'Read one agent session, from a quick overview down to full payloads: detail_level summary (stats, sub-agents, one line per turn), ' +
      "turns (each step's tool calls, outcome, key actions), steps (messages, reasoning, tool calls and results cut to 500 characters) or full (uncut). " +
      'Start with summary and go deeper only where needed. Responses stay under 100 KB: large sessions page with next_cursor, and the hint gives the size. ' +
      'Secrets are redacted. For one event use get_event_details; to find events use search_event_previews.',
    input: getSessionDetailsInput,
    output: getSessionDetailsOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('get_session_details', deps.logger, async () => (await deps.traces()).getSessionDetails(args)),
  };
}
