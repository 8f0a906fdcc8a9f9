// The task queue: its tree, the status bar item, the task pages and the operator's commands.

import { ViewIds } from '../commandIds';
import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
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
import { TaskQueueProvider } from './taskQueueProvider';
import { treeView } from '../views/treeView';

function parts(shared: Shared) {
  const taskQueue = new TaskQueueProvider(shared.host);
  const taskQueueView = treeView(ViewIds.taskQueue, taskQueue);
  return { taskQueue, taskQueueView, taskPanels: new TaskPanels(shared.context.extensionUri, shared.host, shared.logger), queueStatus: new QueueStatus(shared.host) };
}

export type QueueDeps = Shared & ReturnType<typeof parts>;

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<QueueDeps> = {
  refreshTaskQueue,
  openTask,
  showMoreTasks,
  createQueueProject,
  addTask,
  importTasks,
  requeueTask,
  cancelTask,
  closeQueueProject,
};

export function activateQueue(shared: Shared, commands: Commands<QueueDeps> = COMMANDS): Feature<QueueDeps> {
  return Feature.owning(shared, parts(shared), commands);
}
