// search_events: deprecated (AgTrace specification v0.4.0, README "Tools"), kept so that older prompts keep working;
// search_event_previews plus get_event_details replace it.

import { searchEventsInput, searchEventsOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerSearchEvents(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'search_events',
    title: 'Search session events (deprecated)',
    description:
      'Deprecated: use search_event_previews to find events, then get_event_details for a full payload. ' +
      'Finds events whose content contains pattern; with include_full_payload each match also carries its payload, long texts cut to 2,000 characters.',
    input: searchEventsInput,
    output: searchEventsOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('search_events', deps.logger, async () => (await deps.traces()).searchEvents(args)),
  };
}
