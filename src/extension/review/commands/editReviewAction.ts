// Agent Progress: Edit Action: a person changes the text of a queued action before deciding (the
// agent's text is kept as the original).

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { pickPendingAction, showReviewError } from './reviewArgs';

export function editReviewAction(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = await pickPendingAction(deps, arg, 'Edit Action');
    if (!id) return undefined;
    try {
      const service = await deps.host.review();
      const given = arg && typeof arg === 'object' ? (arg as { text?: unknown }).text : undefined;
      let text = typeof given === 'string' ? given : undefined;
      if (text === undefined) {
        const current = deps.reviewModel.states.flatMap((s) => s.actions).find((a) => a.id === id);
        text = await vscode.window.showInputBox({
          title: 'Edit Action',
          prompt: 'The text to post once approved',
          value: current?.text ?? '',
          validateInput: (v) => (v.trim() === '' ? 'The text cannot be empty; dismiss the action instead.' : undefined),
        });
      }
      if (text === undefined) return undefined;
      const action = await service.editAction(id, text, editorOperator());
      await deps.reviewModel.load();
      return action;
    } catch (err) {
      showReviewError(deps.logger, 'Could not edit the action', err);
      return undefined;
    }
  };
}
