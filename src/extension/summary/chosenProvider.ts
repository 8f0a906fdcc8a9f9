// A summary provider that serves only while agentProgress.summary.provider allows it ("auto", or
// its own kind), read at each call so that a settings change applies at once.

import type { SummaryProvider } from '../../core/progress/summariser';
import { loadCore } from '../core';
import { readSettings } from '../settings';

export function chosenProvider(provider: SummaryProvider, kind: 'editor' | 'endpoint'): SummaryProvider {
  return {
    source: provider.source,
    label: provider.label,
    summarise(request, signal) {
      const choice = readSettings().summaryProvider;
      if (choice !== 'auto' && choice !== kind) throw new (loadCore().ProviderUnavailable)(`agentProgress.summary.provider is "${choice}"`);
      return provider.summarise(request, signal);
    },
  };
}
