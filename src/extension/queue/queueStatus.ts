// The status bar while a queue has work: "3 running · 40 queued" across projects; a click shows the
// Task Queue. Hidden when every queue is empty. Refreshes when any process writes the ledger.

import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { LedgerConnection } from '../ledgerConnection';
import { queueStatusText } from './taskQueueItems';

export class QueueStatus extends Disposable {
  readonly item: vscode.StatusBarItem;
  /** Whether the item is shown now (tests read it). */
  visible = false;
  private pending: Promise<void> | undefined;

  constructor(private readonly host: LedgerConnection) {
    super();
    this.item = this.register(vscode.window.createStatusBarItem('agentProgress.taskQueue', vscode.StatusBarAlignment.Left, 49));
    this.item.name = 'Agent Progress: task queue';
    this.item.command = { command: 'agentProgress.taskQueue.focus', title: 'Show Task Queue' };
    this.register(host.onDidChange(() => void this.update()));
  }

  /** Reads the queues and shows or hides the item; resolves when done (tests await it). */
  update(): Promise<void> {
    this.pending ??= this.read().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async read(): Promise<void> {
    try {
      const status = queueStatusText(await (await this.host.queue()).listProjects({}));
      if (!status) {
        this.hide();
        return;
      }
      this.item.text = status.text;
      this.item.tooltip = status.tooltip;
      this.item.show();
      this.visible = true;
    } catch {
      this.hide();
    }
  }

  private hide(): void {
    this.item.hide();
    this.visible = false;
  }
}
