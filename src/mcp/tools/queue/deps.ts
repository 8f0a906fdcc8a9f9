// What the queue tools need, passed in explicitly: the service, opened on first use.

import type { QueueService } from '../../../core/queue/queueService';

export interface QueueToolDeps {
  queue: () => Promise<QueueService>;
}
