// What commands and views are given at activation, explicitly.

import type * as vscode from 'vscode';
import type { Logger } from '../core/log';
import type { ApiKeyStore } from './apiKey';
import type { LedgerConnection } from './ledgerConnection';
import type { ProgressLogNode } from './views/progressLog/progressLogItems';
import type { ProgressLogProvider } from './views/progressLog/progressLogProvider';
import type { EntryPanels } from './webviews/entry/entryPanels';
import type { WorkflowNode } from './views/workflows/workflowItems';
import type { WorkflowsProvider } from './views/workflows/workflowsProvider';
import type { WorkflowPanels } from './webviews/workflow/workflowPanels';
import type { ReviewNotifier } from './workflows/reviewNotifier';
import type { WorkflowStatus } from './workflows/workflowStatus';
import type { TraceHost } from './traceHost';
import type { AgentSessionsNode } from './views/agentSessions/agentSessionsItems';
import type { AgentSessionsProvider } from './views/agentSessions/agentSessionsProvider';
import type { SessionPanels } from './webviews/session/sessionPanels';
import type { QueueStatus } from './views/taskQueue/queueStatus';
import type { TaskQueueNode } from './views/taskQueue/taskQueueItems';
import type { TaskQueueProvider } from './views/taskQueue/taskQueueProvider';
import type { TaskPanels } from './webviews/task/taskPanels';
import type { ReviewComments } from './review/reviewComments';
import type { ReviewModel } from './review/reviewModel';
import type { ReviewStatus } from './review/reviewStatus';
import type { ReviewStatusFile } from './review/reviewStatusFile';
import type { ReviewNode } from './views/review/reviewItems';
import type { ReviewProvider } from './views/review/reviewProvider';
import type { DigestTicker } from './digests/digestTicker';

export interface ExtensionDeps {
  context: vscode.ExtensionContext;
  logger: Logger;
  output: vscode.LogOutputChannel;
  host: LedgerConnection;
  apiKeys: ApiKeyStore;
  entries: EntryPanels;
  progressLog: ProgressLogProvider;
  progressLogView: vscode.TreeView<ProgressLogNode>;
  workflows: WorkflowsProvider;
  workflowsView: vscode.TreeView<WorkflowNode>;
  workflowPanels: WorkflowPanels;
  workflowStatus: WorkflowStatus;
  reviews: ReviewNotifier;
  traces: TraceHost;
  agentSessions: AgentSessionsProvider;
  agentSessionsView: vscode.TreeView<AgentSessionsNode>;
  sessionPanels: SessionPanels;
  taskQueue: TaskQueueProvider;
  taskQueueView: vscode.TreeView<TaskQueueNode>;
  taskPanels: TaskPanels;
  queueStatus: QueueStatus;
  reviewModel: ReviewModel;
  review: ReviewProvider;
  reviewView: vscode.TreeView<ReviewNode>;
  reviewStatus: ReviewStatus;
  reviewStatusFile: ReviewStatusFile;
  reviewComments: ReviewComments;
  digests: DigestTicker;
}

/** What commands receive as their argument from a tree item or another command. */
export interface EntryRef {
  id: string;
  projectId?: string;
}

/** A tree node, an {id, projectId} reference, or an id string, as a reference. */
export function entryRef(arg: unknown): EntryRef | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return { id: arg.trim() };
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string; entry?: { id: string; projectId: string }; id?: unknown; projectId?: unknown };
    if (o.kind === 'entry' && o.entry) return { id: o.entry.id, projectId: o.entry.projectId };
    if (typeof o.id === 'string') return { id: o.id, ...(typeof o.projectId === 'string' ? { projectId: o.projectId } : {}) };
  }
  return undefined;
}
