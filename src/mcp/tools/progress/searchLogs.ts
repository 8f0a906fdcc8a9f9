// search_logs: find entries by title, tags, dates or full text; `query` matches titles only, never content.

import { searchLogsInput, searchLogsOutput } from '../../../core/progress/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { RESPONSE_CEILING, toolSuccess } from '../../toolResult';
import type { ProgressToolDeps } from './deps';

export function registerSearchLogs(deps: ProgressToolDeps): ToolDefinition {
  return {
    name: 'search_logs',
    title: 'Search progress logs',
    description:
      "Find entries in a project's progress log, newest first. Filter by words in the title (query), tags (entries must have all), " +
      'and a date range; or search titles and content with text (ranked by relevance). Returns ids, titles, dates and tags, never content: ' +
      "call get_context for an entry's summary. Call this at the start of a task to see what other agents did.",
    input: searchLogsInput,
    output: searchLogsOutput,
    annotations: READ_ONLY,
    // Up to 100 listings when asked; the default 20 stay under 30 KB.
    responseBudget: RESPONSE_CEILING,
    async handler(args) {
      const service = await deps.progress();
      const { entries, total } = await service.searchLogs(args);
      const a = (args ?? {}) as { projectId?: string; query?: string; text?: string };
      const what = a.text ? ` for '${a.text}'` : a.query ? ` matching '${a.query}'` : '';
      let text: string;
      if (total === 0) {
        text = `No entries${what} in ${a.projectId}.`;
      } else {
        const lines = entries.map((e, i) => `${i + 1}. ${e.id} - ${e.title} (${e.createdAt.slice(0, 10)})`);
        const more = total > entries.length ? `\n(showing ${entries.length} of ${total}; narrow with tags or dates, or raise limit up to 100)` : '';
        text = `Found ${total} ${total === 1 ? 'entry' : 'entries'}${what} in ${a.projectId}:\n${lines.join('\n')}${more}`;
      }
      return toolSuccess(text, { entries, total });
    },
  };
}
