// Opens a queue task in its webview (a Task Queue item's click, or another command); asks for an
// id when none is given.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';
import { taskIdOf } from './queueArgs';

export function registerOpenTask(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.openTask, async (arg?: unknown) => {
    const id =
      taskIdOf(arg) ??
      (await vscode.window.showInputBox({
        title: 'Open Task by ID',
        prompt: 'The id of a queue task, as request_task and list_tasks report it',
        validateInput: (v) => (v.trim() === '' ? 'Type a task id' : undefined),
      }));
    if (id === undefined || id.trim() === '') return;
    await deps.taskPanels.show(id.trim());
  });
}
