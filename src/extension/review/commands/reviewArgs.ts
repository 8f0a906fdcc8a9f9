// What review commands share: the current run, picking a pending action, showing an error.

import * as vscode from 'vscode';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';
import type { ReviewAction } from '../../../core/review/types';
import type { ReviewDeps } from '../feature';
import { actionIdOf } from '../reviewItems';
import { editorOperator } from '../reviewModel';

export { actionIdOf, threadIdOf } from '../reviewItems';

/** Shows a ledger error as it is (it says what to do), anything else with a prefix; logs both. */
export function showReviewError(logger: Logger, what: string, err: unknown): void {
  const message = isLedgerError(err) ? err.message : `${what}: ${err instanceof Error ? err.message : String(err)}`;
  logger.warn(message);
  void vscode.window.showErrorMessage(message);
}

/** The action given, or one the person picks among the current run's pending actions. */
export async function pickPendingAction(deps: ReviewDeps, arg: unknown, title: string): Promise<string | undefined> {
  const given = actionIdOf(arg);
  if (given) return given;
  try {
    await deps.reviewModel.load();
  } catch (err) {
    showReviewError(deps.logger, 'Could not read the review actions', err);
    return undefined;
  }
  const pending: ReviewAction[] = deps.reviewModel.states.flatMap((s) => s.actions.filter((a) => a.status === 'pending'));
  if (pending.length === 0) {
    void vscode.window.showInformationMessage('No review action is waiting for a decision.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    pending.map((a) => ({
      label: `${a.kind}: ${a.text.split('\n')[0]!.slice(0, 80)}`,
      description: [a.target.file, a.createdBy].filter(Boolean).join(' · '),
      detail: a.text.length > 80 ? a.text.slice(0, 300) : undefined,
      id: a.id,
    })),
    { title, placeHolder: 'Action awaiting a decision' },
  );
  return picked?.id;
}

/** The id of the run the person is looking at: the latest still running, else the latest. */
export async function currentRunId(deps: ReviewDeps): Promise<string | undefined> {
  if (!deps.reviewModel.loaded) await deps.reviewModel.load();
  return deps.reviewModel.active?.run.id;
}

/**
 * Records the person's decision on an action (the agent reads it through get_workflow), reloads the
 * Review view and says so in the status bar; the action, or undefined after showing the error.
 */
export async function decideAction(deps: ReviewDeps, id: string, decision: 'approve' | 'dismiss', note?: string): Promise<ReviewAction | undefined> {
  try {
    const action = await (await deps.host.review()).decideAction(id, decision, editorOperator(), note);
    await deps.reviewModel.load();
    void vscode.window.setStatusBarMessage(`Action ${id} ${decision === 'approve' ? 'approved' : 'dismissed'}`, 3000);
    return action;
  } catch (err) {
    showReviewError(deps.logger, `Could not ${decision} the action`, err);
    return undefined;
  }
}
