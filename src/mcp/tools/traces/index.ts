// The traces toolset (seed agtrace): agents' own session transcripts, disclosed progressively.
// Output schemas are listed to their top level (shallowOutput): the JSON each tool returns says the rest.

import type { ToolDefinition } from '../../toolRegistry';
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
  return tools.map((t) => ({ ...t, responseBudget: RESPONSE_CEILING }));
}
