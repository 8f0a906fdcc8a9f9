// The extension's entry: activate() makes the shared parts and lists the features, each a folder
// that registers its views, commands, status items and pages (src/extension/feature.ts). Nothing
// here opens the ledger; the views open it when first shown, the MCP servers when first called.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { redact } from '../core/log';
import { ApiKeyStore } from './apiKey';
import type { Shared } from './feature';
import { activateLedger, type LedgerDeps } from './ledger/feature';
import { LedgerHost } from './ledgerHost';
import { registerMcpServerProvider } from './mcpServerProvider';
import { outputLogger } from './outputLogger';
import { activateProgressLog, type ProgressLogDeps } from './progressLog/feature';
import { activateQueue, type QueueDeps } from './queue/feature';
import { activateReview, type ReviewDeps } from './review/feature';
import { activateSessions, type SessionsDeps } from './sessions/feature';
import { readSettings } from './settings';
import { activateSetup } from './setup/feature';
import { chosenProvider } from './summary/chosenProvider';
import { languageModelProvider } from './summary/languageModelSummary';
import { endpointProvider } from './summary/openAiSummary';
import { TraceHost } from './traceHost';
import { activateWorkflows, type WorkflowsDeps } from './workflows/feature';

/** Every feature's parts, for the extension's own tests inside VS Code (commands get their feature's only). */
export type ExtensionDeps = ProgressLogDeps & QueueDeps & WorkflowsDeps & SessionsDeps & ReviewDeps & LedgerDeps;

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
  const host = new LedgerHost(ledgerPath, logger, [chosenProvider(languageModelProvider(), 'editor'), chosenProvider(endpointProvider(apiKeys, logger), 'endpoint')], databaseUrl);
  const traces = new TraceHost(context, host, logger);
  context.subscriptions.push(output, apiKeys, host, traces);
  const shared: Shared = { context, logger, output, host, apiKeys, traces };

  registerMcpServerProvider(context, {
    extensionPath: context.extensionPath,
    version: String(context.extension.packageJSON.version ?? '0.0.0'),
    ledgerPath,
    ...(databaseUrl ? { databaseUrl } : {}),
    apiKeys,
    workspaceFolder: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    traceEnv: () => traces.serverEnv(),
  });

  const progressLog = activateProgressLog(shared);
  const features = [
    progressLog,
    activateWorkflows(shared),
    activateSessions(shared),
    activateQueue(shared),
    activateReview(shared),
    activateSetup(shared),
    activateLedger(shared, progressLog.deps),
  ];
  context.subscriptions.push(...features);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      const moved =
        (e.affectsConfiguration('agentProgress.ledgerPath') && ledgerPathFor(context) !== ledgerPath) ||
        (e.affectsConfiguration('agentProgress.databaseUrl') && readSettings().databaseUrl !== databaseUrl);
      if (!moved) return;
      const choice = await vscode.window.showInformationMessage('Agent Progress: the ledger location changed. Reload the window to use it.', 'Reload Window');
      if (choice === 'Reload Window') await vscode.commands.executeCommand('workbench.action.reloadWindow');
    }),
  );

  const activationMs = performance.now() - started;
  logger.info(`Activated in ${activationMs.toFixed(1)} ms; ledger ${databaseUrl ? `PostgreSQL ${redact(databaseUrl, [])}` : ledgerPath} (opened on first use)`);
  const deps = Object.assign({}, ...features.map((f) => f.deps)) as ExtensionDeps;
  return { ledgerPath, activationMs, deps };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
