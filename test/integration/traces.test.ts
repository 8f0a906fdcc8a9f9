// Inside a real VS Code (named to run after extension.test.ts, which checks the ledger is still
// closed at first): the Agent Sessions view on the shared fixtures (settings point at them),
// refreshed by itself when a transcript appears, a session page with its failed tool calls,
// search across sessions from the command palette, and a ledger entry opening its transcript.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import type { AgentSessionsNode } from '../../src/extension/sessions/agentSessionsItems';
import { EXTENSION_ID, until } from './util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..');
const fixtures = path.join(root, 'test', 'fixtures', 'traces', 'home');
const C1 = '3c02559b-3c42-4cdd-b64e-2ec636ec8a8f';
const X2 = '019e0165-cb8d-785e-ab4d-9a0f69dd2422';

function claudeRecord(sessionId: string, cwd: string, type: 'user' | 'assistant', at: Date, extra: Record<string, unknown>): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId,
    version: '2.1.140',
    type,
    uuid: `${type}-${at.getTime()}`,
    timestamp: at.toISOString(),
    ...extra,
  });
}

describe('Agent Sessions in VS Code', function () {
  this.timeout(120_000);
  let api: AgentProgressApi;
  let claudeHome: string;
  const config = () => vscode.workspace.getConfiguration('agentProgress');

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!;
    api = await extension.activate();
    // Claude's folder is a copy (the test adds transcripts to it); the others read the fixtures in place.
    claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-itest-claude-'));
    fs.cpSync(path.join(fixtures, '.claude'), claudeHome, { recursive: true });
    await config().update('traces.claudeHome', claudeHome, vscode.ConfigurationTarget.Global);
    await config().update('traces.codexHome', path.join(fixtures, '.codex'), vscode.ConfigurationTarget.Global);
    await config().update('traces.geminiHome', path.join(fixtures, '.gemini'), vscode.ConfigurationTarget.Global);
    await config().update('traces.vscodeUserDir', path.join(fixtures, '.config', 'Code', 'User'), vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    for (const key of ['traces.claudeHome', 'traces.codexHome', 'traces.geminiHome', 'traces.vscodeUserDir'])
      await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(claudeHome, { recursive: true, force: true });
  });

  async function sessionsInTree(): Promise<Map<string, { node: AgentSessionsNode; item: vscode.TreeItem }>> {
    const provider = api.deps.agentSessions;
    const out = new Map<string, { node: AgentSessionsNode; item: vscode.TreeItem }>();
    for (const p of await provider.getChildren()) {
      for (const project of await provider.getChildren(p)) {
        for (const s of await provider.getChildren(project)) if (s.kind === 'session') out.set(s.session.id, { node: s, item: provider.getTreeItem(s) });
      }
    }
    return out;
  }

  it('shows provider, project and sessions with turns, tokens and health', async () => {
    await vscode.commands.executeCommand(`${ViewIds.agentSessions}.focus`);
    const provider = api.deps.agentSessions;
    const roots = await until(async () => {
      const r = await provider.getChildren();
      return r.length === 4 && r;
    }, 'four providers in the Agent Sessions view');
    assert.deepEqual(
      roots.map((n) => provider.getTreeItem(n).label),
      ['Claude Code', 'Codex CLI', 'Gemini CLI', 'VS Code Copilot Chat'],
    );
    const projects = await provider.getChildren(roots[0]);
    assert.deepEqual(
      projects.map((n) => provider.getTreeItem(n).label),
      ['acme-shop'],
    );
    const rows = await sessionsInTree();
    assert.equal(rows.size, 8);
    const c1 = rows.get(C1)!.item;
    assert.equal(c1.label, 'Cart coupon codes: applyCoupon(), tests, README');
    assert.match(String(c1.description), /^6 turns · 320k tokens · health 92 · /);
    assert.equal((c1.iconPath as vscode.ThemeIcon).id, 'pass');
    assert.equal((rows.get(X2)!.item.iconPath as vscode.ThemeIcon).id, 'error');
  });

  it('opens a session page with its turns as a timeline and its failed tool calls marked', async () => {
    const opened = await vscode.commands.executeCommand<boolean>(CommandIds.openAgentSession, { id: C1 });
    assert.equal(opened, true);
    const page = await until(() => api.deps.sessionPanels.pageOf(C1), 'the session page');
    assert.equal(page.turns.length, 6);
    assert.equal(page.session.score, 92);
    const failed = page.turns.flatMap((t) => t.steps.flatMap((s) => s.tools)).filter((t) => t.status === 'error');
    assert.deepEqual(
      failed.map((t) => t.label),
      ['Bash npx tsc --noEmit'],
    );
    assert.deepEqual(
      page.children.map((c) => c.id),
      ['agent-a7f3c21'],
    );
    const tab = await until(
      () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith('Cart coupon codes')),
      'the session tab',
    );
    assert.ok(tab);
  });

  it('searches across sessions from the command palette and opens the session at the event', async () => {
    // The query as the command's argument: in a fresh profile the window may overwrite a value set
    // on a pick it is still opening, so typing and picking through the real UI is left to the
    // browser test (test/browser/agentSessions.test.ts), which types into the palette.
    const { pick } = (await vscode.commands.executeCommand(CommandIds.searchAgentSessions, 'ECONNREFUSED')) as {
      pick: vscode.QuickPick<vscode.QuickPickItem & { match?: { session_id: string; event_index: number } }>;
    };
    const item = await until(() => pick.items.find((i) => i.match?.session_id === X2), 'a result from the Codex sync session', 20_000, 50).catch((err: Error) => {
      throw new Error(
        `${err.message}; the pick shows: ${pick.items
          .map((i) => i.label)
          .join(' | ')
          .slice(0, 600)}`,
      );
    });
    assert.match(item.label, /ECONNREFUSED/);
    assert.match(item.description ?? '', /^Codex CLI · /);
    pick.hide();
    // What accepting the item does: the session's page, scrolled to the event.
    await api.deps.sessionPanels.show(item.match!.session_id, { focusEvent: item.match!.event_index });
    await until(() => api.deps.sessionPanels.openIds.includes(X2), 'the Codex session page', 10_000, 50);
  });

  it('opens a session by a unique prefix, as agents quote ids', async () => {
    assert.equal(await vscode.commands.executeCommand(CommandIds.openAgentSessionById, '9c7f60c1'), true);
    await until(() => api.deps.sessionPanels.openIds.includes('9c7f60c1-3c64-4c18-ab7e-bb9753542852'), 'the page of the prefix');
  });

  it('shows a new transcript by itself, and opens it beside the ledger entry its agent logged', async () => {
    const started = new Date(Date.now() - 60_000);
    const id = 'aaaaaaaa-1111-4222-8333-444444444444';
    const cwd = '/srv/itest/traces-itest';
    const dir = path.join(claudeHome, 'projects', '-srv-itest-traces-itest');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, `${id}.jsonl`),
      [
        claudeRecord(id, cwd, 'user', started, { message: { role: 'user', content: 'Add the itest marker' } }),
        claudeRecord(id, cwd, 'assistant', new Date(started.getTime() + 2000), {
          message: {
            id: 'msg_itest',
            model: 'claude-opus-4-5-20251101',
            role: 'assistant',
            content: [{ type: 'text', text: 'Added.' }],
            usage: { input_tokens: 5, output_tokens: 3 },
          },
          requestId: 'req_itest',
        }),
      ].join('\n') + '\n',
    );
    await until(async () => (await sessionsInTree()).has(id), 'the new session in the view (rescanned while visible)', 20_000, 200);

    const script = path.join(root, 'dist', 'cli.js');
    const { stdout } = await run(process.execPath, [script, 'log', '--project', 'traces-itest', '--title', 'Itest marker added', '--content', 'x', '--json'], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AGENT_PROGRESS_DB_PATH: api.ledgerPath },
    });
    const entry = JSON.parse(stdout) as { id: string; projectId: string; createdAt: string };
    const openedId = await vscode.commands.executeCommand<string>(CommandIds.openTranscriptForEntry, { id: entry.id, projectId: 'traces-itest', createdAt: entry.createdAt });
    assert.equal(openedId, id);
    const page = await until(() => api.deps.sessionPanels.pageOf(id), 'the transcript page');
    await until(
      async () => {
        await vscode.commands.executeCommand(CommandIds.openAgentSession, id);
        return api.deps.sessionPanels.pageOf(id)?.ledger.some((l) => l.id === entry.id);
      },
      'the entry listed on the session page',
      10_000,
      200,
    );
    assert.equal(page.session.turns, 1);
  });
});
