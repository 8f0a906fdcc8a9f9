// Agent Progress: Refresh (Progress Log toolbar): re-reads the ledger now.

import type { CommandHandler } from '../../feature';
import type { ProgressLogDeps } from '../feature';

export function refreshProgressLog(deps: ProgressLogDeps): CommandHandler {
  return async () => {
    if (deps.host.opened) await (await deps.host.ledger()).refresh();
    deps.progressLog.refresh();
  };
}
