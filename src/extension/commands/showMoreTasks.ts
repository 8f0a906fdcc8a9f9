// "Show more" under a status in the Task Queue: loads the next page of tasks.

import * as vscode from 'vscode';
import type { TaskStatus } from '../../core/queue/types';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';
import { STATUS_ORDER } from '../views/taskQueue/taskQueueItems';

export function registerShowMoreTasks(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.showMoreTasks, (projectId: unknown, status: unknown) => {
    if (typeof projectId === 'string' && STATUS_ORDER.includes(status as TaskStatus)) deps.taskQueue.showMore(projectId, status as TaskStatus);
  });
}
