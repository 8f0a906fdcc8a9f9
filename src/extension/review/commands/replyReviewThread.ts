// Agent Progress: Reply (comment UI): a person's reply on a review thread, written to the ledger.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import { CommandIds } from '../../commandIds';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { showReviewError } from './reviewArgs';

export function replyReviewThread(deps: ReviewDeps): CommandHandler {
  return async (reply?: vscode.CommentReply) => {
    if (!reply?.thread || typeof reply.text !== 'string' || reply.text.trim() === '') return;
    const id = deps.reviewComments.idOf(reply.thread);
    if (!id) {
      // A new thread the person just drew: start it instead.
      await vscode.commands.executeCommand(CommandIds.addReviewThread, reply);
      return;
    }
    try {
      await (await deps.host.review()).reply(id, reply.text, editorOperator());
      await deps.reviewModel.load();
    } catch (err) {
      showReviewError(deps.logger, 'Could not reply', err);
    }
  };
}
