// "Show more" under a project in the Progress Log: loads the next page of entries.

import type { CommandHandler } from '../../feature';
import type { ProgressLogDeps } from '../feature';

export function showMoreEntries(deps: ProgressLogDeps): CommandHandler {
  return (projectId: unknown) => {
    if (typeof projectId === 'string') deps.progressLog.showMore(projectId);
  };
}
