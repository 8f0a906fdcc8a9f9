// The status bar while a queue has work: "3 running · 40 queued" across projects; a click shows the
// Task Queue. Hidden when every queue is empty. Refreshes when any process writes the ledger.

import type { LedgerConnection } from '../ledgerConnection';
import { StatusItem } from '../statusItem';
import { queueStatusText } from './taskQueueItems';

export class QueueStatus extends StatusItem {
  private pending: Promise<void> | undefined;

  constructor(private readonly host: LedgerConnection) {
    super('agentProgress.taskQueue', 49, 'Agent Progress: task queue', { command: 'agentProgress.taskQueue.focus', title: 'Show Task Queue' });
    this.register(host.onDidChange(() => void this.update()));
  }

  /** Reads the queues and shows or hides the item; resolves when done (tests await it). */
  update(): Promise<void> {
    this.pending ??= this.read().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async read(): Promise<void> {
    try {
      this.show(queueStatusText(await (await this.host.queue()).listProjects({})));
    } catch {
      this.show(undefined);
    }
  }
}
