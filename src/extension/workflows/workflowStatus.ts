// The status bar while tracked tasks run: the task and its latest milestone's progress ("45% ·
// Running tests…"), or how many run. Tasks idle for over an hour are left out (an agent that
// stopped without complete_task). Refreshes when any process writes the ledger.

import { CommandIds } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import { LedgerStatusItem, type StatusText } from '../statusItem';
import { statusFor } from './workflowText';

export class WorkflowStatus extends LedgerStatusItem {
  constructor(
    host: LedgerConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    super(host, 'agentProgress.trackedTasks', 50, 'Agent Progress: tracked tasks');
  }

  protected async read(): Promise<StatusText | undefined> {
    const status = statusFor(await (await this.host.workflow()).runningTasks(), this.now());
    return (
      status && {
        text: status.text,
        tooltip: status.tooltip.join('\n'),
        command: status.target
          ? { command: CommandIds.openWorkflow, title: 'Open Workflow', arguments: [status.target] }
          : { command: 'agentProgress.workflows.focus', title: 'Show Workflows' },
      }
    );
  }
}
