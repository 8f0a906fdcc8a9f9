// Workflows: their tree, the workflow pages, the status bar item, review request notices and the
// documents of files as they were when a task started.

import { ViewIds } from '../commandIds';
import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
import { readSettings } from '../settings';
import { refreshWorkflows } from './commands/refreshWorkflows';
import { openWorkflow } from './commands/openWorkflow';
import { openFileChange } from './commands/openFileChange';
import { copyTrackedTaskId } from './commands/copyTrackedTaskId';
import { ReviewNotifier } from './reviewNotifier';
import { registerSnapshotDocuments } from './snapshotDocuments';
import { WorkflowPanels } from './workflowPanels';
import { WorkflowsProvider } from './workflowsProvider';
import { treeView } from '../views/treeView';
import { WorkflowStatus } from './workflowStatus';

function parts({ context, host, logger }: Shared) {
  const workflows = new WorkflowsProvider(host);
  const workflowsView = treeView(ViewIds.workflows, workflows);
  const reviews = new ReviewNotifier(host, logger, undefined, () => readSettings().toolsets.includes('workflow'));
  return { workflows, workflowsView, workflowPanels: new WorkflowPanels(context.extensionUri, host, logger), workflowStatus: new WorkflowStatus(host), reviews };
}

export type WorkflowsDeps = Shared & ReturnType<typeof parts>;

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<WorkflowsDeps> = { refreshWorkflows, openWorkflow, openFileChange, copyTrackedTaskId };

export function activateWorkflows(shared: Shared, commands: Commands<WorkflowsDeps> = COMMANDS): Feature<WorkflowsDeps> {
  const made = parts(shared);
  made.reviews.watchJournal(() => void made.workflowStatus.update());
  return Feature.owning(shared, made, commands, [registerSnapshotDocuments(shared.host, shared.logger), made.workflows.onDidRefresh(() => void made.workflowStatus.update())]);
}
