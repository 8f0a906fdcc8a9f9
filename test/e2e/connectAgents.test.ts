// Connect Other Agents outside VS Code: configs written into a workspace that already has other
// servers, then each launched exactly as Claude Code, Codex, Cursor, Gemini CLI and VS Code launch
// them (command, args and env from the file) with a real MCP client; what each logs is in the one
// ledger, read back through core as the sidebar reads it. The prompts and resources over stdio too.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { silentLogger } from '../../src/core/log';
import { Services } from '../../src/core/services';
import { AGENT_CLIENTS, applyPlans, describePlans, planClient, resolveNode, serverEntries } from '../../src/extension/connect/agentConfigs';
import { connectLaunch, readLaunch } from '../helpers/agentClients';
import { failOnCi } from '../helpers/ci';
import { SERVER } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

describe('connect other agents (built server, real processes)', function () {
  this.timeout(120_000);
  useTempDirs();

  it("writes configs that each client starts on the shared ledger, keeping the files' other servers", async () => {
    const workspace = tempDir('ap-connect-');
    const ledger = path.join(tempDir('ap-ledger-'), 'data.db');
    fs.mkdirSync(path.join(workspace, '.codex'));
    fs.writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', args: ['serve'] } } }, null, 2));
    const codexBefore = '# team settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # ours\n';
    fs.writeFileSync(path.join(workspace, '.codex', 'config.toml'), codexBefore);

    const node = resolveNode({
      pathEnv: process.env.PATH,
      execPath: process.execPath,
      electron: false,
      versionOf: (c) => spawnSync(c, ['--version'], { encoding: 'utf8' }).stdout,
    });
    const entries = serverEntries({ serverScript: SERVER, node, ledgerPath: ledger, workspace, projectId: 'shop', toolsets: ['progress', 'queue', 'workflow', 'traces'] });
    const plans = AGENT_CLIENTS.map((c) =>
      planClient(c, workspace, fs.existsSync(path.join(workspace, c.file)) ? fs.readFileSync(path.join(workspace, c.file), 'utf8') : undefined, entries, false),
    );
    assert.deepEqual(
      plans.map((p) => p.status),
      ['update', 'update', 'create', 'create', 'create'],
    );
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
        const r = (await mcp.callTool({
          name: 'log_progress',
          arguments: { projectId: 'shop', title, content: 'through the written config', agentId: client.id },
        })) as CallToolResult;
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
      assert.deepEqual(
        (await wf.listPrompts()).prompts.map((p) => p.name),
        ['start_tracked_task'],
      );
    } finally {
      await wf.close();
    }

    const services = new Services({
      config: { dbPath: ledger, openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
      logger: silentLogger,
      host: false,
    });
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
      assert.deepEqual(
        list.resources.map((x) => x.uri),
        [`agent-progress://entry/${id}`],
      );
      const read = await mcp.readResource({ uri: `agent-progress://entry/${id}` });
      assert.match((read.contents[0] as { text: string }).text, /^# Wired checkout\n[\s\S]*Details$/);
    } finally {
      await mcp.close();
    }
  });

  it("merges into a JSONC file in place: comments, trailing commas and other servers' strings stay as written", async () => {
    const workspace = tempDir('ap-connect-');
    const ledger = path.join(tempDir('ap-ledger-'), 'data.db');
    const file = path.join(workspace, '.vscode', 'mcp.json');
    fs.mkdirSync(path.dirname(file));
    const before = [
      '{',
      '  // Team servers: ask in #tools before changing',
      '  "servers": {',
      '    "shell": {',
      '      "command": "sh",',
      '      "args": ["-c", "echo a, }", "x ,]"], /* keep this */',
      '    },',
      '  },',
      '  "inputs": [],',
      '}',
      '',
    ].join('\n');
    fs.writeFileSync(file, before);
    const vscode = AGENT_CLIENTS.find((c) => c.id === 'vscode')!;
    const entries = serverEntries({ serverScript: SERVER, node: { command: process.execPath, env: {} }, ledgerPath: ledger, workspace, projectId: 'shop', toolsets: ['progress'] });
    const plans = [planClient(vscode, workspace, fs.readFileSync(file, 'utf8'), entries, false)];
    assert.equal(plans[0]!.status, 'update');
    applyPlans(plans);
    const after = fs.readFileSync(file, 'utf8');
    for (const line of ['  // Team servers: ask in #tools before changing', '      "args": ["-c", "echo a, }", "x ,]"], /* keep this */', '  "inputs": [],']) {
      assert.ok(after.includes(line), `kept: ${line}\n${after}`);
    }
    // Read as VS Code reads it.
    const errors: ParseError[] = [];
    const servers = (parseJsonc(after, errors, { allowTrailingComma: true }) as { servers: Record<string, { args: string[] }> }).servers;
    assert.deepEqual(errors, []);
    assert.deepEqual(servers.shell!.args, ['-c', 'echo a, }', 'x ,]']);
    // VS Code starts what was written.
    const mcp = await connectLaunch(readLaunch('vscode', workspace, 'agent-progress'), workspace, 'vscode');
    try {
      assert.ok((await mcp.listTools()).tools.some((t) => t.name === 'log_progress'));
    } finally {
      await mcp.close();
    }
    assert.equal(planClient(vscode, workspace, after, entries, false).status, 'unchanged', 'a second run changes nothing');
  });

  it('refuses a Codex config whose mcp_servers is an inline table, writing nothing, rather than leave invalid TOML', () => {
    const workspace = tempDir('ap-connect-');
    const file = path.join(workspace, '.codex', 'config.toml');
    fs.mkdirSync(path.dirname(file));
    const before = 'model = "o3"\nmcp_servers = { docs = { command = "docs-mcp", args = ["serve"] } }\n';
    fs.writeFileSync(file, before);
    const codex = AGENT_CLIENTS.find((c) => c.id === 'codex')!;
    const entries = serverEntries({
      serverScript: SERVER,
      node: { command: process.execPath, env: {} },
      ledgerPath: path.join(workspace, 'data.db'),
      workspace,
      projectId: 'shop',
      toolsets: ['progress'],
    });
    const plan = planClient(codex, workspace, fs.readFileSync(file, 'utf8'), entries, false);
    assert.equal(plan.status, 'error');
    assert.match(plan.error!, /^\.codex[\\/]config\.toml defines mcp_servers inline \(mcp_servers = \{ \.\.\. \}\).*write each server as its own \[mcp_servers\.<name>\] table/);
    applyPlans([plan]);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the file is left as it was');
    assert.match(
      describePlans([plan], entries, { ledgerPath: 'x', node: { command: 'node', env: {} }, serverScript: SERVER }),
      /not changed \(error\)\n\n\.codex[\\/]config\.toml defines mcp_servers inline/,
    );

    // A file that is not TOML at all is refused too; one in tables is merged and reads back as TOML.
    const broken = planClient(codex, workspace, 'model = \n', entries, false);
    assert.equal(broken.status, 'error');
    const tables = planClient(codex, workspace, 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n', entries, false);
    assert.equal(tables.status, 'update');
    const py = spawnSync('python3', ['-c', 'import sys, tomllib, json; print(json.dumps(sorted(tomllib.loads(sys.stdin.read())["mcp_servers"])))'], {
      input: tables.after,
      encoding: 'utf8',
    });
    if (py.error) failOnCi('python3 is not installed, but CI must check the TOML with a real parser: apt-get install -y python3 (see .ci/run).');
    else {
      assert.equal(py.status, 0, `python3 could not parse the merged TOML: ${py.stderr}`);
      assert.deepEqual(JSON.parse(py.stdout), ['agent-progress', 'docs']);
    }
  });
});
