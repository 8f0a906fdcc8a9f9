// Agent Progress: Set API Key: stores the key of an OpenAI-compatible endpoint in SecretStorage.
// The MCP servers get it when VS Code next starts them; it is never shown again.

import * as vscode from 'vscode';
import { givenOrAsk } from '../../ask';
import type { CommandHandler } from '../../feature';
import type { SetupDeps } from '../feature';

export function setApiKey(deps: SetupDeps): CommandHandler {
  return async (given?: unknown) => {
    const key = await givenOrAsk(given, {
      title: 'Agent Progress: API key for summaries',
      prompt: "Key of an OpenAI-compatible endpoint, used for summaries when no editor model can write them. Stored in VS Code's secret storage.",
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim().length < 8 ? 'That is too short to be an API key' : undefined),
    });
    if (key === undefined || key.trim() === '') return;
    deps.logger.addSecret(key);
    await deps.apiKeys.set(key);
    void vscode.window.showInformationMessage('Agent Progress: API key saved. MCP servers started from now on use it.');
  };
}
