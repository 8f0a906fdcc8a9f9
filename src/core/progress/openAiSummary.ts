// The OpenAI-compatible summary provider (README "Configuration"), through the openai package, loaded only when
// a summary is first needed so that server start-up stays fast. The key goes to the client only.

import type * as OpenAiModule from 'openai';
import type { OpenAiConfig } from '../config';
import { loadVendored } from '../vendor';
import type { Logger } from '../log';
import type { SummaryProvider, SummaryRequest } from './summariser';

export const OPENAI_TIMEOUT_MS = 30_000;

export function createOpenAiProvider(config: OpenAiConfig, logger: Logger): SummaryProvider | undefined {
  const apiKey = config.apiKey;
  if (!apiKey) return undefined;
  logger.addSecret(apiKey);
  let host = config.baseUrl;
  try {
    host = new URL(config.baseUrl).host;
  } catch {
    // validated by loadConfig; keep the raw text for the label
  }
  type Client = { chat: { completions: { create(body: object, options: object): Promise<{ choices: { message?: { content?: string | null } }[] }> } } };
  let client: Client | undefined;
  return {
    source: 'openai',
    label: `the OpenAI-compatible endpoint ${host} (model ${config.model})`,
    async summarise(request: SummaryRequest, signal?: AbortSignal): Promise<string> {
      if (!client) {
        const { OpenAI } = loadVendored<typeof OpenAiModule>('openai');
        client = new OpenAI({ apiKey, baseURL: config.baseUrl, maxRetries: 1, timeout: OPENAI_TIMEOUT_MS }) as unknown as Client;
      }
      const response = await client.chat.completions.create(
        {
          model: config.model,
          messages: [
            { role: 'system', content: request.systemPrompt },
            { role: 'user', content: request.userPrompt },
          ],
          max_tokens: request.maxTokens,
          temperature: request.temperature,
        },
        signal ? { signal } : {},
      );
      return response.choices[0]?.message?.content ?? '';
    },
  };
}
