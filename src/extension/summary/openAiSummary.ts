// The OpenAI-compatible endpoint as the extension uses it: the key is read from SecretStorage at
// each call, so setting or clearing it takes effect at once; without a key it is skipped quietly.

import type { SummaryProvider } from '../../core/progress/summariser';
import type { Logger } from '../../core/log';
import type { ApiKeyStore } from '../apiKey';
import { loadCore } from '../core';
import { readSettings } from '../settings';

export function endpointProvider(apiKeys: ApiKeyStore, logger: Logger): SummaryProvider {
  let cached: { key: string; baseUrl: string; model: string; provider: SummaryProvider } | undefined;
  return {
    source: 'openai',
    label: 'the OpenAI-compatible endpoint',
    async summarise(request, signal) {
      const key = await apiKeys.get();
      if (!key) throw new (loadCore().ProviderUnavailable)('no API key is set (Agent Progress: Set API Key)');
      const settings = readSettings();
      const baseUrl = settings.summaryBaseUrl ?? 'https://api.openai.com/v1';
      const model = settings.summaryModel ?? 'gpt-4o-mini';
      if (!cached || cached.key !== key || cached.baseUrl !== baseUrl || cached.model !== model) {
        cached = { key, baseUrl, model, provider: loadCore().createOpenAiProvider({ apiKey: key, baseUrl, model }, logger)! };
      }
      return cached.provider.summarise(request, signal);
    },
  };
}
