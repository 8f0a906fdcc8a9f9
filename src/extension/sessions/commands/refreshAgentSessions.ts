// Agent Progress: Refresh Agent Sessions (Agent Sessions toolbar): rescans the transcript folders now.

import type { CommandHandler } from '../../feature';
import type { SessionsDeps } from '../feature';

export function refreshAgentSessions(deps: SessionsDeps): CommandHandler {
  return async () => {
    await deps.traces.poll();
    deps.agentSessions.refresh();
  };
}
