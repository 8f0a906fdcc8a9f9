// The queue's refusals of a session that acts as an agent, worded once: each store checks them
// inside the transaction of the operation the agent asked for (queueRepo.ts heldBy), so that a
// call makes one trip to the ledger and a refusal changes nothing.

import { LedgerError, notFound } from '../errors';

/** The agent this session registered as was removed from the ledger since. */
export function agentGone(projectId: string, agentName: string): LedgerError {
  return notFound(`Agent ${agentName} no longer exists in project ${projectId}; register again.`, { projectId, agentName });
}

/** Another session took the agent over (register_agent with its apiKey). */
export function agentTakenOver(projectId: string, agentName: string): LedgerError {
  return new LedgerError('permission_denied', `Agent ${agentName} is now connected from another session; pass its apiKey to take it back here, or register another agent.`, {
    details: { projectId, agentName },
  });
}
