// Agent Progress: Show Logs: the extension's output channel, or the output VS Code keeps for one
// of the bundled MCP servers (their stderr: startup, the ledger they opened, warnings, errors).

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { SetupDeps } from '../feature';
import { readSettings } from '../../settings';
import { serverLabel } from '../../mcpServerProvider';

/** VS Code's id for a server an extension's provider defines: <extension id, lower case>/<label>. */
export function mcpServerDefinitionId(extensionId: string, label: string): string {
  return `${extensionId.toLowerCase()}/${label}`;
}

export function showLog(deps: SetupDeps): CommandHandler {
  return async (which?: unknown) => {
    const servers = readSettings().toolsets.map((toolset) => serverLabel(toolset));
    let choice = typeof which === 'string' ? which : undefined;
    if (choice === undefined) {
      const picked = await vscode.window.showQuickPick(
        [
          { label: 'Agent Progress', description: 'the extension: views, summaries, the ledger it reads', value: 'extension' },
          ...servers.map((label) => ({ label: `MCP server ${label}`, description: 'what VS Code captured from the server (its stderr)', value: label })),
        ],
        { title: 'Agent Progress: Show Logs', placeHolder: 'Whose log?' },
      );
      choice = picked?.value;
    }
    if (choice === undefined) return;
    if (choice === 'extension') {
      try {
        deps.logger.info(await deps.host.hostLine());
      } catch (err) {
        deps.logger.warn(`Ledger host: ${err instanceof Error ? err.message : String(err)}`);
      }
      deps.output.show();
      return;
    }
    await vscode.commands.executeCommand('workbench.mcp.showOutput', mcpServerDefinitionId(deps.context.extension.id, choice));
  };
}
