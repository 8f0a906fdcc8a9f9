// The status bar while a queue has work: "3 running · 40 queued" across projects; a click shows the
// Task Queue. Hidden when every queue is empty. Refreshes when any process writes the ledger.

import type { LedgerConnection } from '../ledgerConnection';
import { LedgerStatusItem, type StatusText } from '../statusItem';
import { queueStatusText } from './taskQueueItems';

export class QueueStatus extends LedgerStatusItem {
  constructor(host: LedgerConnection) {
    super(host, 'agentProgress.taskQueue', 49, 'Agent Progress: task queue', { command: 'agentProgress.taskQueue.focus', title: 'Show Task Queue' });
  }

  protected async read(): Promise<StatusText | undefined> {
    return queueStatusText(await (await this.host.queue()).listProjects({}));
  }
}
