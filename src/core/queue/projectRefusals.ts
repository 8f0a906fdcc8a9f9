// The queue's refusals about a project, worded once: the service checks them first, and each
// store again inside the transaction that would add to the project (a close may come between).

import { LedgerError, notFound } from '../errors';

/** A project that does not exist: never created on the side by a task, a type or an agent. */
export function projectNotFound(projectId: string): LedgerError {
  return notFound(`Project not found: ${projectId}. Use list_projects to see the projects, or create_project to make it.`, { projectId });
}

/** A closed project takes nothing new; what runs in it may finish. */
export function projectClosed(projectId: string, what: 'tasks' | 'task types' | 'agents'): LedgerError {
  return new LedgerError('conflict', `Project ${projectId} is closed: it takes no new ${what}. Its running tasks can still finish; create another project for new work.`, {
    details: { projectId, status: 'closed' },
  });
}
