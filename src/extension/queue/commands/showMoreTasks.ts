// "Show more" under a status in the Task Queue: loads the next page of tasks.

import type { CommandHandler } from '../../feature';
import type { TaskStatus } from '../../../core/queue/types';
import type { QueueDeps } from '../feature';
import { STATUS_ORDER } from '../taskQueueItems';

export function showMoreTasks(deps: QueueDeps): CommandHandler {
  return (projectId: unknown, status: unknown) => {
    if (typeof projectId === 'string' && STATUS_ORDER.includes(status as TaskStatus)) deps.taskQueue.showMore(projectId, status as TaskStatus);
  };
}
