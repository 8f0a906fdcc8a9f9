// The status bar while tracked tasks run: the task and its latest milestone's progress ("45% ·
// Running tests…"), or how many run. Tasks idle for over an hour are left out (an agent that
// stopped without complete_task). Refreshes when any process writes the ledger.

import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { CommandIds } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import { statusFor } from './workflowText';

export class WorkflowStatus extends Disposable {
  readonly item: vscode.StatusBarItem;
  /** Whether the item is shown now (tests read it). */
  visible = false;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly host: LedgerConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.item = this.register(vscode.window.createStatusBarItem('agentProgress.trackedTasks', vscode.StatusBarAlignment.Left, 50));
    this.item.name = 'Agent Progress: tracked tasks';
    this.register(host.onDidChange(() => void this.update()));
  }

  /** Reads the running tasks and shows or hides the item; resolves when done (tests await it). */
  update(): Promise<void> {
    this.pending ??= this.read().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async read(): Promise<void> {
    try {
      const status = statusFor(await (await this.host.workflow()).runningTasks(), this.now());
      if (!status) {
        this.hide();
        return;
      }
      this.item.text = status.text;
      this.item.tooltip = status.tooltip.join('\n');
      this.item.command = status.target
        ? { command: CommandIds.openWorkflow, title: 'Open Workflow', arguments: [status.target] }
        : { command: 'agentProgress.workflows.focus', title: 'Show Workflows' };
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
