// Workflows: their tree, the workflow pages, the status bar item, review request notices and the
// documents of files as they were when a task started.

import type * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
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
import { registerWorkflowsView, type WorkflowsProvider } from './workflowsProvider';
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
  const { provider, view } = registerWorkflowsView(shared.context, shared.host);
  const workflowPanels = new WorkflowPanels(shared.context.extensionUri, shared.host, shared.logger);
  const workflowStatus = new WorkflowStatus(shared.host);
  const reviews = new ReviewNotifier(shared.host, shared.logger, undefined, () => readSettings().toolsets.includes('workflow'));
  reviews.watchJournal(() => void workflowStatus.update());
  registerSnapshotDocuments(shared.context, shared.host, shared.logger);
  const refreshed = provider.onDidRefresh(() => void workflowStatus.update());
  return new Feature({ ...shared, workflows: provider, workflowsView: view, workflowPanels, workflowStatus, reviews }, commands, [
    workflowPanels,
    workflowStatus,
    reviews,
    refreshed,
  ]);
}
