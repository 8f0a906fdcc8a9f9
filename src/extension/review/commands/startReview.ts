// Agent Progress: Start Review: starts a review run from a definition in .agent-progress/reviews/
// (picked, or given as {workflow, branch, merge_request, notes}); agents then find it with
// get_workflow.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { editorOperator } from '../reviewModel';
import { showReviewError } from './reviewArgs';

interface StartArgs {
  workflow?: string;
  branch?: string;
  merge_request?: string;
  notes?: string;
}

export function startReview(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown): Promise<string | undefined> => {
    try {
      const service = await deps.host.review();
      const given = (arg && typeof arg === 'object' ? arg : {}) as StartArgs;
      let workflow = typeof given.workflow === 'string' ? given.workflow : undefined;
      if (workflow === undefined) {
        const listing = service.definitions();
        for (const e of listing.errors) deps.logger.warn(`Review definition refused: ${e.message}`);
        if (listing.definitions.length === 0) {
          const more = listing.errors.length ? ` ${listing.errors[0]!.message}` : ' Create .agent-progress/reviews/default.yaml with an "agents" list (see the README).';
          void vscode.window.showWarningMessage(`No usable review definition in this workspace.${more}`);
          return undefined;
        }
        const picked =
          listing.definitions.length === 1
            ? listing.definitions[0]
            : (
                await vscode.window.showQuickPick(
                  listing.definitions.map((d) => ({ label: d.name, description: d.title ?? '', detail: d.agents.map((a) => a.name).join(' → '), definition: d })),
                  { title: 'Start Review', placeHolder: 'Review definition' },
                )
              )?.definition;
        if (!picked) return undefined;
        workflow = picked.name;
      }
      const run = await service.startRun({
        workflow,
        context: {
          ...(typeof given.branch === 'string' ? { branch: given.branch } : {}),
          ...(typeof given.merge_request === 'string' ? { merge_request: given.merge_request } : {}),
          ...(typeof given.notes === 'string' ? { notes: given.notes } : {}),
        },
        startedBy: editorOperator(),
      });
      await deps.reviewModel.load();
      void vscode.window.setStatusBarMessage(`Review ${run.id} (${run.workflow}) started: agents find it with get_workflow`, 5000);
      return run.id;
    } catch (err) {
      showReviewError(deps.logger, 'Could not start the review', err);
      return undefined;
    }
  };
}
