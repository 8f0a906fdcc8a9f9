// Agent Progress: Close Queue Project: no new tasks are handed out; running ones may finish.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { QueueDeps } from '../feature';
import { EDITOR_ACTOR, pickQueueProject, showQueueError } from './queueArgs';

export function closeQueueProject(deps: QueueDeps): CommandHandler {
  return async (given?: unknown, options?: { confirmed?: boolean }) => {
    try {
      const queue = await deps.host.queue();
      const projectId = await pickQueueProject(queue, given, 'Close which queue project?');
      if (!projectId) return;
      if (!options?.confirmed) {
        const pick = await vscode.window.showWarningMessage(
          `Close ${projectId}? Agents get no more tasks from it; running tasks may still be completed.`,
          { modal: true },
          'Close Project',
        );
        if (pick !== 'Close Project') return;
      }
      await queue.closeProject({ projectId }, EDITOR_ACTOR);
      deps.taskQueue.refresh();
    } catch (err) {
      showQueueError(deps.logger, 'Could not close the project', err);
    }
  };
}
