// Agent Sessions in a real VS Code window (code-server + headless Chromium), driven as a person
// would: the tree of sessions, a session's timeline with its failed tool call highlighted, hostile
// transcript text inert, search from the command palette. Screenshots in .test-results/screenshots/.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadHarness, screenshot, type CodeServer, type Harness, webviewFrame, runCommand } from '../helpers/workbench';

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, '.test-results', 'screenshots');
const fixtures = path.join(root, 'test', 'fixtures', 'traces', 'home');

describe('Agent Sessions in a VS Code window', function () {
  this.timeout(240_000);
  let harness: Harness;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;

  const shot = (name: string, selector?: string): Promise<void> => screenshot(page, path.join(shots, `${name}.png`), selector);

  before(async function () {
    harness = await loadHarness();
    fs.mkdirSync(shots, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-browser-traces-'));
    // Claude's folder: the fixtures plus a session whose agent wrote hostile text.
    const claude = path.join(dir, 'claude');
    fs.cpSync(path.join(fixtures, '.claude'), claude, { recursive: true });
    const hostileId = 'bbbbbbbb-1111-4222-8333-444444444444';
    const projectDir = path.join(claude, 'projects', '-home-dev-acme-shop');
    const rec = (type: string, at: string, extra: object) =>
      JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/home/dev/acme-shop',
        sessionId: hostileId,
        version: '2.1.140',
        type,
        uuid: `${type}-${at}`,
        timestamp: at,
        ...extra,
      });
    fs.writeFileSync(
      path.join(projectDir, `${hostileId}.jsonl`),
      [
        rec('user', '2026-05-03T09:00:00.000Z', { message: { role: 'user', content: 'Hostile <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>' } }),
        rec('assistant', '2026-05-03T09:00:02.000Z', {
          message: {
            id: 'msg_h',
            model: 'claude-opus-4-5-20251101',
            role: 'assistant',
            content: [
              { type: 'text', text: '**Checked** the <b>cart</b> **<img src=x onerror="window.pwned=4">**' },
              { type: 'tool_use', id: 'toolu_h', name: 'Bash', input: { command: '<iframe src="https://example.com"></iframe>' } },
            ],
            usage: { input_tokens: 1, output_tokens: 1 },
          },
          requestId: 'req_h',
        }),
        rec('user', '2026-05-03T09:00:03.000Z', {
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_h', content: '<a href="javascript:window.pwned=3">click</a>', is_error: true }] },
        }),
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
    await runCommand(page, 'Focus on Agent Sessions View');
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
    const frame = await webviewFrame(page, 'Cart coupon codes');
    assert.equal(await frame.locator('section.turn').count(), 6);
    const failed = frame.locator('button.tool.error');
    assert.equal(await failed.count(), 1);
    assert.match(await failed.innerText(), /✗ Bash npx tsc --noEmit/);
    assert.match((await frame.locator('#turn-1').getAttribute('class')) ?? '', /has-failures/);
    await failed.click();
    await frame.locator('.event pre.output', { hasText: 'TS2339' }).waitFor();
    await shot('agent-session', '.part.editor');
  });

  it("keeps a transcript's hostile text inert", async () => {
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Hostile' }).first().click();
    const frame = await webviewFrame(page, 'Hostile');
    await frame.locator('button.tool.error').click();
    await frame.locator('.event pre.output').waitFor();
    const facts = (await frame.evaluate(`(() => ({
      pwned: window.pwned,
      images: document.querySelectorAll('#app img').length,
      iframes: document.querySelectorAll('#app iframe').length,
      scripts: document.querySelectorAll('#app script').length,
      links: document.querySelectorAll('#app a').length,
      prompt: (document.querySelector('.prompt') || {}).textContent || '',
      message: (document.querySelector('.step .message') || {}).textContent || '',
      bold: Array.from(document.querySelectorAll('.step .message strong')).map((s) => s.textContent),
      tagsInMessage: document.querySelectorAll('.step .message *:not(strong)').length,
    }))()`)) as { pwned: unknown; images: number; iframes: number; scripts: number; links: number; prompt: string; message: string; bold: string[]; tagsInMessage: number };
    // A step's **bold** is bold, its markers gone; anything else in it stays text.
    assert.deepEqual(
      [facts.message, facts.bold, facts.tagsInMessage],
      ['Checked the <b>cart</b> <img src=x onerror="window.pwned=4">', ['Checked', '<img src=x onerror="window.pwned=4">'], 0],
    );
    assert.deepEqual(
      { pwned: facts.pwned, images: facts.images, iframes: facts.iframes, scripts: facts.scripts, links: facts.links },
      { pwned: undefined, images: 0, iframes: 0, scripts: 0, links: 0 },
    );
    assert.match(facts.prompt, /<img src=x onerror="window\.pwned=1">/);
  });

  it('searches every session from the command palette and opens the match', async () => {
    await runCommand(page, 'Agent Progress: Search Agent Sessions');
    await page.locator('.quick-input-widget', { hasText: 'Search Agent Sessions' }).waitFor();
    await page.keyboard.type('ECONNREFUSED', { delay: 30 });
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'ECONNREFUSED' }).first();
    await row.waitFor({ timeout: 15_000 });
    assert.match(await row.innerText(), /Codex CLI/);
    await shot('agent-sessions-search');
    await page.keyboard.press('Enter');
    const frame = await webviewFrame(page, 'Fix the failing inventory sync job');
    assert.equal(await frame.locator('button.tool.error').count(), 5);
    await shot('agent-session-loop', '.part.editor');
  });
});
