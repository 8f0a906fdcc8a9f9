// Summarise (an entry's context menu): opens the entry and asks for its summary now.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import { entryRef, type ExtensionDeps } from '../deps';

export function registerSummariseEntry(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.summariseEntry, async (arg: unknown) => {
    const ref = entryRef(arg);
    if (ref) await deps.entries.show(ref.id, ref.projectId, { summarise: true });
  });
}
