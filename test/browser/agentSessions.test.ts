// Agent Sessions in a real VS Code window (code-server + headless Chromium), driven as a person
// would: the tree of sessions, a session's timeline with its failed tool call highlighted, hostile
// transcript text inert, search from the command palette. Screenshots in .test-results/screenshots/.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Frame, Page } from 'playwright-core';

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, '.test-results', 'screenshots');
const fixtures = path.join(root, 'test', 'fixtures', 'traces', 'home');

interface CodeServer {
  port: number;
  runDir: string;
  stop(opts?: object): Promise<{ left: unknown[] }>;
}
interface Harness {
  startCodeServer(options: object): Promise<CodeServer>;
  launchChromium(server: CodeServer): Promise<Browser>;
  workbenchUrl(server: CodeServer, options: object): string;
  cleanupReport(result: object): { ok: boolean; line: string };
}

describe('Agent Sessions in a VS Code window', function () {
  this.timeout(240_000);
  let harness: Harness;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;

  async function shot(name: string, selector?: string): Promise<void> {
    await page.mouse.move(700, 897);
    const file = path.join(shots, `${name}.png`);
    if (selector) await page.locator(selector).first().screenshot({ path: file });
    else await page.screenshot({ path: file });
  }

  /** The inner frame of the webview whose page shows `text` in its h1. */
  async function webviewFrame(text: string): Promise<Frame> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      for (const frame of page.frames()) {
        const found = await frame.locator('h1', { hasText: text }).count().catch(() => 0);
        if (found > 0) return frame;
      }
      if (Date.now() > deadline) throw new Error(`no webview shows "${text}"`);
      await page.waitForTimeout(250);
    }
  }

  async function command(title: string): Promise<void> {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input').first();
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click();
  }

  before(async function () {
    harness = (await import(pathToFileURL(path.join(root, 'scripts', 'vscode', 'codeServer.mjs')).href)) as Harness;
    fs.mkdirSync(shots, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-browser-traces-'));
    // Claude's folder: the fixtures plus a session whose agent wrote hostile text.
    const claude = path.join(dir, 'claude');
    fs.cpSync(path.join(fixtures, '.claude'), claude, { recursive: true });
    const hostileId = 'bbbbbbbb-1111-4222-8333-444444444444';
    const projectDir = path.join(claude, 'projects', '-home-dev-acme-shop');
    const rec = (type: string, at: string, extra: object) => JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', cwd: '/home/dev/acme-shop', sessionId: hostileId, version: '2.1.140', type, uuid: `${type}-${at}`, timestamp: at, ...extra });
    fs.writeFileSync(
      path.join(projectDir, `${hostileId}.jsonl`),
      [
        rec('user', '2026-05-03T09:00:00.000Z', { message: { role: 'user', content: 'Hostile <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>' } }),
        rec('assistant', '2026-05-03T09:00:02.000Z', { message: { id: 'msg_h', model: 'claude-opus-4-5-20251101', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_h', name: 'Bash', input: { command: '<iframe src="https://example.com"></iframe>' } }], usage: { input_tokens: 1, output_tokens: 1 } }, requestId: 'req_h' }),
        rec('user', '2026-05-03T09:00:03.000Z', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_h', content: '<a href="javascript:window.pwned=3">click</a>', is_error: true }] } }),
      ].join('\n') + '\n',
    );
    const workspace = path.join(dir, 'acme-shop');
    fs.mkdirSync(workspace, { recursive: true });
    server = await harness.startCodeServer({
      runDir: path.join(dir, 'run'),
      userDataDir: path.join(dir, 'run', 'user-data'),
      extensionsDir: path.join(dir, 'run', 'extensions'),
      workspace,
      devMode: true,
      settings: {
        'agentProgress.ledgerPath': path.join(dir, 'ledger', 'data.db'),
        'agentProgress.traces.claudeHome': claude,
        'agentProgress.traces.codexHome': path.join(fixtures, '.codex'),
        'agentProgress.traces.geminiHome': path.join(fixtures, '.gemini'),
        'agentProgress.traces.vscodeUserDir': path.join(fixtures, '.config', 'Code', 'User'),
      },
    });
    browser = await harness.launchChromium(server);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(harness.workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: [root] }));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    if (server) {
      const report = harness.cleanupReport(await server.stop());
      console.log(`      ${report.line}`);
      assert.ok(report.ok, report.line);
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the sessions by provider and project, with turns, tokens and health', async () => {
    await page.locator('.activitybar .action-item [aria-label^="Agent Progress"]').first().click();
    await command('Focus on Agent Sessions View');
    const tree = page.locator('.part.sidebar .pane', { hasText: 'Agent Sessions' });
    await tree.locator('[role=treeitem]', { hasText: 'Claude Code' }).first().waitFor({ timeout: 60_000 });
    for (const provider of ['Claude Code', 'Codex CLI', 'Gemini CLI', 'VS Code Copilot Chat']) await tree.locator('[role=treeitem]', { hasText: provider }).first().waitFor();
    await tree.locator('[role=treeitem]', { hasText: 'Claude Code' }).first().click();
    await tree.locator('[role=treeitem]', { hasText: 'acme-shop' }).first().click();
    const row = tree.locator('[role=treeitem]', { hasText: 'Cart coupon codes' }).first();
    await row.waitFor();
    assert.match(await row.innerText(), /6 turns · 320k tokens · health 92/);
    await shot('agent-sessions', '.part.sidebar');
  });

  it('opens a session as a timeline with its failed tool call highlighted', async () => {
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Cart coupon codes' }).first().click();
    const frame = await webviewFrame('Cart coupon codes');
    assert.equal(await frame.locator('section.turn').count(), 6);
    const failed = frame.locator('button.tool.error');
    assert.equal(await failed.count(), 1);
    assert.match(await failed.innerText(), /✗ Bash npx tsc --noEmit/);
    assert.match(await frame.locator('#turn-1').getAttribute('class') ?? '', /has-failures/);
    await failed.click();
    await frame.locator('.event pre.output', { hasText: 'TS2339' }).waitFor();
    await shot('agent-session', '.part.editor');
  });

  it('keeps a transcript\'s hostile text inert', async () => {
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Hostile' }).first().click();
    const frame = await webviewFrame('Hostile');
    await frame.locator('button.tool.error').click();
    await frame.locator('.event pre.output').waitFor();
    const facts = (await frame.evaluate(`(() => ({
      pwned: window.pwned,
      images: document.querySelectorAll('#app img').length,
      iframes: document.querySelectorAll('#app iframe').length,
      scripts: document.querySelectorAll('#app script').length,
      links: document.querySelectorAll('#app a').length,
      prompt: (document.querySelector('.prompt') || {}).textContent || '',
    }))()`)) as { pwned: unknown; images: number; iframes: number; scripts: number; links: number; prompt: string };
    assert.deepEqual({ pwned: facts.pwned, images: facts.images, iframes: facts.iframes, scripts: facts.scripts, links: facts.links }, { pwned: undefined, images: 0, iframes: 0, scripts: 0, links: 0 });
    assert.match(facts.prompt, /<img src=x onerror="window\.pwned=1">/);
  });

  it('searches every session from the command palette and opens the match', async () => {
    await command('Agent Progress: Search Agent Sessions');
    await page.locator('.quick-input-widget', { hasText: 'Search Agent Sessions' }).waitFor();
    await page.keyboard.type('ECONNREFUSED', { delay: 30 });
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'ECONNREFUSED' }).first();
    await row.waitFor({ timeout: 15_000 });
    assert.match(await row.innerText(), /Codex CLI/);
    await shot('agent-sessions-search');
    await page.keyboard.press('Enter');
    const frame = await webviewFrame('Fix the failing inventory sync job');
    assert.equal(await frame.locator('button.tool.error').count(), 5);
    await shot('agent-session-loop', '.part.editor');
  });
});
