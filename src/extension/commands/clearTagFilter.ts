// Clear Tag Filter (Progress Log toolbar, while filtered): shows every entry again.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerClearTagFilter(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.clearTagFilter, async () => {
    deps.progressLogView.description = undefined;
    await deps.progressLog.setTagFilter(undefined);
  });
}
