// get_audit_log: A project's audit trail, newest first: who created, assigned, completed, failed, requeued what and when (TaskDriver specification, README "Tools").

import { auditLogInput, auditOutput } from '../../../core/queue/schemas';
import { READ_ONLY } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';

export const getAuditLog = queueTool('get_audit_log', READ_ONLY, auditLogInput, auditOutput, {
  description: "A project's audit trail, newest first; page with before.",
  async run(queue, args, { session }) {
    const out = await queue.getAuditLog(args, session);
    const lines = out.events.map((e) => `${e.at} ${e.actor} ${e.action}${e.taskId ? ` ${e.taskId}` : ''}`);
    return toolSuccess(lines.length ? lines.join('\n') : 'No events yet.', out);
  },
});
