// The extension's entry: activate() reads as a table of contents. Nothing here opens the ledger;
// the views open it when first shown, the MCP servers when first called.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { redact } from '../core/log';
import { ApiKeyStore } from './apiKey';
import { registerClearApiKey } from './commands/clearApiKey';
import { registerClearTagFilter } from './commands/clearTagFilter';
import { registerConnectAgents } from './commands/connectAgents';
import { registerCopyEntryId } from './commands/copyEntryId';
import { registerFilterByTag } from './commands/filterByTag';
import { registerOpenEntry } from './commands/openEntry';
import { registerOpenEntryById } from './commands/openEntryById';
import { registerRefreshProgressLog } from './commands/refreshProgressLog';
import { registerSearchLogs } from './commands/searchLogs';
import { registerSetApiKey } from './commands/setApiKey';
import { registerShowLog } from './commands/showLog';
import { registerShowMoreEntries } from './commands/showMoreEntries';
import { registerSummariseEntry } from './commands/summariseEntry';
import type { ExtensionDeps } from './deps';
import { LedgerConnection } from './ledgerConnection';
import { registerMcpServerProvider } from './mcpServerProvider';
import { readSettings } from './settings';
import { outputLogger } from './outputLogger';
import { languageModelProvider } from './summary/languageModelSummary';
import { endpointProvider } from './summary/openAiSummary';
import { registerProgressLogView } from './views/progressLog/progressLogProvider';
import { EntryPanels } from './webviews/entry/entryPanels';
import { registerCopyTrackedTaskId } from './commands/copyTrackedTaskId';
import { registerOpenFileChange } from './commands/openFileChange';
import { registerOpenWorkflow } from './commands/openWorkflow';
import { registerRefreshWorkflows } from './commands/refreshWorkflows';
import { registerWorkflowsView } from './views/workflows/workflowsProvider';
import { WorkflowPanels } from './webviews/workflow/workflowPanels';
import { ReviewNotifier } from './workflows/reviewNotifier';
import { registerSnapshotDocuments } from './workflows/snapshotDocuments';
import { WorkflowStatus } from './workflows/workflowStatus';
import { registerOpenAgentSession } from './commands/openAgentSession';
import { registerOpenAgentSessionById } from './commands/openAgentSessionById';
import { registerOpenTranscriptForEntry } from './commands/openTranscriptForEntry';
import { registerRefreshAgentSessions } from './commands/refreshAgentSessions';
import { registerSearchAgentSessions } from './commands/searchAgentSessions';
import { registerShowMoreSessions } from './commands/showMoreSessions';
import { TraceHost } from './traceHost';
import { registerAgentSessionsView } from './views/agentSessions/agentSessionsProvider';
import { SessionPanels } from './webviews/session/sessionPanels';
import { registerAddTask } from './commands/addTask';
import { registerCancelTask } from './commands/cancelTask';
import { registerCloseQueueProject } from './commands/closeQueueProject';
import { registerApplyRetention } from './commands/applyRetention';
import { registerExportLedger } from './commands/exportLedger';
import { registerCopyLedger } from './commands/copyLedger';
import { registerImportLedger } from './commands/importLedger';
import { registerRestoreArchivedEntries } from './commands/restoreArchivedEntries';
import { registerRecoverLedger } from './commands/recoverLedger';
import { registerRevealLedgerFolder } from './commands/revealLedgerFolder';
import { chosenProvider } from './summary/chosenProvider';
import { registerRetentionReminder } from './retentionReminder';
import { registerCreateQueueProject } from './commands/createQueueProject';
import { registerImportTasks } from './commands/importTasks';
import { registerOpenTask } from './commands/openTask';
import { registerRefreshTaskQueue } from './commands/refreshTaskQueue';
import { registerRequeueTask } from './commands/requeueTask';
import { registerShowMoreTasks } from './commands/showMoreTasks';
import { QueueStatus } from './views/taskQueue/queueStatus';
import { registerTaskQueueView } from './views/taskQueue/taskQueueProvider';
import { TaskPanels } from './webviews/task/taskPanels';
import { registerAddReviewThread } from './commands/addReviewThread';
import { registerApproveReviewAction } from './commands/approveReviewAction';
import { registerDismissReviewAction } from './commands/dismissReviewAction';
import { registerEditReviewAction } from './commands/editReviewAction';
import { registerExportReviewActions } from './commands/exportReviewActions';
import { registerOpenReviewThread } from './commands/openReviewThread';
import { registerRefreshReview } from './commands/refreshReview';
import { registerReopenReviewThread } from './commands/reopenReviewThread';
import { registerReplyReviewThread } from './commands/replyReviewThread';
import { registerResolveReviewThread } from './commands/resolveReviewThread';
import { registerStartReview } from './commands/startReview';
import { ReviewComments } from './review/reviewComments';
import { ReviewModel } from './review/reviewModel';
import { ReviewStatus } from './review/reviewStatus';
import { ReviewStatusFile, STATUS_FILE_NAME } from './review/reviewStatusFile';
import { registerReviewView } from './views/review/reviewProvider';
import { DigestTicker } from './digests/digestTicker';
import { registerDigestSessions } from './commands/digestSessions';
import { registerConnectAgentHooks } from './commands/connectAgentHooks';

