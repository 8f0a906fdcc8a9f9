// Workflows: their tree, the workflow pages, the status bar item, review request notices and the
// documents of files as they were when a task started.

import type * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
import { readSettings } from '../settings';
import { refreshWorkflows } from './commands/refreshWorkflows';
import { openWorkflow } from './commands/openWorkflow';
import { openFileChange } from './commands/openFileChange';
import { copyTrackedTaskId } from './commands/copyTrackedTaskId';
import { ReviewNotifier } from './reviewNotifier';
import { registerSnapshotDocuments } from './snapshotDocuments';
import type { WorkflowNode } from './workflowItems';
import { WorkflowPanels } from './workflowPanels';
import { WorkflowsProvider } from './workflowsProvider';
import { treeView } from '../views/treeView';
import { WorkflowStatus } from './workflowStatus';

export interface WorkflowsDeps extends Shared {
  workflows: WorkflowsProvider;
  workflowsView: vscode.TreeView<WorkflowNode>;
  workflowPanels: WorkflowPanels;
  workflowStatus: WorkflowStatus;
  reviews: ReviewNotifier;
}

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<WorkflowsDeps>[] = [
  [CommandIds.refreshWorkflows, refreshWorkflows],
  [CommandIds.openWorkflow, openWorkflow],
  [CommandIds.openFileChange, openFileChange],
  [CommandIds.copyTrackedTaskId, copyTrackedTaskId],
];

export function activateWorkflows(shared: Shared, commands: readonly CommandLine<WorkflowsDeps>[] = COMMANDS): Feature<WorkflowsDeps> {
  const workflows = new WorkflowsProvider(shared.host);
  const workflowsView = treeView(ViewIds.workflows, workflows);
  const workflowPanels = new WorkflowPanels(shared.context.extensionUri, shared.host, shared.logger);
  const workflowStatus = new WorkflowStatus(shared.host);
  const reviews = new ReviewNotifier(shared.host, shared.logger, undefined, () => readSettings().toolsets.includes('workflow'));
  reviews.watchJournal(() => void workflowStatus.update());
  const snapshots = registerSnapshotDocuments(shared.host, shared.logger);
  const refreshed = workflows.onDidRefresh(() => void workflowStatus.update());
  return new Feature({ ...shared, workflows, workflowsView, workflowPanels, workflowStatus, reviews }, commands, [
    workflows,
    workflowsView,
    workflowPanels,
    workflowStatus,
    reviews,
    snapshots,
    refreshed,
  ]);
}
