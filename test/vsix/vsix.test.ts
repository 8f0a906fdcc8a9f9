// The package a stranger installs, end to end in a real VS Code (code-server + headless
// Chromium): agent-progress.vsix (built by `npm run package`) is installed into a fresh
// extensions folder, a workspace is opened, the walkthrough shows, VS Code starts the bundled MCP
// servers through the extension's provider and calls their tools with its own MCP client
// (vscode.lm.invokeTool, from the driver in test/vsix/driver), and every view, webview and
// ledger command is checked as a person sees it. Screenshots go to .test-results/vsix-screenshots/;
// `npm run screenshots` runs this suite with AGENT_PROGRESS_SCREENSHOTS=docs/screenshots to refresh
// the ones the README shows (a plain test run leaves tracked files alone).

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { initRepo } from '../helpers/gitRepo';
import {
  answerFileDialog,
  clickDialogButton,
  closeNotifications,
  loadHarness,
  notification,
  parkPointer,
  repoRoot,
  runCommand,
  screenshot,
  webviewFrame,
  type CodeServer,
  type Harness,
} from '../helpers/workbench';

const VSIX = path.join(repoRoot, 'agent-progress.vsix');
const SHOTS = path.resolve(repoRoot, process.env.AGENT_PROGRESS_SCREENSHOTS ?? path.join('.test-results', 'vsix-screenshots'));
const DRIVER = path.join(repoRoot, 'test', 'vsix', 'driver');
const TRACES = path.join(repoRoot, 'test', 'fixtures', 'traces', 'home');
const MAX_VSIX_BYTES = 5 * 1024 * 1024;

interface ToolResult {
  tool: string;
  ok: boolean;
  text?: string;
  error?: string;
}
interface Responses {
  error?: string;
  extensionActive?: boolean;
  tools?: string[];
  results: ToolResult[];
}
interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  has?: string;
}

