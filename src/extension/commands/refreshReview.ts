// Agent Progress: Refresh Review: reads the review runs again.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerRefreshReview(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.refreshReview, () => deps.review.refresh());
}
