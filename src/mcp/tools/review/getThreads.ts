// get_threads: the review's threads (open by default) with their comments.

import { getThreadsInput, getThreadsOutput } from '../../../core/review/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { reviewTool } from './deps';

export const getThreads = reviewTool('getThreads', READ_ONLY, getThreadsInput, getThreadsOutput, {
  title: 'Get review threads',
  description:
    "List the review's threads, open ones by default, each with its file, line, status and comments (from agents and people in VS Code). " +
    'Use the thread_id with add_action to reply to or resolve one. Filter by file or status (open, resolved, all).',
  shallowOutput: true,
  answer: (out) => toolSuccess(`${out.threads.length} thread(s) in review ${out.review_id}.`, out),
});
