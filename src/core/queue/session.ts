// One connection's queue session (the project it joined, the agent it is), apart from the queue
// service so that a server creates its session at start without evaluating the service and its
// zod schemas (ARCHITECTURE.md, "Bundles and the start path").

import { nanoid } from 'nanoid';

/** What one client connection is: the project it joined and the agent it authenticated as. */
export interface QueueSession {
  id: string;
  projectId: string | undefined;
  agent: { projectId: string; name: string } | undefined;
  /** Saved in the ledger so that it survives a server restart (HTTP sessions). */
  persistent: boolean;
  createdAt: string;
}

export function newQueueSession(options: { id?: string; persistent?: boolean; at?: string } = {}): QueueSession {
  return { id: options.id ?? nanoid(21), projectId: undefined, agent: undefined, persistent: options.persistent ?? false, createdAt: options.at ?? new Date().toISOString() };
}
