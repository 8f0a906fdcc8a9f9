// Agent Progress: Refresh (Task Queue toolbar): reaps expired leases and re-reads the queue now.

import type { CommandHandler } from '../../feature';
import type { QueueDeps } from '../feature';

export function refreshTaskQueue(deps: QueueDeps): CommandHandler {
  return async () => {
    if (deps.host.opened) await (await deps.host.ledger()).refresh();
    try {
      await (await deps.host.queue()).reap();
    } catch (err) {
      deps.logger.warn(`Reaping expired leases failed: ${String(err)}`);
    }
    deps.taskQueue.refresh();
  };
}
