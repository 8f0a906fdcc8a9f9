// fail_task: Report that the task you hold failed (TaskDriver specification, README "Tools").

import { failTaskInput, failOutput } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const failTask = queueTool('fail_task', APPENDS, failTaskInput, failOutput, {
  description: 'Report your task failed; requeued, for another agent first, while retries remain unless canRetry is false.',
  async run(queue, args, { session }) {
    const out = await queue.failTask(args, session);
    const t = out.task;
    return toolSuccess(out.requeued ? `Task ${t.id} failed and was put back in the queue (retry ${t.retryCount} of ${t.maxRetries}).` : `Task ${t.id} failed for good.`, out);
  },
});
