// The extension's entry: activate() reads as a table of contents. Nothing here opens the ledger;
// the views open it when first shown, the MCP servers when first called.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKey';
import { registerClearApiKey } from './commands/clearApiKey';
import { registerClearTagFilter } from './commands/clearTagFilter';
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
import { LedgerHost } from './ledgerHost';
import { registerMcpServerProvider } from './mcpServerProvider';
import { readSettings } from './settings';
import { outputLogger } from './outputLogger';
import { languageModelProvider } from './summary/languageModelSummary';
import { endpointProvider } from './summary/openAiSummary';
import { registerProgressLogView } from './views/progressLog/progressLogProvider';
import { EntryPanels } from './webviews/entry/entryPanels';

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
  const host = new LedgerHost(ledgerPath, logger, [languageModelProvider(), endpointProvider(apiKeys, logger)]);
  const entries = new EntryPanels(context.extensionUri, host, logger);
  context.subscriptions.push(output, apiKeys, host, entries);

  registerMcpServerProvider(context, {
    extensionPath: context.extensionPath,
    version: String(context.extension.packageJSON.version ?? '0.0.0'),
    ledgerPath,
    apiKeys,
    workspaceFolder: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
  });
  const { provider: progressLog, view: progressLogView } = registerProgressLogView(context, host);

  const deps: ExtensionDeps = { context, logger, output, host, apiKeys, entries, progressLog, progressLogView };
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
  );

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('agentProgress.ledgerPath') || ledgerPathFor(context) === ledgerPath) return;
      const choice = await vscode.window.showInformationMessage('Agent Progress: the ledger location changed. Reload the window to use it.', 'Reload Window');
      if (choice === 'Reload Window') await vscode.commands.executeCommand('workbench.action.reloadWindow');
    }),
  );

  const activationMs = performance.now() - started;
  logger.info(`Activated in ${activationMs.toFixed(1)} ms; ledger ${ledgerPath} (opened on first use)`);
  return { ledgerPath, activationMs, deps };
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
