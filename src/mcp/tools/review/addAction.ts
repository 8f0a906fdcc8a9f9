// add_action: queues an action (post a comment, open/reply to/resolve a thread) for a person to
// approve; nothing is posted anywhere by this tool.

import { addActionInput, addActionOutput } from '../../../core/review/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { reviewTool } from './deps';

export const addAction = reviewTool('addAction', APPENDS, addActionInput, addActionOutput, {
  title: 'Queue review action',
  description:
    'Queue an action on the review for a person to approve, edit or dismiss in VS Code: post_comment, open_thread (file + line; the thread appears at once on that line), ' +
    'reply_thread or resolve_thread (thread_id from get_threads). Nothing is posted by this call; approved actions are exported for CI to carry out. ' +
    "get_workflow shows each action's decision.",
  answer(out) {
    const a = out.action;
    const where = a.target.file ? ` on ${a.target.file}${a.target.line ? `:${a.target.line}` : ''}` : a.thread_id ? ` on thread ${a.thread_id}` : '';
    return toolSuccess(`Queued ${a.kind} ${a.action_id}${where}${a.kind === 'open_thread' ? ` (thread ${a.thread_id})` : ''}; it waits for a person's approval.`, out);
  },
});
