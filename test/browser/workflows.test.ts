// Workflows in a real VS Code window (code-server + headless Chromium), as a person sees them: an
// agent's workflow in the sidebar with its tasks and files changed, the status bar while a task
// runs, the notification when the agent asks for a review and its Open button, the workflow page
// (agent text inert), and a changed file in the diff editor. The agent is a real MCP client on
// dist/server.js working in a real git repository. Screenshots go to .test-results/screenshots/.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { initRepo, type TestRepo } from '../helpers/gitRepo';
import { call, startServer, type StdioServer } from '../helpers/stdioServer';
import { loadHarness, screenshot, type CodeServer, type Harness, webviewFrame } from '../helpers/workbench';

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, '.test-results', 'screenshots');

describe('workflows in a VS Code window', function () {
  this.timeout(240_000);
  let harness: Harness;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let repo: TestRepo;
  let agent: StdioServer;
  let workflowId: string;
  let runningTask: string;

  const tool = async (name: string, args: Record<string, unknown>) => (await call(agent, name, args)).structuredContent as Record<string, unknown>;

  const shot = (name: string, selector?: string): Promise<void> => screenshot(page, path.join(shots, `${name}.png`), selector);

  before(async function () {
    harness = await loadHarness();
    fs.mkdirSync(shots, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-browser-wf-'));
    const db = path.join(dir, 'ledger', 'data.db');
    repo = initRepo(path.join(dir, 'acme-shop'), {
      'src/auth/session.ts': 'export const session = "cookie";\nexport const maxAge = 3600;\n',
      'src/routes/login.ts': 'export function login() {\n  return session;\n}\n',
      'README.md': '# acme-shop\n',
    });
    repo.write('README.md', '# acme-shop (edited before the task)\n');
    agent = await startServer({ db, args: ['--toolset', 'workflow'], cwd: repo.dir });

    const wf = await tool('start_workflow', {
      name: 'JWT sessions',
      description: 'Replace cookie sessions with signed JWT access tokens.',
      plan: [
        { step: '1', goal: 'Token middleware' },
        { step: '2', goal: 'Login route issues tokens' },
        { step: '3', goal: 'Remove cookie sessions' },
      ],
    });
    workflowId = String(wf.workflow_id);
    const t1 = String(
      (await tool('start_task', { workflow_id: workflowId, name: 'Setup JWT middleware', goal: 'Verify the bearer token on every request', areas: ['auth', 'middleware'] }))
        .task_id,
    );
    await tool('log_decision', {
      task_id: t1,
      category: 'library_choice',
      question: 'Which JWT library?',
      options_considered: ['jsonwebtoken', 'jose'],
      chosen: 'jose',
      reasoning: 'Web Crypto based, no native code. <img src=x onerror="window.pwned=1">',
    });
    await tool('log_milestone', { task_id: t1, message: 'Middleware written', progress: 60 });
    repo.write('src/auth/session.ts', 'export const session = "jwt";\nexport const maxAge = 900;\n');
    repo.write('src/middleware/jwt.ts', 'export function verify(token: string) {\n  return token.length > 0;\n}\n');
    repo.commitAll('JWT middleware');
    repo.write('src/routes/login.ts', 'export function login() {\n  return issueToken();\n}\n');
    await tool('complete_task', {
      task_id: t1,
      status: 'success',
      outcome: { summary: 'Every request now needs a valid bearer token.', achievements: ['Middleware', '12 tests'] },
      metadata: { tests_status: 'passed' },
    });
    runningTask = String(
      (await tool('start_task', { workflow_id: workflowId, name: 'Login route issues tokens', goal: 'POST /login returns a token', areas: ['routes'] })).task_id,
    );
    await tool('log_milestone', { task_id: runningTask, message: 'Running tests...', progress: 70 });

    server = await harness.startCodeServer({
      runDir: path.join(dir, 'run'),
      userDataDir: path.join(dir, 'run', 'user-data'),
      extensionsDir: path.join(dir, 'run', 'extensions'),
      workspace: repo.dir,
      devMode: true,
      settings: { 'agentProgress.ledgerPath': db },
    });
    browser = await harness.launchChromium(server);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(harness.workbenchUrl(server, { folder: repo.dir, extensionDevelopmentPaths: [root] }));
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

  it('shows the workflow, its tasks and the files a task changed in the sidebar, and the running task in the status bar', async () => {
    await page.locator('.activitybar .action-item [aria-label^="Agent Progress"]').first().click();
    const sidebar = page.locator('.part.sidebar');
    await sidebar.locator('[role=treeitem]', { hasText: 'JWT sessions' }).waitFor({ timeout: 60_000 });
    // The other views collapsed, so that the Workflows tree has the height to render every row.
    const others = sidebar.locator('.pane-header[aria-expanded="true"]').filter({ hasNotText: 'Workflows' });
    for (let i = 0; i < 5 && (await others.count()) > 0; i++) await others.first().click();
    await sidebar.locator('[role=treeitem]', { hasText: 'Setup JWT middleware' }).click();
    await sidebar.locator('[role=treeitem]', { hasText: 'jwt.ts' }).waitFor({ timeout: 15_000 });
    const rows = await sidebar.locator('.pane', { hasText: 'Workflows' }).locator('[role=treeitem]').allInnerTexts();
    const text = rows.join('\n');
    assert.match(text, /Login route issues tokens\s*70% · Running tests\.\.\./);
    assert.match(text, /Setup JWT middleware\s*success · \d+s · 3 files/);
    assert.match(text, /Files changed\s*3/);
    assert.doesNotMatch(text, /README/, 'dirt from before the task is not blamed on it');
    const status = page.locator('.statusbar-item', { hasText: 'Login route issues tokens' });
    await status.waitFor({ timeout: 15_000 });
    assert.match(await status.innerText(), /70% · Running tests\.\.\./);
    await shot('workflows-sidebar', '.part.sidebar');
    await shot('workflows-statusbar', '.part.statusbar');
  });

  it('raises a notification when the agent asks for a review, whose Open button shows the workflow page', async () => {
    await page.bringToFront();
    await tool('log_issue', {
      task_id: runningTask,
      type: 'unclear_requirement',
      description: 'Should tokens expire after 15 or 60 minutes?',
      resolution: 'Chose 15 minutes',
      requires_human_review: true,
    });
    const expected = /Agent Progress: an agent asks for a review in "Login route issues tokens": Should tokens expire after 15 or 60 minutes\?/;
    // A toast when the workbench shows one; headless, VS Code may file it straight in the
    // notification center (the bell turns to bell-dot). Either way it carries the Open button.
    const toast = page.locator('.notification-toast', { hasText: 'asks for a review' });
    const bell = page.locator('#status\\.notifications .codicon-bell-dot');
    await Promise.race([toast.waitFor({ timeout: 20_000 }), bell.waitFor({ timeout: 20_000 })]);
    let notification = toast;
    if (!(await toast.isVisible())) {
      await page.locator('#status\\.notifications').click();
      notification = page.locator('.notifications-center .notification-list-item', { hasText: 'asks for a review' });
      await notification.waitFor({ timeout: 10_000 });
    }
    assert.match(await notification.innerText(), expected);
    await shot('workflows-notification');
    await notification.locator('.monaco-button', { hasText: 'Open' }).click();
    const frame = await webviewFrame(page, 'JWT sessions');
    await frame.locator('.task.focus h3', { hasText: 'Login route issues tokens' }).waitFor();
    assert.deepEqual(await frame.locator('.plan li').allInnerTexts(), ['1 Token middleware', '2 Login route issues tokens', '3 Remove cookie sessions']);
    assert.equal(await frame.locator('.task').count(), 2);
    assert.match(await frame.locator('.timeline').innerText(), /Which JWT library\? → jose/);
    const facts = (await frame.evaluate(
      `(() => ({ pwned: window.pwned, images: document.querySelectorAll('img').length, text: document.querySelector('.timeline').textContent }))()`,
    )) as { pwned: unknown; images: number; text: string };
    assert.deepEqual([facts.pwned, facts.images], [undefined, 0]);
    assert.match(facts.text, /<img src=x onerror="window\.pwned=1">/, 'agent text is shown as text');
    await shot('workflow-page', '.part.editor');
  });

  it('opens a changed file from the workflow page in the diff editor: the start of the task against now', async () => {
    const frame = await webviewFrame(page, 'JWT sessions');
    await frame.locator('.files button', { hasText: 'src/auth/session.ts' }).click();
    const diff = page.locator('.part.editor .monaco-diff-editor');
    await diff.waitFor({ timeout: 20_000 });
    await page.locator('.tab', { hasText: 'session.ts (start of "Setup JWT middleware"' }).waitFor();
    const original = await page.locator('.part.editor .monaco-diff-editor .editor.original .view-lines').innerText();
    const modified = await page.locator('.part.editor .monaco-diff-editor .editor.modified .view-lines').innerText();
    assert.match(original, /"cookie"/);
    assert.match(modified, /"jwt"/);
    await shot('workflow-diff', '.part.editor');
  });
});
