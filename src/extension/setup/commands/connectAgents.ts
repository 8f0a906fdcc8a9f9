// Agent Progress: Connect Other Agents: writes the MCP config of Claude Code, Codex, Cursor, Gemini CLI (and,
// on request, VS Code's mcp.json) for this workspace, so that terminal agents use the ledger the
// sidebar shows. Asks before replacing a different server of the same name; shows what changed.

import * as vscode from 'vscode';
import type { CommandHandler, Own } from '../../feature';
import { defaultProjectId } from '../../../core/projectId';
import { CommandIds } from '../../commandIds';
import {
  AGENT_CLIENTS,
  applyPlans,
  describePlans,
  foreignConflicts,
  planClient,
  serverEntries,
  type AgentClientId,
  type ConnectInput,
  type FilePlan,
  type ServerEntry,
} from '../../connect/agentConfigs';
import type { SetupDeps } from '../feature';
import { agentNode, folderToWrite, readIfExists, summaryDocument } from '../connectFiles';
import { serverScript } from '../../mcpServerProvider';
import { readSettings } from '../../settings';

/** Arguments for scripts and tests: no quick pick or question when given. */
export interface ConnectAgentsOptions {
  clients?: AgentClientId[];
  /** Replace different servers of the same name without asking (true) or keep them (false). */
  replace?: boolean;
  /** Open the summary (default true). */
  show?: boolean;
}

export interface ConnectAgentsResult {
  entries: ServerEntry[];
  files: { client: AgentClientId; file: string; status: FilePlan['status']; changes: FilePlan['changes']; error?: string }[];
  summary: string;
}

const DEFAULT_CLIENTS: readonly AgentClientId[] = ['claude', 'codex', 'cursor', 'gemini'];

export function connectAgents(deps: SetupDeps, own: Own): CommandHandler {
  const showSummary = summaryDocument(own, 'agent-progress-connect', '/Connected agents.md');
  return async (options?: ConnectAgentsOptions): Promise<ConnectAgentsResult | undefined> => {
    const opts: ConnectAgentsOptions = options && typeof options === 'object' ? options : {};
    const folder = folderToWrite("the agents' configuration is");
    if (!folder) return undefined;
    const settings = readSettings();
    if (settings.toolsets.length === 0) {
      void vscode.window.showWarningMessage('Agent Progress: no toolset is enabled (setting agentProgress.toolsets); enable one and run the command again.');
      return undefined;
    }

    let clients = Array.isArray(opts.clients) ? opts.clients.filter((c) => AGENT_CLIENTS.some((a) => a.id === c)) : undefined;
    if (!clients) {
      const picked = await vscode.window.showQuickPick(
        AGENT_CLIENTS.map((c) => ({ label: c.label, description: c.file, detail: c.detail, picked: DEFAULT_CLIENTS.includes(c.id), id: c.id })),
        { title: 'Connect Other Agents', placeHolder: 'The agents to configure for this workspace', canPickMany: true, ignoreFocusOut: true },
      );
      if (!picked || picked.length === 0) return undefined;
      clients = picked.map((p) => p.id);
    }

    const workspace = folder.fsPath;
    const node = agentNode();
    const extraEnv: Record<string, string> = {};
    if (settings.summaryBaseUrl) extraEnv.OPENAI_BASE_URL = settings.summaryBaseUrl;
    if (settings.summaryModel) extraEnv.AGENT_PROGRESS_MODEL = settings.summaryModel;
    if (settings.toolsets.includes('traces')) Object.assign(extraEnv, deps.traces.serverEnv());
    const input: ConnectInput = {
      serverScript: serverScript(deps.context.extensionPath),
      node: { command: node.command, env: node.env },
      ledgerPath: deps.host.ledgerPath,
      ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}),
      workspace,
      projectId: defaultProjectId(workspace),
      toolsets: settings.toolsets,
      extraEnv,
    };
    const entries = serverEntries(input);
    const chosen = AGENT_CLIENTS.filter((c) => clients.includes(c.id));
    const plan = (replace: boolean): FilePlan[] => chosen.map((c) => planClient(c, workspace, readIfExists(vscode.Uri.joinPath(folder, c.file).fsPath), entries, replace));

    let plans = plan(false);
    const conflicts = foreignConflicts(plans);
    let replace = opts.replace;
    if (conflicts.length > 0 && replace === undefined) {
      const list = conflicts.map((c) => `${c.file}: "${c.name}" runs ${c.foreign}`).join('\n');
      const answer = await vscode.window.showWarningMessage(
        'Some files already name a different server "agent-progress". Replace it with this workspace\'s ledger?',
        { modal: true, detail: list },
        'Replace',
        'Keep Theirs',
      );
      if (answer === undefined) return undefined;
      replace = answer === 'Replace';
    }
    if (replace) plans = plan(true);

    applyPlans(plans);
    const summary = describePlans(plans, entries, input);
    deps.logger.info(`Connect Other Agents: ${plans.map((p) => `${p.client.file} ${p.status}`).join(', ')}`);
    const errors = plans.filter((p) => p.error);
    if (errors.length > 0) void vscode.window.showErrorMessage(`Agent Progress: ${errors.map((p) => p.error).join(' ')}`);
    if (opts.show !== false) {
      await showSummary(summary);
      const written = plans.filter((p) => p.status === 'create' || p.status === 'update').map((p) => p.client.file);
      // Hooks are offered, never written from here: their own command shows the diff first.
      void vscode.window
        .showInformationMessage(
          written.length > 0
            ? `Agent Progress: wrote ${written.join(', ')}. Agents started in this folder now log to the ledger the sidebar shows.`
            : "Agent Progress: the agents' configuration was already up to date.",
          'Add Agent Hooks…',
        )
        .then((choice) => (choice ? vscode.commands.executeCommand(CommandIds.connectAgentHooks) : undefined));
    }
    return {
      entries,
      files: plans.map((p) => ({ client: p.client.id, file: p.file, status: p.status, changes: p.changes, ...(p.error ? { error: p.error } : {}) })),
      summary,
    };
  };
}
