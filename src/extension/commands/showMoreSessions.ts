// Show more (Agent Sessions): the next page of a project's sessions.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerShowMoreSessions(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.showMoreSessions, (key: unknown) => {
    if (typeof key === 'string') deps.agentSessions.showMore(key);
  });
}
