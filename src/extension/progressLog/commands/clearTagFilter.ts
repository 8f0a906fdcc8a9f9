// Clear Tag Filter (Progress Log toolbar, while filtered): shows every entry again.

import type { CommandHandler } from '../../feature';
import type { ProgressLogDeps } from '../feature';

export function clearTagFilter(deps: ProgressLogDeps): CommandHandler {
  return async () => {
    deps.progressLogView.description = undefined;
    await deps.progressLog.setTagFilter(undefined);
  };
}
