// Summarise (an entry's context menu): opens the entry and asks for its summary now.

import type { CommandHandler } from '../../feature';
import type { ProgressLogDeps } from '../feature';
import { entryRef } from '../entryRef';

export function summariseEntry(deps: ProgressLogDeps): CommandHandler {
  return async (arg: unknown) => {
    const ref = entryRef(arg);
    if (ref) await deps.entries.show(ref.id, ref.projectId, { summarise: true });
  };
}
