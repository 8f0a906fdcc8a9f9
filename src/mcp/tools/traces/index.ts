// The traces toolset (seed agtrace): agents' own session transcripts, disclosed progressively.
// Output schemas are listed to their top level (shallowOutput): the JSON each tool returns says the rest.

import type { ToolDefinition } from '../../toolRegistry';
import { registerAnalyzeSession } from './analyzeSession';
import type { TraceToolDeps } from './deps';
import { registerGetEventDetails } from './getEventDetails';
import { registerGetProjectInfo } from './getProjectInfo';
import { registerGetSessionDetails } from './getSessionDetails';
import { registerListSessions } from './listSessions';
import { registerSearchEventPreviews } from './searchEventPreviews';
import { registerSearchEvents } from './searchEvents';

export function tracesTools(deps: TraceToolDeps): ToolDefinition[] {
  return [
    registerListSessions(deps),
    registerGetProjectInfo(deps),
    registerGetSessionDetails(deps),
    registerAnalyzeSession(deps),
    registerSearchEventPreviews(deps),
    registerGetEventDetails(deps),
    registerSearchEvents(deps),
  ];
}
