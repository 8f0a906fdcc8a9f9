// Connect Other Agents outside VS Code: configs written into a workspace that already has other
// servers, then each launched exactly as Claude Code, Codex, Cursor, Gemini CLI and VS Code launch
// them (command, args and env from the file) with a real MCP client; what each logs is in the one
// ledger, read back through core as the sidebar reads it. The prompts and resources over stdio too.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '../../src/core/log';
import { Services } from '../../src/core/services';
import { AGENT_CLIENTS, applyPlans, planClient, resolveNode, serverEntries } from '../../src/extension/connect/agentConfigs';
import { connectLaunch, readLaunch } from '../helpers/agentClients';
import { SERVER } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

describe('connect other agents (built server, real processes)', function () {
  this.timeout(120_000);
  useTempDirs();

  it('writes configs that each client starts on the shared ledger, keeping the files\' other servers', async () => {
    const workspace = tempDir('ap-connect-');
    const ledger = path.join(tempDir('ap-ledger-'), 'data.db');
    fs.mkdirSync(path.join(workspace, '.codex'));
    fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', args: ['serve'] } } }, null, 2));
    const codexBefore = '# team settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # ours\n';
    fs.writeFileSync(path.join(workspace, '.codex', 'config.toml'), codexBefore);

    const node = resolveNode({ pathEnv: process.env.PATH, execPath: process.execPath, electron: false, versionOf: (c) => spawnSync(c, ['--version'], { encoding: 'utf8' }).stdout });
    const entries = serverEntries({ serverScript: SERVER, node, ledgerPath: ledger, workspace, projectId: 'shop', toolsets: ['progress', 'queue', 'workflow', 'traces'] });
    const plans = AGENT_CLIENTS.map((c) => planClient(c, workspace, fs.existsSync(path.join(workspace, c.file)) ? fs.readFileSync(path.join(workspace, c.file), 'utf8') : undefined, entries, false));
    assert.deepEqual(plans.map((p) => p.status), ['update', 'update', 'create', 'create', 'create']);
    applyPlans(plans);
    assert.ok(fs.readFileSync(path.join(workspace, '.codex', 'config.toml'), 'utf8').startsWith(codexBefore), 'the Codex file keeps its text');
    assert.equal((JSON.parse(fs.readFileSync(path.join(workspace, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers.github !== undefined, true);

    const titles: string[] = [];
    for (const client of AGENT_CLIENTS) {
      const launch = readLaunch(client.id, workspace, 'agent-progress');
      assert.equal(launch.env.AGENT_PROGRESS_DB_PATH, ledger);
      const mcp = await connectLaunch(launch, workspace, client.id);
      try {
        const tools = (await mcp.listTools()).tools.map((t) => t.name);
        assert.ok(tools.includes('log_progress') && tools.includes('request_task') && tools.includes('list_sessions'), `${client.id}: ${tools.join(', ')}`);
        const title = `Logged from ${client.label}`;
        const r = (await mcp.callTool({ name: 'log_progress', arguments: { projectId: 'shop', title, content: 'through the written config', agentId: client.id } })) as CallToolResult;
        assert.notEqual(r.isError, true);
        titles.push(title);
      } finally {
        await mcp.close();
      }
    }
    // The workflow toolset runs as its own entry (its complete_task collides with the queue's).
    const wf = await connectLaunch(readLaunch('claude', workspace, 'agent-progress-workflow'), workspace, 'claude-workflow');
    try {
      assert.ok((await wf.listTools()).tools.some((t) => t.name === 'start_workflow'));
      assert.deepEqual((await wf.listPrompts()).prompts.map((p) => p.name), ['start_tracked_task']);
    } finally {
      await wf.close();
    }

    const services = new Services({ config: { dbPath: ledger, openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } }, logger: silentLogger, host: false });
    try {
      const listed = await (await services.progress()).listEntries('shop', { limit: 20 });
      assert.deepEqual(listed.entries.map((e) => e.title).sort(), [...titles].sort());
    } finally {
      await services.close();
    }
  });

  it('serves prompts and resources over stdio', async () => {
    const workspace = tempDir('ap-connect-');
    const ledger = path.join(workspace, 'ledger', 'data.db');
    const entries = serverEntries({ serverScript: SERVER, node: { command: process.execPath, env: {} }, ledgerPath: ledger, workspace, projectId: 'shop', toolsets: ['progress'] });
    const mcp = await connectLaunch(entries[0]!.launch, workspace, 'e2e');
    try {
      const r = (await mcp.callTool({ name: 'log_progress', arguments: { projectId: 'shop', title: 'Wired checkout', content: 'Details' } })) as CallToolResult;
      const id = (r.structuredContent as { id: string }).id;
      const prompt = await mcp.getPrompt({ name: 'resume_from_log', arguments: {} });
      assert.match((prompt.messages[0]!.content as { text: string }).text, new RegExp(`${id} .*Wired checkout`));
      const list = await mcp.listResources();
      assert.deepEqual(list.resources.map((x) => x.uri), [`agent-progress://entry/${id}`]);
      const read = await mcp.readResource({ uri: `agent-progress://entry/${id}` });
      assert.match((read.contents[0] as { text: string }).text, /^# Wired checkout\n[\s\S]*Details$/);
    } finally {
      await mcp.close();
    }
  });
});
