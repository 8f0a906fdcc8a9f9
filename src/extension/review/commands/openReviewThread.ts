// Agent Progress: Open Review Thread: opens the file of a thread at its line, with the comment
// thread expanded.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { showReviewError, threadIdOf } from './reviewArgs';

export function openReviewThread(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = threadIdOf(arg);
    if (!id) {
      void vscode.window.showInformationMessage('Pick a thread in the Review view to open it.');
      return;
    }
    try {
      const shown = deps.reviewComments.threadFor(id);
      if (!shown) {
        void vscode.window.showInformationMessage('This thread is not on a line of a file in this workspace (or belongs to an earlier review).');
        return;
      }
      shown.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
      const editor = await vscode.window.showTextDocument(shown.uri, { preview: true });
      if (shown.range) {
        editor.selection = new vscode.Selection(shown.range.start, shown.range.start);
        editor.revealRange(shown.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    } catch (err) {
      showReviewError(deps.logger, 'Could not open the thread', err);
    }
  };
}
