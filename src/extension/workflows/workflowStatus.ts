// The status bar while tracked tasks run: the task and its latest milestone's progress ("45% ·
// Running tests…"), or how many run. Tasks idle for over an hour are left out (an agent that
// stopped without complete_task). Refreshes when any process writes the ledger.

import { CommandIds } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import { StatusItem } from '../statusItem';
import { statusFor } from './workflowText';

export class WorkflowStatus extends StatusItem {
  private pending: Promise<void> | undefined;

  constructor(
    private readonly host: LedgerConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    super('agentProgress.trackedTasks', 50, 'Agent Progress: tracked tasks');
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
      this.show(
        status && {
          text: status.text,
          tooltip: status.tooltip.join('\n'),
          command: status.target
            ? { command: CommandIds.openWorkflow, title: 'Open Workflow', arguments: [status.target] }
            : { command: 'agentProgress.workflows.focus', title: 'Show Workflows' },
        },
      );
    } catch {
      this.show(undefined);
    }
  }
}
