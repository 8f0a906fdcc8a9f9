// The status bar while a queue has work: "3 running · 40 queued" across projects; a click shows the
// Task Queue. Hidden when every queue is empty. Refreshes when any process writes the ledger.

import * as vscode from 'vscode';
import type { LedgerConnection } from '../../ledgerConnection';
import { queueStatusText } from './taskQueueItems';

export class QueueStatus implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  /** Whether the item is shown now (tests read it). */
  visible = false;
  private readonly subscription: vscode.Disposable;
  private pending: Promise<void> | undefined;

  constructor(private readonly host: LedgerConnection) {
    this.item = vscode.window.createStatusBarItem('agentProgress.taskQueue', vscode.StatusBarAlignment.Left, 49);
    this.item.name = 'Agent Progress: task queue';
    this.item.command = { command: 'agentProgress.taskQueue.focus', title: 'Show Task Queue' };
    this.subscription = host.onDidChange(() => void this.update());
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

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
