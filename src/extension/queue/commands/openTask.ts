// Opens a queue task in its webview (a Task Queue item's click, or another command); asks for an
// id when none is given.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { QueueDeps } from '../feature';
import { taskIdOf } from './queueArgs';

export function openTask(deps: QueueDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id =
      taskIdOf(arg) ??
      (await vscode.window.showInputBox({
        title: 'Open Task by ID',
        prompt: 'The id of a queue task, as request_task and list_tasks report it',
        validateInput: (v) => (v.trim() === '' ? 'Type a task id' : undefined),
      }));
    if (id === undefined || id.trim() === '') return;
    await deps.taskPanels.show(id.trim());
  };
}
