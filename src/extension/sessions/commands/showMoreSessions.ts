// Show more (Agent Sessions): the next page of a project's sessions.

import type { CommandHandler } from '../../feature';
import type { SessionsDeps } from '../feature';

export function showMoreSessions(deps: SessionsDeps): CommandHandler {
  return (key: unknown) => {
    if (typeof key === 'string') deps.agentSessions.showMore(key);
  };
}
