// get_threads: the review's threads (open by default) with their comments.

import { getThreadsInput, getThreadsOutput } from '../../../core/review/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { ReviewToolDeps } from './deps';

export function registerGetThreads(deps: ReviewToolDeps): ToolDefinition {
  return {
    name: 'get_threads',
    title: 'Get review threads',
    description:
      "List the review's threads, open ones by default, each with its file, line, status and comments (from agents and people in VS Code). " +
      'Use the thread_id with add_action to reply to or resolve one. Filter by file or status (open, resolved, all).',
    input: getThreadsInput,
    output: getThreadsOutput,
    shallowOutput: true,
    annotations: READ_ONLY,
    async handler(args) {
      const out = await (await deps.review()).getThreads(args);
      return toolSuccess(`${out.threads.length} thread(s) in review ${out.review_id}.`, out);
    },
  };
}
