// Agent Progress: Approve Action: a person approves an action an agent queued; who and when are
// recorded, and the agent reads the decision through get_workflow.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';
import { editorOperator } from '../review/reviewModel';
import { pickPendingAction, showReviewError } from './reviewArgs';

export function registerApproveReviewAction(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.approveReviewAction, async (arg?: unknown) => {
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
  });
}
