// Agent Progress: Requeue Task: puts a failed, cancelled or running task back in the queue (a
// running one is taken from its agent, whose attempt is closed as failed).

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { QueueDeps } from '../feature';
import { EDITOR_ACTOR, showQueueError, taskIdOf } from './queueArgs';

export function requeueTask(deps: QueueDeps): CommandHandler {
  return async (arg?: unknown) => {
    const id = taskIdOf(arg);
    if (!id) {
      void vscode.window.showInformationMessage('Pick a task in the Task Queue view to requeue it.');
      return;
    }
    try {
      const queue = await deps.host.queue();
      const task = await queue.getTask({ taskId: id });
      if (task.status === 'running') {
        const pick = await vscode.window.showWarningMessage(`${task.assignedTo ?? 'An agent'} is working on this task. Take it back and requeue it?`, { modal: true }, 'Requeue');
        if (pick !== 'Requeue') return;
      }
      await queue.requeueTask(id, EDITOR_ACTOR);
      deps.taskQueue.refresh();
      void vscode.window.setStatusBarMessage(`Task ${id} is queued again`, 3000);
    } catch (err) {
      showQueueError(deps.logger, 'Could not requeue the task', err);
    }
  };
}
