// Agent Progress: Show Log: the extension's output channel.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

export function registerShowLog(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.showLog, () => deps.output.show());
}
