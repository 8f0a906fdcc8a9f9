// get_context: one entry's summary, written once and cached (Agent Progress Tracker specification, README "Tools").

import { getContextInput, getContextOutput } from '../../../core/progress/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { RESPONSE_CEILING, toolSuccess } from '../../toolResult';
import type { ProgressToolDeps } from './deps';

export function registerGetContext(deps: ProgressToolDeps): ToolDefinition {
  return {
    name: 'get_context',
    title: 'Get entry context',
    description:
      'Get a short summary of one earlier log entry by id (ids come from search_logs or log_progress), and its full content if includeFull is true. ' +
      'Summaries are written once and cached. Use search_logs first to find the entries worth reading.',
    input: getContextInput,
    output: getContextOutput,
    annotations: { ...READ_ONLY, openWorldHint: true },
    // includeFull returns the whole entry (10,000 characters at most); the default stays small.
    responseBudget: RESPONSE_CEILING,
    async handler(args, ctx) {
      const service = await deps.progress();
      const out = await service.getContext(args, {
        summaryProviders: ctx.samplingProvider ? [ctx.samplingProvider] : [],
        signal: ctx.signal,
      });
      const text = out.content === undefined ? out.summary : `${out.summary}\n\n--- Full content ---\n${out.content}`;
      return toolSuccess(text, out);
    },
  };
}
