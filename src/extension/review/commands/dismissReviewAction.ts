// Agent Progress: Dismiss Action: a person dismisses an action an agent queued, with an optional
// note the agent can read.

import { givenOrAsk } from '../../ask';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { decideAction, pickPendingAction } from './reviewArgs';

export function dismissReviewAction(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = await pickPendingAction(deps, arg, 'Dismiss Action');
    if (!id) return undefined;
    const given = arg && typeof arg === 'object' ? (arg as { note?: unknown }).note : undefined;
    const note = await givenOrAsk(given, { title: 'Dismiss Action', prompt: 'Why (optional; the agent can read it)' });
    if (note === undefined) return undefined;
    return decideAction(deps, id, 'dismiss', note);
  };
}
