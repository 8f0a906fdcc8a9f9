// Agent Progress: Connect Agent Hooks: writes Claude Code's and Gemini CLI's hooks (the project's
// latest entries at session start, a digest when the agent stops) and, opt-in, a section of
// AGENTS.md or .github/copilot-instructions.md telling agents when to log. The diff of every file
// is shown first, and nothing is written until the person chooses Write.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandHandler, Own } from '../../feature';
import { defaultProjectId } from '../../../core/projectId';
import { applyPlans } from '../../connect/agentConfigs';
import { describeHookPlans, HOOK_TARGETS, planHooks, type HookInput, type HookPlan, type HookTargetId } from '../../connect/agentHooks';
import type { SetupDeps } from '../feature';
import { agentNode, folderToWrite, readIfExists, summaryDocument } from '../connectFiles';
import { readDigestSettings, readSettings } from '../../settings';

/** Arguments for scripts and tests: no quick pick or question when given. */
export interface ConnectAgentHooksOptions {
  targets?: HookTargetId[];
  /** Write without asking (tests); false: only show the diff. */
  write?: boolean;
  show?: boolean;
}

export interface ConnectAgentHooksResult {
  files: { target: HookTargetId; file: string; status: HookPlan['status']; error?: string }[];
  summary: string;
  written: boolean;
}

export function connectAgentHooks(deps: SetupDeps, own: Own): CommandHandler {
  const showSummary = summaryDocument(own, 'agent-progress-hooks', '/Agent hooks.md');
  return async (options?: ConnectAgentHooksOptions): Promise<ConnectAgentHooksResult | undefined> => {
    const opts: ConnectAgentHooksOptions = options && typeof options === 'object' ? options : {};
    const folder = folderToWrite('hooks are');
    if (!folder) return undefined;
    let targets = Array.isArray(opts.targets) ? opts.targets.filter((t) => HOOK_TARGETS.some((h) => h.id === t)) : undefined;
    if (!targets) {
      const picked = await vscode.window.showQuickPick(
        HOOK_TARGETS.map((t) => ({ label: t.label, description: t.file, detail: t.detail, picked: t.picked, id: t.id })),
        { title: 'Connect Agent Hooks', placeHolder: 'Codex has no session hooks: its sessions are digested when idle', canPickMany: true, ignoreFocusOut: true },
      );
      if (!picked || picked.length === 0) return undefined;
      targets = picked.map((p) => p.id);
    }
    const workspace = folder.fsPath;
    const node = agentNode();
    const settings = readSettings();
    const digest = readDigestSettings();
    const input: HookInput = {
      node: { command: node.command, env: node.env },
      cliScript: path.join(deps.context.extensionPath, 'dist', 'cli.js'),
      ledgerPath: deps.host.ledgerPath,
      ...(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {}),
      projectId: defaultProjectId(workspace),
      excludeProviders: digest.excludeProviders,
      excludeFolders: digest.excludeFolders,
    };
    const plans = HOOK_TARGETS.filter((t) => targets.includes(t.id)).map((t) => planHooks(t, workspace, readIfExists(path.join(workspace, t.file)), input));
    const summary = describeHookPlans(plans);
    if (opts.show !== false) {
      await showSummary(summary);
    }
    const writable = plans.filter((p) => p.status === 'create' || p.status === 'update');
    let write = opts.write;
    if (write === undefined && writable.length > 0) {
      const answer = await vscode.window.showInformationMessage(`Write ${writable.map((p) => p.target.file).join(', ')} as shown?`, { modal: true }, 'Write');
      write = answer === 'Write';
    }
    if (write) {
      applyPlans(writable);
      deps.logger.info(`Connect Agent Hooks: ${plans.map((p) => `${p.target.file} ${p.status}`).join(', ')}`);
      if (writable.length > 0)
        void vscode.window.showInformationMessage(`Agent Progress: wrote ${writable.map((p) => p.target.file).join(', ')}. Start the agent in this folder to use them.`);
    }
    const errors = plans.filter((p) => p.error);
    if (errors.length > 0) void vscode.window.showErrorMessage(`Agent Progress: ${errors.map((p) => p.error).join(' ')}`);
    return {
      files: plans.map((p) => ({ target: p.target.id, file: p.file, status: p.status, ...(p.error ? { error: p.error } : {}) })),
      summary,
      written: write === true && writable.length > 0,
    };
  };
}
