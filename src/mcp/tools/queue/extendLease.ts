// extend_lease: Add minutes to the lease of the task you hold, before it runs out (an expired task goes back to the queue) (TaskDriver specification, README "Tools").

import { extendLeaseInput, completeOutput } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const extendLease = queueTool('extend_lease', APPENDS, extendLeaseInput, completeOutput, {
  description: "Add minutes to your task's lease before it expires.",
  async run(queue, args, { session }) {
    const task = await queue.extendLease(args, session);
    return toolSuccess(`Lease on task ${task.id} extended to ${task.leaseExpiresAt}.`, { task });
  },
});
