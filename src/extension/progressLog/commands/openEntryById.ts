// Agent Progress: Open Entry by ID: asks for an id (as agents quote them) and opens the entry.

import { givenOrAsk } from '../../ask';
import type { CommandHandler } from '../../feature';
import type { ProgressLogDeps } from '../feature';

export function openEntryById(deps: ProgressLogDeps): CommandHandler {
  return async (given?: unknown) => {
    const id = await givenOrAsk(given, {
      title: 'Open Entry by ID',
      prompt: 'The 12-character id of a progress log entry, as log_progress and search_logs report it',
      placeHolder: 'x7k9m2p4q1w3',
      validateInput: (v) => (v.trim() === '' ? 'Type an entry id' : v.trim().length > 100 ? 'Entry ids are 12 characters' : undefined),
    });
    if (id === undefined || id.trim() === '') return;
    await deps.entries.show(id.trim().replace(/^ID:\s*/i, ''));
  };
}
