// Short texts for the model about queue objects; the full objects go in structuredContent.

import type { Actor, QueueProject, Task, TaskAttempt } from '../../../core/queue/types';

/** Who an MCP client is, for the audit trail, when it is not an authenticated agent. */
export const MCP_OPERATOR: Actor = { kind: 'operator', name: 'mcp-client' };

export function countsLine(p: QueueProject): string {
  const s = p.stats;
  return `${s.queuedTasks} queued, ${s.runningTasks} running, ${s.completedTasks} completed, ${s.failedTasks} failed${s.cancelledTasks ? `, ${s.cancelledTasks} cancelled` : ''}`;
}

export function projectLine(p: QueueProject): string {
  return `${p.id}${p.status === 'closed' ? ' (closed)' : ''}: ${countsLine(p)}${p.description ? ` - ${p.description}` : ''}`;
}

export function taskLine(t: Task): string {
  const who = t.assignedTo && t.status === 'running' ? ` by ${t.assignedTo} until ${t.leaseExpiresAt}` : '';
  const retries = t.retryCount > 0 ? ` (retry ${t.retryCount}/${t.maxRetries})` : '';
  const first = t.instructions.split('\n')[0] ?? '';
  return `${t.id} [${t.status}${who}]${retries} ${first.length > 80 ? `${first.slice(0, 79)}…` : first}`;
}

export function attemptLine(a: TaskAttempt): string {
  const end = a.completedAt ? ` -> ${a.status} at ${a.completedAt}` : ` (running, lease until ${a.leaseExpiresAt})`;
  return `${a.agentName} from ${a.startedAt}${end}${a.failureReason ? ` [${a.failureReason}]` : ''}${a.explanation ? `: ${a.explanation}` : ''}`;
}

export function assignedText(t: Task, already: boolean): string {
  return (
    `${already ? 'You already hold' : 'You now hold'} task ${t.id}, lease until ${t.leaseExpiresAt} (extend_lease for more time).\n` +
    `Instructions:\n${t.instructions}\n` +
    `When done: complete_task (taskId ${t.id}, explanation); if it cannot be done: fail_task.`
  );
}
