// get_task_history: Every attempt at a task: agent, times, outcome and failure reason (agent_reported, timeout, server_error) (TaskDriver specification, README "Tools").

import { taskInput, historyOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { attemptLine } from './format';

export function registerGetTaskHistory(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_task_history',
    title: 'Get task history',
    description: 'Every attempt at a task: agent, times, outcome, failure reason.',
    input: taskInput,
    output: historyOutput,
    annotations: READ_ONLY,
    more: '`agent-progress get-task-history ID --json` shows every attempt whole.',
    async handler(args, ctx) {
      const out = await (await deps.queue()).getTaskHistory(args, ctx.session);
      return toolSuccess(out.attempts.length ? out.attempts.map(attemptLine).join('\n') : `Task ${out.taskId} has not been attempted yet.`, out);
    },
  };
}
