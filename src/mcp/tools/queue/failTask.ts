// fail_task: Report that the task you hold failed (TaskDriver specification, README "Tools").

import { failTaskInput, failOutput } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerFailTask(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'fail_task',
    title: 'Fail task',
    description: 'Report your task failed; requeued, for another agent first, while retries remain unless canRetry is false.',
    input: failTaskInput,
    output: failOutput,
    annotations: APPENDS,
    async handler(args, ctx) {
      const out = await (await deps.queue()).failTask(args, ctx.session);
      const t = out.task;
      return toolSuccess(out.requeued ? `Task ${t.id} failed and was put back in the queue (retry ${t.retryCount} of ${t.maxRetries}).` : `Task ${t.id} failed for good.`, out);
    },
  };
}
