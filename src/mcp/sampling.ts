// Summaries by the connected client's own model through MCP sampling (sampling/createMessage), so
// a VS Code user needs no API key. Offered only when the client declared the capability.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { SummaryProvider } from '../core/progress/summariser';

export const SAMPLING_TIMEOUT_MS = 60_000;

export function samplingProvider(server: Server): SummaryProvider | undefined {
  if (!server.getClientCapabilities()?.sampling) return undefined;
  return {
    source: 'sampling',
    label: "MCP sampling (the client's model)",
    async summarise(request, signal) {
      const result = await server.createMessage(
        {
          systemPrompt: request.systemPrompt,
          messages: [{ role: 'user', content: { type: 'text', text: request.userPrompt } }],
          maxTokens: request.maxTokens,
          temperature: request.temperature,
          includeContext: 'none',
          modelPreferences: { costPriority: 0.8, speedPriority: 0.8, intelligencePriority: 0.2 },
        },
        { timeout: SAMPLING_TIMEOUT_MS, ...(signal ? { signal } : {}) },
      );
      const parts = Array.isArray(result.content) ? result.content : [result.content];
      return parts
        .map((p) => (p.type === 'text' ? p.text : ''))
        .join('')
        .trim();
    },
  };
}
