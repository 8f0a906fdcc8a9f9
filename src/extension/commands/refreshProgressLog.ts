// Agent Progress: Refresh (Progress Log toolbar): re-reads the ledger now.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerRefreshProgressLog(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.refreshProgressLog, async () => {
    if (deps.host.opened) await (await deps.host.ledger()).refresh();
    deps.progressLog.refresh();
  });
}
