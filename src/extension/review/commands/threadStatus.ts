// What Resolve Review Thread and Reopen Review Thread share: the thread from the comment UI or the
// Review view, its new status written to the ledger (agents see it through get_threads), the
// Review view reloaded.

import * as vscode from 'vscode';
import type { ThreadStatus } from '../../../core/review/types';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { showReviewError, threadIdOf } from './reviewArgs';

/** The command that sets the thread's status; `failure` prefixes an error that is not the ledger's. */
export function setThreadStatus(status: ThreadStatus, failure: string): (deps: ReviewDeps) => CommandHandler {
  return (deps) => async (arg?: unknown) => {
    const fromUi = arg && typeof arg === 'object' && 'uri' in arg ? deps.reviewComments.idOf(arg as vscode.CommentThread) : undefined;
    const id = fromUi ?? threadIdOf(arg);
    if (!id) {
      void vscode.window.showInformationMessage('Pick a review thread first.');
      return undefined;
    }
    try {
      const thread = await (await deps.host.review()).setThreadStatus(id, status, editorOperator());
      await deps.reviewModel.load();
      return thread.status;
    } catch (err) {
      showReviewError(deps.logger, failure, err);
      return undefined;
    }
  };
}
