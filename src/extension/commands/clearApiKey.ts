// Agent Progress: Clear API Key: removes the stored key; summaries then come from the editor's
// model or an extract.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerClearApiKey(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.clearApiKey, async () => {
    const had = (await deps.apiKeys.get()) !== undefined;
    await deps.apiKeys.clear();
    void vscode.window.showInformationMessage(had ? 'Agent Progress: API key removed.' : 'Agent Progress: no API key was set.');
  });
}
