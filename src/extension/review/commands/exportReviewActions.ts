// Agent Progress: Export Review Actions: writes the current review's actions and their decisions
// as JSON (the same document as `agent-progress review-export`) for a CI script to carry out.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';
import { currentRunId, showReviewError } from './reviewArgs';

export function exportReviewActions(deps: ReviewDeps): CommandHandler {
  return async (arg?: unknown): Promise<string | undefined> => {
    try {
      const given = (arg && typeof arg === 'object' ? arg : {}) as { reviewId?: unknown; file?: unknown; state?: { run: { id: string } } };
      const runId = typeof given.reviewId === 'string' ? given.reviewId : (given.state?.run.id ?? (await currentRunId(deps)));
      if (!runId) {
        void vscode.window.showInformationMessage('There is no review to export yet.');
        return undefined;
      }
      const doc = await (await deps.host.review()).exportActions(runId);
      let file = typeof given.file === 'string' ? given.file : undefined;
      if (file === undefined) {
        const root = vscode.workspace.workspaceFolders?.[0]?.uri;
        const target = await vscode.window.showSaveDialog({
          title: 'Export Review Actions',
          filters: { JSON: ['json'] },
          ...(root ? { defaultUri: vscode.Uri.joinPath(root, `review-actions-${runId}.json`) } : {}),
        });
        if (!target) return undefined;
        file = target.fsPath;
      }
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\n');
      fs.renameSync(tmp, file);
      void vscode.window.setStatusBarMessage(`Exported ${doc.actions.length} review action(s) to ${file}`, 5000);
      return file;
    } catch (err) {
      showReviewError(deps.logger, 'Could not export the review actions', err);
      return undefined;
    }
  };
}
