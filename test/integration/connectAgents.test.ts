// Inside a real VS Code: Connect Other Agents writes Claude Code's, Codex's, Cursor's and Gemini
// CLI's configs into a workspace whose files already name other servers; each written config is
// then launched exactly as its client launches it (command, args and env from the file) with a
// real MCP client, and what each agent logs appears in the extension's Progress Log.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import type { ConnectAgentsResult } from '../../src/extension/setup/commands/connectAgents';
import { CommandIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import type { ProgressLogNode } from '../../src/extension/progressLog/progressLogItems';
import { connectLaunch, readLaunch } from '../helpers/agentClients';
import { EXTENSION_ID, until } from './util';

const CLIENTS = ['claude', 'codex', 'cursor', 'gemini'] as const;
const MADE = ['.mcp.json', '.codex', '.cursor', '.gemini'];

describe('Connect Other Agents in VS Code', function () {
  this.timeout(180_000);
  let api: AgentProgressApi;
  let workspace: string;

  before(async () => {
    api = await vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!.activate();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    for (const f of MADE) assert.equal(fs.existsSync(path.join(workspace, f)), false, `${f} is not there before the test`);
    fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', args: ['serve'] } } }, null, 2));
    fs.mkdirSync(path.join(workspace, '.codex'));
    fs.writeFileSync(path.join(workspace, '.codex', 'config.toml'), '# team defaults\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n');
    fs.mkdirSync(path.join(workspace, '.cursor'));
    fs.writeFileSync(
      path.join(workspace, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { 'agent-progress': { command: 'python', args: ['their-own.py'] } }, theme: 'dark' }),
    );
  });

  after(() => {
    for (const f of MADE) fs.rmSync(path.join(workspace, f), { recursive: true, force: true });
  });

  it('merges into the files, keeping their other servers, and leaves a different agent-progress entry unless told', async () => {
    const kept = await vscode.commands.executeCommand<ConnectAgentsResult>(CommandIds.connectAgents, { clients: [...CLIENTS], replace: false, show: false });
    assert.ok(kept, 'the command answers');
    assert.deepEqual(
      kept.files.map((f) => [f.client, f.status]),
      [
        ['claude', 'update'],
        ['codex', 'update'],
        ['cursor', 'update'],
        ['gemini', 'create'],
      ],
    );
    const cursorKept = kept.files.find((f) => f.client === 'cursor')!;
    assert.deepEqual(
      cursorKept.changes.map((c) => [c.name, c.status]),
      [
        ['agent-progress', 'kept'],
        ['agent-progress-workflow', 'added'],
      ],
    );
    assert.match(kept.summary, /`agent-progress`: left as it was: a different server of that name is there \(`python their-own\.py`\)/);

    const replaced = await vscode.commands.executeCommand<ConnectAgentsResult>(CommandIds.connectAgents, { clients: [...CLIENTS], replace: true, show: false });
    assert.deepEqual(
      replaced!.files.map((f) => f.status),
      ['unchanged', 'unchanged', 'update', 'unchanged'],
    );

    const claude = JSON.parse(fs.readFileSync(path.join(workspace, '.mcp.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    assert.deepEqual(Object.keys(claude.mcpServers), ['github', 'agent-progress', 'agent-progress-workflow']);
    assert.equal(claude.mcpServers['agent-progress']!.env.AGENT_PROGRESS_DB_PATH, api.ledgerPath, 'the ledger the sidebar shows');
    // Node options (src/core/leanNode.ts), then the script.
    assert.equal(
      claude.mcpServers['agent-progress']!.args.find((a) => !a.startsWith('-')),
      path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'server.js'),
    );
    assert.match(
      fs.readFileSync(path.join(workspace, '.codex', 'config.toml'), 'utf8'),
      /^# team defaults\nmodel = "o3"\n\n\[mcp_servers\.docs\]\ncommand = "docs-mcp"\n\n\[mcp_servers\.agent-progress\]\n/,
    );
    const cursor = JSON.parse(fs.readFileSync(path.join(workspace, '.cursor', 'mcp.json'), 'utf8')) as { theme: string; mcpServers: Record<string, { command: string }> };
    assert.equal(cursor.theme, 'dark');
    assert.notEqual(cursor.mcpServers['agent-progress']!.command, 'python');

    // Run as a person would (without show: false): the summary opens, read-only, as Markdown.
    await vscode.commands.executeCommand(CommandIds.connectAgents, { clients: [...CLIENTS], replace: false });
    const editor = await until(() => vscode.window.activeTextEditor?.document.uri.scheme === 'agent-progress-connect' && vscode.window.activeTextEditor, 'the summary to open');
    assert.equal(editor.document.languageId, 'markdown');
    assert.match(editor.document.getText(), /## Claude Code: `\.mcp\.json` unchanged\n\n- `agent-progress`: already up to date/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('runs each written config as its client would, and what the agents log shows in the Progress Log', async () => {
    const titles: string[] = [];
    for (const client of CLIENTS) {
      const launch = readLaunch(client, workspace, 'agent-progress');
      const mcp = await connectLaunch(launch, workspace, `${client}-as-configured`);
      try {
        const title = `Logged by ${client} through its own config`;
        const r = (await mcp.callTool({
          name: 'log_progress',
          arguments: { projectId: 'connected-agents', title, content: `${launch.command} ${launch.args.join(' ')}`, agentId: client },
        })) as CallToolResult;
        assert.notEqual(r.isError, true, JSON.stringify(r.content));
        titles.push(title);
      } finally {
        await mcp.close();
      }
    }
    const provider = api.deps.progressLog;
    const project = await until(async () => {
      const roots = await provider.getChildren();
      return roots.find((n): n is Extract<ProgressLogNode, { kind: 'project' }> => n.kind === 'project' && n.project.projectId === 'connected-agents');
    }, "the agents' project in the Progress Log");
    const shown = await until(async () => {
      const entries = (await provider.getChildren(project)).flatMap((n) => (n.kind === 'entry' ? [n.entry.title] : []));
      return titles.every((t) => entries.includes(t)) && entries;
    }, "every agent's entry in the Progress Log");
    assert.deepEqual([...shown].sort(), [...titles].sort());
  });
});
