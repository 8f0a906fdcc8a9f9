// get_task_history: Every attempt at a task: agent, times, outcome and failure reason (agent_reported, timeout, server_error) (TaskDriver specification, README "Tools").

import { taskInput, historyOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { attemptLine } from './format';

export const getTaskHistory = queueTool('get_task_history', READ_ONLY, taskInput, historyOutput, {
  description: 'Every attempt at a task: agent, times, outcome, failure reason.',
  more: '`agent-progress get-task-history ID --json` shows every attempt whole.',
  async run(queue, args, { session }) {
    const out = await queue.getTaskHistory(args, session);
    return toolSuccess(out.attempts.length ? out.attempts.map(attemptLine).join('\n') : `Task ${out.taskId} has not been attempted yet.`, out);
  },
});
