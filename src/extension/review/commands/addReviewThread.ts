// Agent Progress: Start Review Thread: a person starts a thread on a line, from the comment UI
// (the + in the gutter) or the palette (at the cursor); it is written to the ledger, where agents
// read it with get_threads.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { currentRunId, showReviewError } from './reviewArgs';

export function addReviewThread(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const reply = arg as vscode.CommentReply | undefined;
    let uri: vscode.Uri | undefined;
    let line: number | undefined;
    let endLine: number | undefined;
    let text: string | undefined;
    if (reply && typeof reply === 'object' && 'thread' in reply && 'text' in reply) {
      uri = reply.thread.uri;
      line = (reply.thread.range?.start.line ?? 0) + 1;
      endLine = (reply.thread.range?.end.line ?? 0) + 1;
      text = reply.text;
    } else {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showInformationMessage('Open a file and put the cursor on the line to comment on.');
        return undefined;
      }
      uri = editor.document.uri;
      line = editor.selection.start.line + 1;
      endLine = editor.selection.end.line + 1;
      text = await vscode.window.showInputBox({ title: 'Start Review Thread', prompt: `Comment on line ${line}` });
    }
    if (!text || text.trim() === '') return undefined;
    const file = deps.reviewComments.relative(uri);
    if (!file) {
      void vscode.window.showWarningMessage('Review threads can only be on files inside the workspace folder.');
      return undefined;
    }
    try {
      const runId = await currentRunId(deps);
      if (!runId) {
        void vscode.window.showWarningMessage('There is no review yet: start one (Agent Progress: Start Review) before commenting.');
        return undefined;
      }
      const thread = await (await deps.host.review()).openThread(runId, file, line, text, editorOperator(), endLine);
      // The draft the comment UI made is replaced by the ledger's thread.
      if (reply && 'thread' in reply) reply.thread.dispose();
      await deps.reviewModel.load();
      return thread.id;
    } catch (err) {
      showReviewError(deps.logger, 'Could not start the thread', err);
      return undefined;
    }
  };
}
