// get_audit_log: A project's audit trail, newest first: who created, assigned, completed, failed, requeued what and when (TaskDriver specification, README "Tools").

import { auditLogInput, auditOutput } from '../../../core/queue/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';

export function registerGetAuditLog(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'get_audit_log',
    title: 'Get audit log',
    description: "A project's audit trail, newest first; page with before.",
    input: auditLogInput,
    output: auditOutput,
    annotations: READ_ONLY,
    async handler(args, ctx) {
      const out = await (await deps.queue()).getAuditLog(args, ctx.session);
      const lines = out.events.map((e) => `${e.at} ${e.actor} ${e.action}${e.taskId ? ` ${e.taskId}` : ''}`);
      return toolSuccess(lines.length ? lines.join('\n') : 'No events yet.', out);
    },
  };
}
