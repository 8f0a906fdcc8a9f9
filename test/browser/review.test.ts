// The Review view in a real VS Code window (code-server + headless Chromium), as a person sees it:
// a review driven by an agent (a real MCP client on dist/server.js) in the sidebar with its phase,
// agents and durations, the status bar, an action approved from the view's inline button (the
// agent reads the decision), and the agent's thread shown on its line in the editor.
// Screenshots go to .test-results/screenshots/.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, startServer, type StdioServer } from '../helpers/stdioServer';
import { loadHarness, screenshot, type CodeServer, type Harness } from '../helpers/workbench';

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, '.test-results', 'screenshots');

describe('the Review view in a VS Code window', function () {
  this.timeout(240_000);
  let harness: Harness;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let workspace: string;
  let agent: StdioServer;
  let commentId: string;

  const tool = async (name: string, args: Record<string, unknown>) => (await call(agent, name, args)).structuredContent as Record<string, unknown>;

  const shot = (name: string, selector?: string): Promise<void> => screenshot(page, path.join(shots, `${name}.png`), selector);

  before(async function () {
    harness = await loadHarness();
    fs.mkdirSync(shots, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-browser-review-'));
    const db = path.join(dir, 'ledger', 'data.db');
    workspace = path.join(dir, 'acme-shop');
    fs.mkdirSync(path.join(workspace, '.agent-progress', 'reviews'), { recursive: true });
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, '.agent-progress', 'reviews', 'front.yaml'),
      'title: Front review\nagents:\n  - clean-architecture\n  - security\n  - tests\ncontext:\n  branch: feature/login\n  merge_request: "!4748"\n',
    );
    fs.writeFileSync(
      path.join(workspace, 'src', 'login.ts'),
      "export function login(user: string, password: string) {\n  return db.query(`SELECT * FROM users WHERE name = '${user}'`);\n}\n",
    );
    agent = await startServer({ db, args: ['--toolset', 'review'], cwd: workspace });
    await tool('get_workflow', {});
    await tool('set_phase', { phase: 'agents-running' });
    await tool('start_agent', { agent: 'clean-architecture' });
    await tool('complete_agent', { agent: 'clean-architecture', summary: 'Layers respected.' });
    await tool('start_agent', { agent: 'security' });
    await tool('add_action', {
      kind: 'open_thread',
      file: 'src/login.ts',
      line: 2,
      text: 'SQL built from user input: use a parameterised query. <img src=x onerror="window.pwned=1">',
      agent: 'security',
    });
    commentId = String(
      ((await tool('add_action', { kind: 'post_comment', text: 'Security: one blocking finding.', agent: 'security' })).action as { action_id: string }).action_id,
    );

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
    await agent?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    if (server) {
      const report = harness.cleanupReport(await server.stop());
      console.log(`      ${report.line}`);
      assert.ok(report.ok, report.line);
    }
    if (dir && !process.env.KEEP_BROWSER_RUN) fs.rmSync(dir, { recursive: true, force: true });
    else if (dir) console.log(`      kept ${dir}`);
  });

  it('shows the phase, each agent with its state and duration, the approval queue, and the phase in the status bar', async () => {
    await page.locator('.activitybar .action-item [aria-label^="Agent Progress"]').first().click();
    const sidebar = page.locator('.part.sidebar');
    // The other views collapsed, so that the Review tree has the height to render every row.
    const reviewHeader = sidebar.locator('.pane-header', { hasText: 'Review' });
    await reviewHeader.waitFor({ timeout: 60_000 });
    const others = sidebar.locator('.pane-header[aria-expanded="true"]').filter({ hasNotText: 'Review' });
    for (let i = 0; i < 6 && (await others.count()) > 0; i++) await others.first().click();
    if ((await reviewHeader.getAttribute('aria-expanded')) !== 'true') await reviewHeader.click();
    const pane = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Review' }) });
    await pane.locator('[role=treeitem]', { hasText: 'Phase: agents-running' }).waitFor({ timeout: 60_000 });
    await pane.locator('[role=treeitem]', { hasText: 'Security: one blocking finding.' }).waitFor({ timeout: 15_000 });
    const text = (await pane.locator('[role=treeitem]').allInnerTexts()).join('\n');
    assert.match(text, /Front review\s*agents-running · feature\/login · !4748/);
    assert.match(text, /clean-architecture\s*completed · \d+s/);
    assert.match(text, /security\s*running · (\d+m )?\d+s/);
    assert.match(text, /tests\s*pending/);
    assert.match(text, /Approval queue\s*2 awaiting decision/);
    const status = page.locator('.statusbar-item', { hasText: 'Review: agents-running' });
    await status.waitFor({ timeout: 15_000 });
    assert.match(await status.innerText(), /Review: agents-running · security · 1\/3 · 2 to approve/);
    // The agent moves on while the person watches.
    await tool('complete_agent', { agent: 'security', summary: 'One blocking finding.' });
    await pane.locator('[role=treeitem]', { hasText: /security\s*completed/ }).waitFor({ timeout: 15_000 });
    await shot('review-sidebar', '.part.sidebar');
    await shot('review-statusbar', '.part.statusbar');
  });

  it('approves an action from the view, and the agent reads who approved it', async () => {
    const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: 'Review' }) });
    const row = pane.locator('[role=treeitem]', { hasText: 'Security: one blocking finding.' });
    await row.hover();
    await row.locator('.action-label[aria-label="Approve Action"]').click();
    await pane.locator('[role=treeitem]', { hasText: /Security: one blocking finding\..*approved by operator:editor/ }).waitFor({ timeout: 15_000 });
    const wf = await tool('get_workflow', {});
    const decided = (wf.actions as { action_id: string; status: string; decided_by: string }[]).find((a) => a.action_id === commentId)!;
    assert.equal(decided.status, 'approved');
    assert.match(decided.decided_by, /^operator:editor/);
  });

  it("shows the agent's thread on its line in the editor, its text inert", async () => {
    const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: 'Review' }) });
    const threads = pane.locator('[role=treeitem]', { hasText: 'Threads' });
    await threads.click();
    await pane.locator('[role=treeitem][aria-label^="src/login.ts:2 open"]').click();
    await page.locator('.tab', { hasText: 'login.ts' }).waitFor({ timeout: 20_000 });
    const widget = page.locator('.part.editor .review-widget');
    await widget.first().waitFor({ timeout: 20_000 });
    const body = await widget.first().innerText();
    assert.match(body, /SQL built from user input: use a parameterised query\./);
    assert.match(body, /security/);
    assert.equal(await page.evaluate('window.pwned'), undefined);
    await shot('review-thread', '.part.editor');
  });
});
