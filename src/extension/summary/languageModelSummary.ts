// Summaries by the editor's own language model (the VS Code Language Model API, e.g. Copilot), the
// extension's counterpart of MCP sampling: no API key needed. Unavailable when no model is.

import * as vscode from 'vscode';
import type { SummaryProvider } from '../../core/progress/summariser';
import { loadCore } from '../core';

const CHEAP = /mini|haiku|flash|small|lite/i;

export function languageModelProvider(): SummaryProvider {
  return {
    source: 'language-model',
    label: "the editor's language model",
    async summarise(request, signal) {
      const { ProviderUnavailable } = loadCore();
      if (typeof vscode.lm?.selectChatModels !== 'function') throw new ProviderUnavailable('this editor has no language model API');
      const models = await vscode.lm.selectChatModels();
      if (models.length === 0) throw new ProviderUnavailable('no chat model is available');
      const model = models.find((m) => CHEAP.test(m.family) || CHEAP.test(m.name)) ?? models[0]!;
      const cancel = new vscode.CancellationTokenSource();
      signal?.addEventListener('abort', () => cancel.cancel());
      try {
        const response = await model.sendRequest(
          [vscode.LanguageModelChatMessage.User(`${request.systemPrompt}\n\n${request.userPrompt}`)],
          { justification: 'Agent Progress summarises a log entry once and caches the summary for every agent.' },
          cancel.token,
        );
        let text = '';
        for await (const chunk of response.text) text += chunk;
        return text;
      } finally {
        cancel.dispose();
      }
    },
  };
}
