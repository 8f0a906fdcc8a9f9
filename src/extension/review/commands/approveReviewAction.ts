// Agent Progress: Approve Action: a person approves an action an agent queued; who and when are
// recorded, and the agent reads the decision through get_workflow.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { pickPendingAction, showReviewError } from './reviewArgs';

export function approveReviewAction(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = await pickPendingAction(deps, arg, 'Approve Action');
    if (!id) return undefined;
    try {
      const action = await (await deps.host.review()).decideAction(id, 'approve', editorOperator());
      await deps.reviewModel.load();
      void vscode.window.setStatusBarMessage(`Action ${id} approved`, 3000);
      return action;
    } catch (err) {
      showReviewError(deps.logger, 'Could not approve the action', err);
      return undefined;
    }
  };
}
