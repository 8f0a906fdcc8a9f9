// extend_lease: Add minutes to the lease of the task you hold, before it runs out (an expired task goes back to the queue) (TaskDriver specification, README "Tools").

import { extendLeaseInput, completeOutput } from '../../../core/queue/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerExtendLease(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'extend_lease',
    title: 'Extend lease',
    description: "Add minutes to your task's lease before it expires.",
    input: extendLeaseInput,
    output: completeOutput,
    annotations: APPENDS,
    async handler(args, ctx) {
      const task = await (await deps.queue()).extendLease(args, ctx.session);
      return toolSuccess(`Lease on task ${task.id} extended to ${task.leaseExpiresAt}.`, { task });
    },
  };
}
