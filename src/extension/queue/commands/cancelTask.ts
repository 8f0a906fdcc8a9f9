// Agent Progress: Cancel Task: withdraws a queued or running task; no agent is given it again.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { QueueDeps } from '../feature';
import { EDITOR_ACTOR, showQueueError, taskIdOf } from './queueArgs';

export function cancelTask(deps: QueueDeps): CommandHandler {
  return async (arg?: unknown, options?: { confirmed?: boolean }) => {
    const id = taskIdOf(arg);
    if (!id) {
      void vscode.window.showInformationMessage('Pick a task in the Task Queue view to cancel it.');
      return;
    }
    if (!options?.confirmed) {
      const pick = await vscode.window.showWarningMessage('Cancel this task? No agent will be given it again (you can requeue it later).', { modal: true }, 'Cancel Task');
      if (pick !== 'Cancel Task') return;
    }
    try {
      await (await deps.host.queue()).cancelTask(id, EDITOR_ACTOR);
      deps.taskQueue.refresh();
      void vscode.window.setStatusBarMessage(`Task ${id} cancelled`, 3000);
    } catch (err) {
      showQueueError(deps.logger, 'Could not cancel the task', err);
    }
  };
}
