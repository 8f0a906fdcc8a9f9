// The extension in a real VS Code window (code-server + headless Chromium), driven as a person
// would: the sidebar, the search quick pick, an entry page, hostile content inert, a write from a
// terminal showing up by itself. Screenshots are kept in .test-results/screenshots/.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadHarness, screenshot, type CodeServer, type Harness, webviewFrame, runCommand } from '../helpers/workbench';

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, '.test-results', 'screenshots');
const cliJs = path.join(root, 'dist', 'cli.js');

describe('the extension in a VS Code window', function () {
  this.timeout(240_000);
  let harness: Harness;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let db: string;

  const log = (args: string[]): string => execFileSync(process.execPath, [cliJs, ...args, '--json'], { env: { ...process.env, AGENT_PROGRESS_DB_PATH: db } }).toString();

  const shot = (name: string, selector?: string): Promise<void> => screenshot(page, path.join(shots, `${name}.png`), selector);

  before(async function () {
    harness = await loadHarness();
    fs.mkdirSync(shots, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-browser-'));
    db = path.join(dir, 'ledger', 'data.db');
    const workspace = path.join(dir, 'acme-shop');
    fs.mkdirSync(workspace, { recursive: true });
    log([
      'log',
      '-p',
      'acme-shop',
      '--agent',
      'copilot',
      '--tag',
      'auth',
      '--tag',
      'refactor',
      '--title',
      'Refactored authentication to JWT',
      '--content',
      'Replaced server sessions with **JWT** access tokens.\n\n- `src/auth/jwt.ts`: sign and verify\n- `src/middleware/auth.ts`: validate the bearer token\n\nAll 42 tests pass. Left: refresh-token rotation.',
    ]);
    log([
      'log',
      '-p',
      'acme-shop',
      '--agent',
      'claude-code',
      '--tag',
      'auth',
      '--title',
      'Added refresh-token rotation',
      '--content',
      'Rotation with reuse detection in `src/auth/refresh.ts`; a reused token revokes the family. 9 new tests.',
    ]);
    log([
      'log',
      '-p',
      'acme-shop',
      '--agent',
      'codex',
      '--tag',
      'tests',
      '--title',
      'Fixed flaky checkout test',
      '--content',
      'The checkout e2e test raced the payment mock. Awaited the webhook before asserting; 200 runs, no failure.',
    ]);
    log([
      'log',
      '-p',
      'acme-shop',
      '--agent',
      'unknown-agent',
      '--title',
      'Hostile <img src=x onerror=alert(1)>',
      '--content',
      '<script>window.pwned = 1</script>\n\n<img src=x onerror="window.pwned = 2">\n\n[click me](javascript:window.pwned=3)\n\n<iframe src="https://example.com"></iframe>',
    ]);
    server = await harness.startCodeServer({
      runDir: path.join(dir, 'run'),
      userDataDir: path.join(dir, 'run', 'user-data'),
      extensionsDir: path.join(dir, 'run', 'extensions'),
      workspace,
      devMode: true,
      settings: { 'agentProgress.ledgerPath': db },
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

  it('shows the Progress Log in its own sidebar, newest first', async () => {
    await page.locator('.activitybar .action-item [aria-label^="Agent Progress"]').first().click();
    const rows = page.locator('.part.sidebar .monaco-list-row');
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Hostile' }).waitFor({ timeout: 60_000 });
    const labels = await rows.allInnerTexts();
    assert.match(labels[0] ?? '', /acme-shop/);
    assert.match(labels[1] ?? '', /Hostile/);
    assert.match(labels[4] ?? '', /Refactored authentication to JWT/);
    assert.match(labels[4] ?? '', /copilot · #auth #refactor/);
    await shot('sidebar', '.part.sidebar');
  });

  it('searches titles and content as you type', async () => {
    await runCommand(page, 'Agent Progress: Search Logs');
    await page.locator('.quick-input-widget', { hasText: 'Search Agent Progress Logs' }).waitFor();
    await page.keyboard.type('webhook', { delay: 30 });
    // The list opens with the newest entries; the ranked result carries a snippet of the match.
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Awaited the webhook' }).first();
    await row.waitFor({ timeout: 15_000 }).catch(async (err: unknown) => {
      await shot('search-failure');
      console.log(await page.locator('.quick-input-widget').innerText());
      throw err;
    });
    assert.match(await row.innerText(), /Fixed flaky checkout test/);
    await shot('search');
    await page.keyboard.press('Enter');
    const frame = await webviewFrame(page, 'Fixed flaky checkout test');
    assert.match(await frame.locator('.content').innerText(), /200 runs, no failure/);
  });

  it('shows an entry page with its summary button and Markdown content', async () => {
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Refactored authentication to JWT' }).click();
    const frame = await webviewFrame(page, 'Refactored authentication to JWT');
    assert.equal(await frame.locator('.content strong').innerText(), 'JWT');
    assert.equal(await frame.locator('.content li').count(), 2);
    assert.equal(await frame.locator('#summarise').innerText(), 'Summarise');
    await shot('entry', '.part.editor');
  });

  it('keeps hostile content inert: no script runs, no handler, no remote content', async () => {
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Hostile' }).click();
    const frame = await webviewFrame(page, 'Hostile <img src=x onerror=alert(1)>');
    // Evaluated in the webview's page; a string keeps DOM types out of this Node program.
    const facts = (await frame.evaluate(`(() => ({
      pwned: window.pwned,
      scriptsInContent: document.querySelectorAll('#app script').length,
      hostileScripts: [...document.querySelectorAll('script')].filter((s) => /pwned/.test(s.textContent || '')).length,
      images: document.querySelectorAll('img').length,
      iframes: document.querySelectorAll('#app iframe').length,
      handlers: [...document.querySelectorAll('#app *')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      jsLinks: [...document.querySelectorAll('a')].filter((a) => /^javascript:/i.test(a.getAttribute('href') || '')).length,
      text: (document.querySelector('.content') || {}).textContent || '',
      csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || { getAttribute: () => '' }).getAttribute('content') || '',
    }))()`)) as { pwned: unknown; scriptsInContent: number; hostileScripts: number; images: number; iframes: number; handlers: number; jsLinks: number; text: string; csp: string };
    assert.equal(facts.pwned, undefined);
    assert.deepEqual(
      {
        scriptsInContent: facts.scriptsInContent,
        hostileScripts: facts.hostileScripts,
        images: facts.images,
        iframes: facts.iframes,
        handlers: facts.handlers,
        jsLinks: facts.jsLinks,
      },
      { scriptsInContent: 0, hostileScripts: 0, images: 0, iframes: 0, handlers: 0, jsLinks: 0 },
    );
    assert.match(facts.text, /<script>window\.pwned = 1<\/script>/);
    assert.match(facts.csp, /default-src 'none'/);
    assert.match(facts.csp, /script-src 'nonce-/);
    await shot('hostile', '.part.editor');
  });

  it('shows an entry written from a terminal without being asked', async () => {
    const written = Date.now();
    log(['log', '-p', 'acme-shop', '--agent', 'terminal', '--title', 'Logged from a terminal just now', '--content', 'The sidebar should show this by itself.']);
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Logged from a terminal just now' }).waitFor({ timeout: 10_000 });
    console.log(`      appeared in the sidebar ${Date.now() - written} ms after the CLI wrote it`);
    await shot('live', '.part.sidebar');
  });

  it('reopens an open entry page, with its content, after the window reloads', async () => {
    await page.locator('.part.sidebar [role=treeitem]', { hasText: 'Refactored authentication to JWT' }).click();
    const before = await webviewFrame(page, 'Refactored authentication to JWT');
    assert.equal(await before.locator('.content strong').innerText(), 'JWT');
    // The page keeps its entry as webview state; the reloaded window hands it to the serializer,
    // which loads the entry again (without one, VS Code drops the tab). Reloaded as a person does,
    // with Developer: Reload Window, which saves the window's state first: a browser refresh
    // (page.reload()) keeps only what the web workbench last saved, up to 5 s earlier, and may
    // bring back the tabs as they were before this page was opened.
    const reloaded = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 60_000 });
    await runCommand(page, 'Developer: Reload Window');
    await reloaded;
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: 'Refactored authentication to JWT' }).first().waitFor({ timeout: 60_000 });
    const after = await webviewFrame(page, 'Refactored authentication to JWT', 60_000).catch(async (err: unknown) => {
      await shot('entry-restore-failure');
      throw err;
    });
    assert.equal(await after.locator('.content strong').innerText(), 'JWT');
    assert.equal(await after.locator('.content li').count(), 2);
    await shot('entry-restored', '.part.editor');
  });
});
