// Opens an entry in its webview (a Progress Log item's click, or another command).

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import { entryRef, type ExtensionDeps } from '../deps';

export function registerOpenEntry(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.openEntry, async (arg: unknown) => {
    const ref = entryRef(arg);
    if (!ref) return vscode.commands.executeCommand(CommandIds.openEntryById);
    await deps.entries.show(ref.id, ref.projectId);
  });
}
