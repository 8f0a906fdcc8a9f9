// Agent Progress: Refresh Workflows (Workflows toolbar): re-reads the ledger now. From a "Show
// more" row it also lists more workflows.

import type { CommandHandler } from '../../feature';
import type { WorkflowsDeps } from '../feature';

export function refreshWorkflows(deps: WorkflowsDeps): CommandHandler {
  return async (arg?: unknown) => {
    if (deps.host.opened) await (await deps.host.ledger()).refresh();
    const more = arg && typeof arg === 'object' ? (arg as { more?: unknown }).more : undefined;
    if (typeof more === 'string') deps.workflows.showMore(more === '*' ? undefined : more);
    else deps.workflows.refresh();
    await deps.workflowStatus.update();
  };
}
