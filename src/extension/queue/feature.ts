// The task queue: its tree, the status bar item, the task pages and the operator's commands.

import type * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
import { refreshTaskQueue } from './commands/refreshTaskQueue';
import { openTask } from './commands/openTask';
import { showMoreTasks } from './commands/showMoreTasks';
import { createQueueProject } from './commands/createQueueProject';
import { addTask } from './commands/addTask';
import { importTasks } from './commands/importTasks';
import { requeueTask } from './commands/requeueTask';
import { cancelTask } from './commands/cancelTask';
import { closeQueueProject } from './commands/closeQueueProject';
import { QueueStatus } from './queueStatus';
import { TaskPanels } from './taskPanels';
import type { TaskQueueNode } from './taskQueueItems';
import { TaskQueueProvider } from './taskQueueProvider';
import { treeView } from '../views/treeView';

export interface QueueDeps extends Shared {
  taskQueue: TaskQueueProvider;
  taskQueueView: vscode.TreeView<TaskQueueNode>;
  taskPanels: TaskPanels;
  queueStatus: QueueStatus;
}

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<QueueDeps>[] = [
  [CommandIds.refreshTaskQueue, refreshTaskQueue],
  [CommandIds.openTask, openTask],
  [CommandIds.showMoreTasks, showMoreTasks],
  [CommandIds.createQueueProject, createQueueProject],
  [CommandIds.addTask, addTask],
  [CommandIds.importTasks, importTasks],
  [CommandIds.requeueTask, requeueTask],
  [CommandIds.cancelTask, cancelTask],
  [CommandIds.closeQueueProject, closeQueueProject],
];

export function activateQueue(shared: Shared, commands: readonly CommandLine<QueueDeps>[] = COMMANDS): Feature<QueueDeps> {
  const taskQueue = new TaskQueueProvider(shared.host);
  const taskQueueView = treeView(ViewIds.taskQueue, taskQueue);
  const taskPanels = new TaskPanels(shared.context.extensionUri, shared.host, shared.logger);
  const queueStatus = new QueueStatus(shared.host);
  return new Feature({ ...shared, taskQueue, taskQueueView, taskPanels, queueStatus }, commands, [taskQueue, taskQueueView, taskPanels, queueStatus]);
}
