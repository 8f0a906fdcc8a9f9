// Agent Progress: Clear API Key: removes the stored key; summaries then come from the editor's
// model or an extract.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { SetupDeps } from '../feature';

export function clearApiKey(deps: SetupDeps): CommandHandler {
  return async () => {
    const had = (await deps.apiKeys.get()) !== undefined;
    await deps.apiKeys.clear();
    void vscode.window.showInformationMessage(had ? 'Agent Progress: API key removed.' : 'Agent Progress: no API key was set.');
  };
}
