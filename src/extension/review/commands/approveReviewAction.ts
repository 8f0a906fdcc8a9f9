// Agent Progress: Approve Action: a person approves an action an agent queued; who and when are
// recorded, and the agent reads the decision through get_workflow.

import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { decideAction, pickPendingAction } from './reviewArgs';

export function approveReviewAction(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = await pickPendingAction(deps, arg, 'Approve Action');
    return id ? decideAction(deps, id, 'approve') : undefined;
  };
}