/** What activate() returns: used by the extension's own tests inside VS Code. */
export interface AgentProgressApi {
  ledgerPath: string;
  activationMs: number;
  deps: ExtensionDeps;
}

/** The ledger: the agentProgress.ledgerPath setting when set, else the workspace's storage. */
export function ledgerPathFor(context: vscode.ExtensionContext, logger?: { warn(m: string): void }): string {
  const chosen = readSettings().ledgerPath;
  if (chosen) {
    const expanded = chosen === '~' || chosen.startsWith('~/') ? path.join(os.homedir(), chosen.slice(1)) : chosen;
    if (path.isAbsolute(expanded) && !expanded.split(/[\\/]/).includes('..')) return path.normalize(expanded);
    logger?.warn(`agentProgress.ledgerPath must be an absolute path without '..' (got ${JSON.stringify(chosen)}); using workspace storage`);
  }
  return path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'data.db');
}

export function activate(context: vscode.ExtensionContext): AgentProgressApi {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('Agent Progress', { log: true });
  const logger = outputLogger(output);
  const apiKeys = new ApiKeyStore(context.secrets);
  const ledgerPath = ledgerPathFor(context, logger);
  const databaseUrl = readSettings().databaseUrl;
  const host = new LedgerConnection(ledgerPath, logger, [chosenProvider(languageModelProvider(), 'editor'), chosenProvider(endpointProvider(apiKeys, logger), 'endpoint')], databaseUrl);
  const entries = new EntryPanels(context.extensionUri, host, logger);
  context.subscriptions.push(output, apiKeys, host, entries);
  const traces = new TraceHost(context, host, logger);
  context.subscriptions.push(traces);

  registerMcpServerProvider(context, {
    extensionPath: context.extensionPath,
    version: String(context.extension.packageJSON.version ?? '0.0.0'),
    ledgerPath,
    ...(databaseUrl ? { databaseUrl } : {}),
    apiKeys,
    workspaceFolder: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    traceEnv: () => traces.serverEnv(),
  });
  const { provider: progressLog, view: progressLogView } = registerProgressLogView(context, host);
  const { provider: workflows, view: workflowsView } = registerWorkflowsView(context, host);
  const workflowPanels = new WorkflowPanels(context.extensionUri, host, logger);
  const workflowStatus = new WorkflowStatus(host);
  const reviews = new ReviewNotifier(host, logger, undefined, () => readSettings().toolsets.includes('workflow'));
  reviews.watchJournal(() => void workflowStatus.update());
  registerSnapshotDocuments(context, host, logger);
  context.subscriptions.push(workflowPanels, workflowStatus, reviews, workflows.onDidRefresh(() => void workflowStatus.update()));
  const { provider: agentSessions, view: agentSessionsView } = registerAgentSessionsView(context, traces);
  const sessionPanels = new SessionPanels(context.extensionUri, traces, entries, logger);
  context.subscriptions.push(sessionPanels);
  const { provider: taskQueue, view: taskQueueView } = registerTaskQueueView(context, host);
  const taskPanels = new TaskPanels(context.extensionUri, host, logger);
  const queueStatus = new QueueStatus(host);
  context.subscriptions.push(taskPanels, queueStatus);
  const reviewModel = new ReviewModel(host, logger);
  const { provider: review, view: reviewView } = registerReviewView(context, reviewModel);
  const reviewStatus = new ReviewStatus(reviewModel);
  const reviewStatusFile = new ReviewStatusFile(path.join((context.storageUri ?? context.globalStorageUri).fsPath, STATUS_FILE_NAME), reviewModel, logger);
  const reviewComments = new ReviewComments(reviewModel, () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  reviewModel.watchJournal();
  context.subscriptions.push(reviewModel, reviewStatus, reviewStatusFile, reviewComments);

  const digests = new DigestTicker(context, host, traces, logger);
  context.subscriptions.push(digests);

  const deps: ExtensionDeps = { context, logger, output, host, apiKeys, entries, progressLog, progressLogView, workflows, workflowsView, workflowPanels, workflowStatus, reviews, traces, agentSessions, agentSessionsView, sessionPanels, taskQueue, taskQueueView, taskPanels, queueStatus, reviewModel, review, reviewView, reviewStatus, reviewStatusFile, reviewComments, digests };
  context.subscriptions.push(
    registerRefreshProgressLog(deps),
    registerShowMoreEntries(deps),
    registerSearchLogs(deps),
    registerOpenEntry(deps),
    registerOpenEntryById(deps),
    registerSummariseEntry(deps),
    registerCopyEntryId(),
    registerFilterByTag(deps),
    registerClearTagFilter(deps),
    registerSetApiKey(deps),
    registerClearApiKey(deps),
    registerShowLog(deps),
    registerRefreshWorkflows(deps),
    registerOpenWorkflow(deps),
    registerOpenFileChange(deps),
    registerCopyTrackedTaskId(),
    registerRefreshAgentSessions(deps),
    registerSearchAgentSessions(deps),
    registerOpenAgentSession(deps),
    registerOpenAgentSessionById(deps),
    registerOpenTranscriptForEntry(deps),
    registerShowMoreSessions(deps),
    registerRefreshTaskQueue(deps),
    registerOpenTask(deps),
    registerShowMoreTasks(deps),
    registerCreateQueueProject(deps),
    registerAddTask(deps),
    registerImportTasks(deps),
    registerRequeueTask(deps),
    registerCancelTask(deps),
    registerCloseQueueProject(deps),
    registerStartReview(deps),
    registerRefreshReview(deps),
    registerApproveReviewAction(deps),
    registerEditReviewAction(deps),
    registerDismissReviewAction(deps),
    registerExportReviewActions(deps),
    registerOpenReviewThread(deps),
    registerAddReviewThread(deps),
    registerReplyReviewThread(deps),
    registerResolveReviewThread(deps),
    registerReopenReviewThread(deps),
    registerConnectAgents(deps),
    registerConnectAgentHooks(deps),
    registerDigestSessions(deps),
    registerExportLedger(deps),
    registerCopyLedger(deps),
    registerImportLedger(deps),
    registerApplyRetention(deps),
    registerRestoreArchivedEntries(deps),
    registerRecoverLedger(deps),
    registerRevealLedgerFolder(deps),
    registerRetentionReminder(deps),
  );

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      const moved = (e.affectsConfiguration('agentProgress.ledgerPath') && ledgerPathFor(context) !== ledgerPath) || (e.affectsConfiguration('agentProgress.databaseUrl') && readSettings().databaseUrl !== databaseUrl);
      if (!moved) return;
      const choice = await vscode.window.showInformationMessage('Agent Progress: the ledger location changed. Reload the window to use it.', 'Reload Window');
      if (choice === 'Reload Window') await vscode.commands.executeCommand('workbench.action.reloadWindow');
    }),
  );

  digests.start();

  const activationMs = performance.now() - started;
  logger.info(`Activated in ${activationMs.toFixed(1)} ms; ledger ${databaseUrl ? `PostgreSQL ${redact(databaseUrl, [])}` : ledgerPath} (opened on first use)`);
  return { ledgerPath, activationMs, deps };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
