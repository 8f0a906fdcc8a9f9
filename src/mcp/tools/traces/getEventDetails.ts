// get_event_details: one event's full payload by session and index (AgTrace specification, README "Tools"), secrets
// redacted; a payload larger than one response comes in parts through next_cursor.

import { getEventDetailsInput, getEventDetailsOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerGetEventDetails(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'get_event_details',
    title: 'Get one session event',
    description:
      "Retrieve one event of a session in full: a tool call's arguments, a tool result's whole output (the exact error message), a message or prompt. " +
      'session_id and event_index come from search_event_previews or get_session_details. Usually 1-5 KB; an output too large for one response ' +
      'comes cut, with next_cursor to read the rest in parts. Secrets are redacted.',
    input: getEventDetailsInput,
    output: getEventDetailsOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('get_event_details', deps.logger, async () => (await deps.traces()).getEventDetails(args)),
  };
}
