// The MCP server definitions VS Code starts for Copilot agent mode: one stdio server per enabled
// toolset, running the bundled dist/server.js with VS Code's own runtime on the workspace ledger.
// The API key is added only when VS Code resolves a definition to start it, never listed eagerly.
// The workspace's agent-progress.config.json is passed as trusted (AGENT_PROGRESS_CONFIG) only in a
// trusted workspace; in Restricted Mode the servers treat it as untrusted.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { serverLaunch } from '../core/leanNode';
import { defaultProjectId } from '../core/projectId';
import type { ApiKeyStore } from './apiKey';
import { MCP_PROVIDER_ID } from './commandIds';
import { affectsSettings, readSettings, type Toolset } from './settings';

export interface McpProviderDeps {
  extensionPath: string;
  version: string;
  ledgerPath: string;
  /** The team ledger on PostgreSQL (agentProgress.databaseUrl): the servers use it instead of the file. */
  databaseUrl?: string;
  apiKeys: ApiKeyStore;
  workspaceFolder: () => string | undefined;
  /** The transcript folders for the traces toolset's server (the same the Agent Sessions view reads). */
  traceEnv?: () => Record<string, string>;
  /** Whether the person trusts this workspace (default: vscode.workspace.isTrusted). */
  workspaceTrusted?: () => boolean;
}

/** The workspace's own config file, when the workspace is trusted and has one. */
export function trustedWorkspaceConfig(folder: string | undefined, trusted: boolean): string | undefined {
  if (!folder || !trusted) return undefined;
  const file = path.join(folder, 'agent-progress.config.json');
  return fs.existsSync(file) ? file : undefined;
}

export function serverScript(extensionPath: string): string {
  return path.join(extensionPath, 'dist', 'server.js');
}

/** The label VS Code shows for one toolset's server (and part of its definition id). */
export function serverLabel(toolset: Toolset): string {
  return `Agent Progress: ${toolset}`;
}

/** The definition of one toolset's server (without the key). Exported for tests. */
export function serverDefinition(deps: McpProviderDeps, toolset: Toolset): vscode.McpStdioServerDefinition {
  const settings = readSettings();
  const env: Record<string, string> = {
    // In desktop VS Code process.execPath is the Electron binary; this makes it act as Node.
    ELECTRON_RUN_AS_NODE: '1',
    AGENT_PROGRESS_DB_PATH: deps.ledgerPath,
    AGENT_PROGRESS_HOST_IDLE_MS: String(settings.ledgerHostIdleMs),
  };
  if (deps.databaseUrl) env.AGENT_PROGRESS_DATABASE_URL = deps.databaseUrl;
  const folder = deps.workspaceFolder();
  if (folder) env.AGENT_PROGRESS_PROJECT = defaultProjectId(folder);
  const configFile = trustedWorkspaceConfig(folder, (deps.workspaceTrusted ?? (() => vscode.workspace.isTrusted))());
  if (configFile) env.AGENT_PROGRESS_CONFIG = configFile;
  if (settings.summaryBaseUrl) env.OPENAI_BASE_URL = settings.summaryBaseUrl;
  if (settings.summaryModel) env.AGENT_PROGRESS_MODEL = settings.summaryModel;
  if (toolset === 'traces') Object.assign(env, deps.traceEnv?.() ?? {});
  // Run lean, as the connected agents' configs and the ledger host do.
  const launch = serverLaunch(serverScript(deps.extensionPath), [toolset], env);
  const definition = new vscode.McpStdioServerDefinition(serverLabel(toolset), process.execPath, launch.args, launch.env, deps.version);
  if (folder) definition.cwd = vscode.Uri.file(folder);
  return definition;
}

export function registerMcpServerProvider(context: vscode.ExtensionContext, deps: McpProviderDeps): vscode.EventEmitter<void> {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => readSettings().toolsets.map((toolset) => serverDefinition(deps, toolset)),
    resolveMcpServerDefinition: async (server) => {
      const key = await deps.apiKeys.get();
      // agentProgress.summary.provider "editor" or "none": the servers get no key for the endpoint.
      const provider = readSettings().summaryProvider;
      if (key && (provider === 'auto' || provider === 'endpoint')) server.env = { ...server.env, OPENAI_API_KEY: key };
      return server;
    },
  };
  context.subscriptions.push(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsSettings(e)) changed.fire();
    }),
    deps.apiKeys.onDidChange(() => changed.fire()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
  );
  return changed;
}
