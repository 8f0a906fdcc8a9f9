// Inside a real VS Code (named to run after extension.test.ts, which checks the ledger is still
// closed at first): a Claude Code session of this workspace is counted in the status bar while it
// is busy, and once idle (a short idle setting) its digest shows in the Progress Log with its own
// icon; Digest Sessions Now writes nothing twice; the entry page knows its session.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import type { ProgressLogNode } from '../../src/extension/progressLog/progressLogItems';
import { digestSessionOf } from '../../src/extension/progressLog/entryPanels';
import { appendClaudeTurn } from '../helpers/digestSessions';
import { EXTENSION_ID, until } from './util';

const SESSION = '5e55a0d1-7c1b-4d2e-9f00-d16e57ab1e01';

describe('Session digests in VS Code', function () {
  this.timeout(120_000);
  let api: AgentProgressApi;
  let claudeHome: string;
  const config = () => vscode.workspace.getConfiguration('agentProgress');

  before(async () => {
    api = await vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!.activate();
    claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-itest-digest-'));
  });

  after(async () => {
    for (const key of ['sessionDigests.enabled', 'sessionDigests.idleMinutes']) await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('traces.claudeHome', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(claudeHome, { recursive: true, force: true });
  });

  it('counts a busy session in the status bar, then shows its digest in the Progress Log once it is idle', async () => {
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const dir = path.join(claudeHome, 'projects', workspace.replace(/[^A-Za-z0-9]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    appendClaudeTurn(path.join(dir, `${SESSION}.jsonl`), {
      sessionId: SESSION,
      cwd: workspace,
      at: new Date(Date.now() - 4000),
      prompt: 'Add a coupon field to the cart',
      calls: [{ name: 'Edit', input: { file_path: path.join(workspace, 'src', 'cart.ts'), old_string: 'a', new_string: 'b' } }],
    });
    await config().update('traces.claudeHome', claudeHome, vscode.ConfigurationTarget.Global);
    // First a long idle time: the session is busy, so it is counted and not digested.
    await config().update('sessionDigests.idleMinutes', 60, vscode.ConfigurationTarget.Workspace);
    await config().update('sessionDigests.enabled', true, vscode.ConfigurationTarget.Workspace);
    const ticker = api.deps.digests;
    await until(() => ticker.visible && ticker.item.text === '$(history) 1', 'the status bar counting one session not yet digested', 60_000);
    assert.match(String(ticker.item.tooltip), /^1 agent session of this workspace not yet digested/);
    const projectId = path.basename(workspace);
    const digestsIn = async () => (await (await api.deps.host.progress()).listEntries(projectId, { tags: ['auto'], limit: 10 })).entries;
    assert.deepEqual(await digestsIn(), []);

    // Then a short idle time (3 s): the periodic tick digests it, and the Progress Log shows it.
    await config().update('sessionDigests.idleMinutes', 0.05, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand(`${ViewIds.progressLog}.focus`);
    const provider = api.deps.progressLog;
    const row = await until(
      async () => {
        const project = (await provider.getChildren()).find((n) => n.kind === 'project' && n.project.projectId === projectId);
        const node = project && (await provider.getChildren(project)).find((n) => n.kind === 'entry' && n.entry.tags.includes('auto'));
        return node ? { node: node as Extract<ProgressLogNode, { kind: 'entry' }>, item: provider.getTreeItem(node) } : undefined;
      },
      'the digest in the Progress Log',
      60_000,
    );
    assert.equal(row.item.label, 'Add a coupon field to the cart');
    assert.equal((row.item.iconPath as vscode.ThemeIcon).id, 'history');
    const entry = await (await api.deps.host.progress()).showEntry(row.node.entry.id);
    assert.equal(entry.agentId, `claude_code:${SESSION.slice(0, 8)}`);
    assert.match(entry.content, /\*\*Files written or edited \(1\):\*\*\n- src\/cart\.ts/);
    assert.equal(digestSessionOf(entry), SESSION);
    await until(() => !ticker.visible, 'the status bar hiding once every session is digested', 30_000);

    const again = (await vscode.commands.executeCommand(CommandIds.digestSessions)) as { written: unknown[] } | undefined;
    assert.deepEqual(again?.written, []);
    assert.equal((await digestsIn()).length, 1);
  });

  it("Connect Agent Hooks shows the diff without writing, then merges the hooks into Claude Code's existing settings", async () => {
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const file = path.join(workspace, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const before = JSON.stringify({ permissions: { allow: ['Bash(npm test)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }, null, 2);
    fs.writeFileSync(file, before);
    try {
      const shown = (await vscode.commands.executeCommand(CommandIds.connectAgentHooks, { targets: ['claude'], write: false, show: false })) as {
        written: boolean;
        summary: string;
      };
      assert.equal(shown.written, false);
      assert.equal(fs.readFileSync(file, 'utf8'), before);
      assert.match(shown.summary, /```diff\n[\s\S]*\+ +"SessionStart": \[/);
      const done = (await vscode.commands.executeCommand(CommandIds.connectAgentHooks, { targets: ['claude'], write: true, show: false })) as { written: boolean };
      assert.equal(done.written, true);
      const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { permissions: unknown; hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
      assert.deepEqual(settings.permissions, { allow: ['Bash(npm test)'] });
      assert.equal(settings.hooks.Stop![0]!.hooks[0]!.command, 'say done');
      assert.match(settings.hooks.Stop![1]!.hooks[0]!.command, /dist\/cli\.js'? --db .* hook$/);
      assert.equal(settings.hooks.SessionStart![0]!.matcher, 'startup|resume|clear|compact');
    } finally {
      fs.rmSync(path.join(workspace, '.claude'), { recursive: true, force: true });
    }
  });
});
