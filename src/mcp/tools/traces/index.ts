// The traces toolset (AgTrace specification, README "Tools"): agents' own session transcripts, disclosed progressively.
// Output schemas are listed to their top level (shallowOutput): the JSON each tool returns says the rest.

import type { ToolDefinition } from '../../toolRegistry';
import type { ToolsetDescriptor } from '../../toolset';
import { RESPONSE_CEILING } from '../../toolResult';
import { registerAnalyzeSession } from './analyzeSession';
import type { TraceToolDeps } from './deps';
import { registerGetEventDetails } from './getEventDetails';
import { registerGetProjectInfo } from './getProjectInfo';
import { registerGetSessionDetails } from './getSessionDetails';
import { registerListSessions } from './listSessions';
import { registerSearchEventPreviews } from './searchEventPreviews';
import { registerSearchEvents } from './searchEvents';

export function tracesTools(deps: TraceToolDeps): ToolDefinition[] {
  // These tools fill their pages to their own budgets (BUDGETS in traceService: under 30 KB by
  // default, up to the 100 KB ceiling for the levels asked for) and page with cursors.
  const tools = [
    registerListSessions(deps),
    registerGetProjectInfo(deps),
    registerGetSessionDetails(deps),
    registerAnalyzeSession(deps),
    registerSearchEventPreviews(deps),
    registerGetEventDetails(deps),
    registerSearchEvents(deps),
  ];
  return tools.map((t) => ({ ...t, shallowOutput: true, responseBudget: RESPONSE_CEILING }));
}

/**
 * The traces toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const tracesToolset: ToolsetDescriptor = {
  tools: (services) => tracesTools({ traces: () => services.traces(), logger: services.logger }),
  instructions: () =>
    'Agent sessions: list_sessions and search_event_previews find what agents did in their own transcripts on this ' +
    'machine; get_session_details and analyze_session explain one session, get_event_details shows one event whole.',
  prompts: [],
  resources: [],
};
