// Agent Progress: Refresh Agent Sessions (Agent Sessions toolbar): rescans the transcript folders now.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerRefreshAgentSessions(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.refreshAgentSessions, async () => {
    await deps.traces.poll();
    deps.agentSessions.refresh();
  });
}
