// What the queue tools are written with: serviceTool over the queue service (opened on first use;
// a call carries the connection's session).

import type { QueueService } from '../../../core/queue/queueService';
import { serviceTool } from '../../serviceTool';

export const queueTool = serviceTool<QueueService>;
