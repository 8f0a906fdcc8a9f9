// Agent Progress: Reopen Review Thread: from the comment UI or the Review view; written to the
// ledger, so agents see it through get_threads.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { showReviewError, threadIdOf } from './reviewArgs';

export function reopenReviewThread(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const fromUi = arg && typeof arg === 'object' && 'uri' in arg ? deps.reviewComments.idOf(arg as vscode.CommentThread) : undefined;
    const id = fromUi ?? threadIdOf(arg);
    if (!id) {
      void vscode.window.showInformationMessage('Pick a review thread first.');
      return undefined;
    }
    try {
      const thread = await (await deps.host.review()).setThreadStatus(id, 'open', editorOperator());
      await deps.reviewModel.load();
      return thread.status;
    } catch (err) {
      showReviewError(deps.logger, 'Could not reopen the thread', err);
      return undefined;
    }
  };
}
