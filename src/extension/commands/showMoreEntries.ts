// "Show more" under a project in the Progress Log: loads the next page of entries.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerShowMoreEntries(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.showMoreEntries, (projectId: unknown) => {
    if (typeof projectId === 'string') deps.progressLog.showMore(projectId);
  });
}
