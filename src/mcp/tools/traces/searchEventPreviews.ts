// search_event_previews: find events across sessions by text, as short typed previews with the
// event_index that get_event_details takes (AgTrace specification, README "Tools").

import { searchEventPreviewsInput, searchEventPreviewsOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerSearchEventPreviews(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'search_event_previews',
    title: 'Search agent session events',
    description:
      'Find events in agent sessions whose content contains a text (case-insensitive): tool calls with their arguments, tool results, messages, prompts, reasoning. ' +
      'Returns ~300-character previews typed by event (ToolCall: tool and arguments; ToolResult: output and error flag; text events: text), newest sessions first, ' +
      'with session_id and event_index; narrow with session_id, provider or event_type; pages with next_cursor. ' +
      'Then get_event_details(session_id, event_index) for the full payload.',
    input: searchEventPreviewsInput,
    output: searchEventPreviewsOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('search_event_previews', deps.logger, async () => (await deps.traces()).searchEventPreviews(args)),
  };
}
