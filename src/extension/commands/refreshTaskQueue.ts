// Agent Progress: Refresh (Task Queue toolbar): reaps expired leases and re-reads the queue now.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerRefreshTaskQueue(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.refreshTaskQueue, async () => {
    if (deps.host.opened) await (await deps.host.ledger()).refresh();
    try {
      await (await deps.host.queue()).reap();
    } catch (err) {
      deps.logger.warn(`Reaping expired leases failed: ${String(err)}`);
    }
    deps.taskQueue.refresh();
  });
}