describe('the packaged extension (.vsix) in VS Code', function () {
  this.timeout(300_000);
  let harness: Harness;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let driverDir: string;
  let workspace: string;

  const shot = (name: string, selector?: string) => screenshot(page, path.join(SHOTS, `${name}.png`), selector);
  const pane = (title: string) => page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: title }) });

  /**
   * Calls tools through VS Code's MCP client: the driver's command reads the calls and writes the
   * results. Outside a chat VS Code asks before a tool that changes things runs; this answers as
   * a person would, by clicking its Yes.
   */
  async function callTools(calls: ToolCall[]): Promise<ToolResult[]> {
    const responses = path.join(driverDir, 'responses.json');
    fs.rmSync(responses, { force: true });
    fs.writeFileSync(path.join(driverDir, 'requests.json'), JSON.stringify(calls));
    await runCommand(page, 'AP Driver: Run Tool Requests');
    const deadline = Date.now() + 150_000;
    let confirmed = 0;
    while (!fs.existsSync(responses)) {
      const dialog = page.locator('.monaco-dialog-box');
      if (await dialog.isVisible().catch(() => false)) {
        if (confirmed === 0) await shot('tool-confirmation');
        // "Run <tool>?" gets Yes. A server asking to use the editor's language model (sampling,
        // for a summary) gets Not Now: this VS Code has no Copilot, and the server falls back.
        const yes = dialog.getByRole('button', { name: 'Yes' });
        const button = (await yes.count()) > 0 ? yes : dialog.getByRole('button', { name: 'Not Now' });
        await button.click({ timeout: 5_000 }).catch(() => undefined);
        confirmed += 1;
      }
      if (Date.now() > deadline) throw new Error('the driver wrote no responses within 150 s');
      await page.waitForTimeout(200);
    }
    const out = JSON.parse(fs.readFileSync(responses, 'utf8')) as Responses;
    assert.equal(out.error, undefined, out.error);
    for (const r of out.results) assert.ok(r.ok, `${r.tool}: ${r.error}`);
    return out.results;
  }

  /** A field of a tool's structured result (VS Code hands the model the JSON text). */
  function field(result: ToolResult, name: string): string {
    const m = new RegExp(`"${name}":"([^"]+)"`).exec(result.text ?? '');
    assert.ok(m, `${name} in ${result.text}`);
    return m[1]!;
  }

  before(async function () {
    assert.ok(fs.existsSync(VSIX), `${VSIX} is missing: run npm run package (the vsix stage of scripts/test.mjs does)`);
    harness = await loadHarness();
    fs.mkdirSync(SHOTS, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-vsix-'));
    driverDir = path.join(dir, 'driver');
    fs.mkdirSync(driverDir);
    const runDir = path.join(dir, 'run');
    const userDataDir = path.join(runDir, 'user-data');
    const extensionsDir = path.join(runDir, 'extensions');
    fs.mkdirSync(runDir, { recursive: true });
    const installed = spawnSync(
      harness.nodeBin,
      [harness.codeServerEntry, '--config', path.join(runDir, 'config.yaml'), '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', VSIX],
      { encoding: 'utf8' },
    );
    assert.equal(installed.status, 0, `code-server --install-extension: ${installed.stdout}${installed.stderr}`);
    workspace = path.join(dir, 'acme-shop');
    initRepo(workspace, {
      'src/auth/session.ts': 'export const session = "cookie";\n',
      'README.md': '# acme-shop\n',
    });
    server = await harness.startCodeServer({
      runDir,
      userDataDir,
      extensionsDir,
      workspace,
      devMode: true,
      env: { AP_DRIVER_DIR: driverDir },
      settings: {
        'agentProgress.retention.days': 30,
        'agentProgress.traces.claudeHome': path.join(TRACES, '.claude'),
        'agentProgress.traces.codexHome': path.join(TRACES, '.codex'),
        'agentProgress.traces.geminiHome': path.join(TRACES, '.gemini'),
        'agentProgress.traces.vscodeUserDir': path.join(TRACES, '.config', 'Code', 'User'),
        'workbench.colorTheme': 'Default Dark Modern',
      },
    });
    browser = await harness.launchChromium(server);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(harness.workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: [DRIVER] }));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The installed extension's view container: VS Code has read its manifest.
    await page.locator('.activitybar .action-item [aria-label^="Agent Progress"]').first().waitFor({ timeout: 60_000 });
  });

  afterEach(async function () {
    // What the window showed when a test failed, for the person reading the CI log.
    if (this.currentTest?.state !== 'failed' || !page) return;
    const failures = path.join(repoRoot, '.test-results', 'vsix-failures');
    fs.mkdirSync(failures, { recursive: true });
    const file = path.join(failures, `${this.currentTest.title.replace(/[^\w]+/g, '-').slice(0, 80)}.png`);
    await page.screenshot({ path: file }).catch(() => undefined);
    console.log(`      the window at the failure: ${file}`);
    // A dialog or quick input left open would fail every later test too.
    for (let i = 0; i < 2; i++) await page.keyboard.press('Escape').catch(() => undefined);
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

  it('is a package under 5 MB holding only what runs, installed from the .vsix', () => {
    const size = fs.statSync(VSIX).size;
    assert.ok(size < MAX_VSIX_BYTES, `${size} bytes`);
    const folder = fs.readdirSync(path.join(dir, 'run', 'extensions')).find((d) => d.startsWith('agent-progress.agent-progress-'));
    assert.ok(folder, 'installed into the extensions folder');
    const ext = path.join(dir, 'run', 'extensions', folder);
    for (const f of ['package.json', 'readme.md', 'changelog.md', 'LICENSE.txt', 'media/icon.png', 'dist/extension.js', 'dist/server.js', 'dist/cli.js', 'dist/sql-wasm.wasm'])
      assert.ok(fs.existsSync(path.join(ext, f)), f);
    for (const f of ['src', 'test', 'node_modules', 'docs', 'media/icon-source.svg']) assert.ok(!fs.existsSync(path.join(ext, f)), `${f} is not packaged`);
    console.log(`      agent-progress.vsix: ${(size / 1024 / 1024).toFixed(2)} MB`);
  });

  it('shows the walkthrough: toolsets, a first log_progress, another agent, the log', async () => {
    await runCommand(page, 'AP Driver: Open the Agent Progress Walkthrough');
    const walkthrough = page.locator('.part.editor .gettingStartedContainer');
    await walkthrough.locator('text=Get started with Agent Progress').first().waitFor({ timeout: 30_000 });
    for (const step of ['Choose the toolsets', 'Log progress from Copilot Chat', 'Connect another agent', 'Browse the log']) {
      await walkthrough.locator('.getting-started-step', { hasText: step }).first().waitFor();
    }
    await walkthrough.locator('.getting-started-step', { hasText: 'Log progress from Copilot Chat' }).first().click();
    await walkthrough.locator('text=Open Chat').first().waitFor();
    await shot('walkthrough', '.part.editor');
  });

  it('lets VS Code start the bundled servers and calls their tools through its own MCP client', async () => {
    const logged = await callTools([
      {
        tool: 'log_progress',
        input: {
          projectId: 'acme-shop',
          agentId: 'copilot',
          title: 'Refactored authentication to JWT',
          tags: ['auth', 'refactor'],
          content:
            'Replaced server sessions with **JWT** access tokens.\n\n- `src/auth/jwt.ts`: sign and verify\n- `src/middleware/auth.ts`: validate the bearer token\n\nAll 42 tests pass. Left: refresh-token rotation.',
        },
      },
      {
        tool: 'log_progress',
        input: {
          projectId: 'acme-shop',
          agentId: 'claude-code',
          title: 'Added refresh-token rotation',
          tags: ['auth'],
          content: 'Rotation with reuse detection in `src/auth/refresh.ts`; a reused token revokes the family. 9 new tests.',
        },
      },
      {
        tool: 'log_progress',
        input: {
          projectId: 'acme-shop',
          agentId: 'codex',
          title: 'Fixed flaky checkout test',
          tags: ['tests'],
          content: 'The checkout e2e test raced the payment mock. Awaited the webhook before asserting; 200 runs, no failure.',
        },
      },
      { tool: 'search_logs', input: { projectId: 'acme-shop', text: 'webhook' } },
      { tool: 'create_project', input: { name: 'acme-release', description: 'Release 2.0 checklist' } },
    ]);
    assert.match(logged[3]!.text!, /Fixed flaky checkout test/);
    const id = field(logged[0]!, 'id');
    const context = await callTools([
      { tool: 'get_context', input: { projectId: 'acme-shop', id } },
      { tool: 'add_task', input: { projectId: 'acme-release', instructions: 'Update the changelog for 2.0' } },
      { tool: 'add_task', input: { projectId: 'acme-release', instructions: 'Tag the release and publish the notes' } },
      {
        tool: 'start_workflow',
        input: {
          name: 'JWT sessions',
          description: 'Replace cookie sessions with signed JWT access tokens.',
          plan: [
            { step: '1', goal: 'Sign tokens' },
            { step: '2', goal: 'Validate them' },
          ],
        },
      },
    ]);
    assert.match(context[0]!.text!, /JWT/);
    const workflowId = field(context[3]!, 'workflow_id');
    const started = await callTools([{ tool: 'start_task', input: { workflow_id: workflowId, name: 'Sign tokens', goal: 'Sign and verify JWTs', areas: ['src/auth'] } }]);
    const taskId = field(started[0]!, 'task_id');
    fs.writeFileSync(path.join(workspace, 'src', 'auth', 'jwt.ts'), 'export function sign() {}\n');
    await callTools([
      {
        tool: 'log_decision',
        input: {
          task_id: taskId,
          category: 'library_choice',
          question: 'Which JWT library?',
          options_considered: ['jose', 'jsonwebtoken'],
          chosen: 'jose',
          reasoning: 'Standards-based, no native code.',
          trade_offs: 'Smaller community.',
        },
      },
      {
        tool: 'complete_task',
        has: 'outcome',
        input: { task_id: taskId, status: 'success', outcome: { summary: 'Tokens are signed and verified.', achievements: ['sign()', 'verify()'], limitations: [] } },
      },
    ]);
  });

  it('shows the Progress Log and an entry page', async () => {
    await page.locator('.activitybar .action-item [aria-label^="Agent Progress"]').first().click();
    const log = pane('Progress Log');
    await log.locator('[role=treeitem]', { hasText: 'Fixed flaky checkout test' }).waitFor({ timeout: 60_000 });
    const labels = await log.locator('[role=treeitem]').allInnerTexts();
    assert.match(labels[0] ?? '', /acme-shop/);
    assert.match(labels[1] ?? '', /Fixed flaky checkout test/);
    await log.locator('[role=treeitem]', { hasText: 'Refactored authentication to JWT' }).click();
    const frame = await webviewFrame(page, 'Refactored authentication to JWT');
    assert.equal(await frame.locator('.content strong').innerText(), 'JWT');
    await shot('overview');
    await shot('progress-log', '.part.sidebar');
    await shot('entry', '.part.editor');
  });

  it('searches the log from the command palette', async () => {
    await runCommand(page, 'Agent Progress: Search Logs');
    await page.locator('.quick-input-widget', { hasText: 'Search Agent Progress Logs' }).waitFor();
    await page.keyboard.type('webhook', { delay: 30 });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Awaited the webhook' }).first().waitFor({ timeout: 15_000 });
    await shot('search');
    await page.keyboard.press('Escape');
  });

  it('shows the Task Queue with the tasks an agent queued, and a task page', async () => {
    await runCommand(page, 'Focus on Task Queue View');
    const queue = pane('Task Queue');
    await queue.locator('[role=treeitem]', { hasText: 'acme-release' }).first().waitFor({ timeout: 30_000 });
    await queue.locator('[role=treeitem]', { hasText: 'Update the changelog for 2.0' }).first().waitFor({ timeout: 30_000 });
    await queue.locator('[role=treeitem]', { hasText: 'Update the changelog for 2.0' }).first().click();
    const frame = await webviewFrame(page, 'Task ');
    await frame.locator('text=Update the changelog for 2.0').first().waitFor();
    await shot('task-queue', '.part.sidebar');
    await shot('task', '.part.editor');
  });

  it('shows the workflow with its decision and the file the task changed', async () => {
    await runCommand(page, 'Focus on Workflows View');
    const workflows = pane('Workflows');
    await workflows.locator('[role=treeitem]', { hasText: 'JWT sessions' }).first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'Agent Progress: Open Workflow');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'JWT sessions' }).first().click();
    const frame = await webviewFrame(page, 'JWT sessions');
    await frame.locator('text=Which JWT library?').first().waitFor();
    await frame.locator('text=src/auth/jwt.ts').first().waitFor();
    await shot('workflow', '.part.editor');
  });

  it('shows agent sessions read from transcripts, and a session timeline', async () => {
    await runCommand(page, 'Focus on Agent Sessions View');
    const sessions = pane('Agent Sessions');
    await sessions.locator('[role=treeitem]', { hasText: 'Claude Code' }).first().waitFor({ timeout: 60_000 });
    // Codex's session with its failing loop (a transcript in English: the window has no CJK font).
    await sessions.locator('[role=treeitem]', { hasText: 'Codex CLI' }).first().click();
    const session = sessions.locator('[role=treeitem]', { hasText: 'Fix the failing inventory sync job' }).first();
    for (let i = 0; i < 3 && !(await session.isVisible()); i++) {
      await sessions.locator('[role=treeitem][aria-level="2"][aria-expanded="false"]').first().click();
      await page.waitForTimeout(500);
    }
    await session.click();
    const frame = await webviewFrame(page, 'Fix the failing inventory sync job');
    assert.ok((await frame.locator('section.turn').count()) > 0);
    await shot('agent-sessions', '.part.sidebar');
    await shot('agent-session', '.part.editor');
  });

  it('imports a ledger export, and archives entries older than 30 days after a confirmation and an export', async () => {
    const old = (id: string, title: string, at: string) => ({
      id,
      projectId: 'acme-shop',
      createdAt: at,
      title,
      tags: ['legacy'],
      agentId: 'codex',
      summary: null,
      summarySource: null,
      content: `${title}.`,
    });
    const importFile = path.join(dir, 'acme-2020.json');
    fs.writeFileSync(
      importFile,
      JSON.stringify({
        format: 'agent-progress-ledger',
        version: 1,
        exportedAt: '2020-03-01T00:00:00.000Z',
        scope: 'full',
        data: {
          entries: [
            old('acmeOld00001', 'Ported the cart to TypeScript', '2020-01-02T10:00:00.000Z'),
            old('acmeOld00002', 'Moved CI to GitHub Actions', '2020-02-02T10:00:00.000Z'),
          ],
        },
      }),
    );
    await runCommand(page, 'Agent Progress: Import Ledger');
    await answerFileDialog(page, importFile);
    await notification(page, /Imported 2 entries from/);
    await closeNotifications(page);
    const log = pane('Progress Log');
    await runCommand(page, 'Focus on Progress Log View');
    await log.locator('[role=treeitem]', { hasText: 'Ported the cart to TypeScript' }).waitFor({ timeout: 15_000 });

    await runCommand(page, 'Agent Progress: Archive or Delete Old Entries');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Archive 2 entries older than 30 days\?/);
    assert.match(await dialog.innerText(), /first exported to .*agent-progress-before-archive-\d{8}T\d{6}Z\.json/);
    await shot('retention-confirm');
    await clickDialogButton(page, 'Archive');
    const done = await notification(page, /archived 2 entries older than 30 days/);
    await closeNotifications(page);
    const exportFile = /exported first to (.+\.json)/.exec(done.replace(/\s+/g, ' '))?.[1];
    assert.ok(exportFile && fs.existsSync(exportFile), `the export ${exportFile} exists`);
    assert.equal((JSON.parse(fs.readFileSync(exportFile, 'utf8')) as { counts: { entries: number } }).counts.entries, 2);
    await log.locator('[role=treeitem]', { hasText: 'Ported the cart to TypeScript' }).waitFor({ state: 'detached', timeout: 15_000 });

    await runCommand(page, 'Agent Progress: Restore Archived Entries');
    await log.locator('[role=treeitem]', { hasText: 'Ported the cart to TypeScript' }).waitFor({ timeout: 15_000 });
  });

  it('exports the whole ledger to a file the person picks', async () => {
    const file = path.join(dir, 'exports', 'acme-ledger.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await runCommand(page, 'Agent Progress: Export Ledger');
    await answerFileDialog(page, file);
    await notification(page, /Exported 5 entries, 2 tasks, 1 workflows/);
    await closeNotifications(page);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: number; counts: Record<string, number> };
    assert.equal(doc.version, 1);
    assert.deepEqual([doc.counts.entries, doc.counts.tasks, doc.counts.workflows, (doc.counts.workflowEvents ?? 0) > 0], [5, 2, 1, true]);
  });

  it("shows the extension's log and each MCP server's log, and where the ledger is", async () => {
    await runCommand(page, 'Agent Progress: Show Logs');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'MCP server Agent Progress: progress' }).first();
    await pick.waitFor();
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: /^Agent Progress/ })
      .first()
      .waitFor();
    await pick.click();
    const panel = page.locator('.part.panel');
    // Monaco renders spaces as no-break spaces: . stands for either.
    await panel
      .locator('.view-line', { hasText: /\[server.stderr\]/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await shot('server-log', '.part.panel');

    await runCommand(page, 'Agent Progress: Show Logs');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'the extension' }).first().click();
    await panel
      .locator('.view-line', { hasText: /Activated.in/ })
      .first()
      .waitFor({ timeout: 15_000 });

    await runCommand(page, 'Agent Progress: Reveal Ledger Folder');
    const where = await notification(page, /the ledger is in/);
    await closeNotifications(page);
    assert.match(where, /workspaceStorage[/\\][^/\\\s]+[/\\]agent-progress\.agent-progress/);
    await parkPointer(page);
  });
});
