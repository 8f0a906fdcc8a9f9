// Agent Progress: Dismiss Action: a person dismisses an action an agent queued, with an optional
// note the agent can read.

import * as vscode from 'vscode';
import { givenOrAsk } from '../../ask';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { pickPendingAction, showReviewError } from './reviewArgs';

export function dismissReviewAction(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = await pickPendingAction(deps, arg, 'Dismiss Action');
    if (!id) return undefined;
    const given = arg && typeof arg === 'object' ? (arg as { note?: unknown }).note : undefined;
    const note = await givenOrAsk(given, { title: 'Dismiss Action', prompt: 'Why (optional; the agent can read it)' });
    if (note === undefined) return undefined;
    try {
      const action = await (await deps.host.review()).decideAction(id, 'dismiss', editorOperator(), note);
      await deps.reviewModel.load();
      void vscode.window.setStatusBarMessage(`Action ${id} dismissed`, 3000);
      return action;
    } catch (err) {
      showReviewError(deps.logger, 'Could not dismiss the action', err);
      return undefined;
    }
  };
}
