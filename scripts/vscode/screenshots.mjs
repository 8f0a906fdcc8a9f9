#!/usr/bin/env node
// Screenshots of an extension in a real VS Code: starts code-server headless with the extension
// loaded (development mode, or installed from a .vsix), opens a workspace in headless Chromium,
// clicks the activity-bar icon of a view container, and saves PNGs of the sidebar, of the open
// editor (if any) and of the whole window. Further steps come from a small JSON script.
//
//   node scripts/vscode/screenshots.mjs --out=DIR [options]
//     --extensionDevelopmentPath=DIR  the extension, loaded in development mode (default: this repository)
//     --vsix=FILE                     install this .vsix with code-server's CLI instead
//     --workspace=DIR                 folder to open (default: an empty temporary one)
//     --view-container=ID|TITLE       activity-bar container to open first (id from the
//                                     extension's package.json, or the title shown on hover)
//     --script=FILE                   JSON array of steps, run after that (see below)
//     --wait=MS                       pause after opening the container (default 2000)
//     --env=NAME=VALUE                extra environment for the extension host (repeatable)
//     --settings=FILE                 JSON object merged into the user settings
//     --size=WIDTHxHEIGHT             window size (default 1400x900)
//     --timeout=MS                    default timeout of a step (default 30000)
//     --keep                          keep the run folder (code-server.log, user data)
//   Steps (one key names the action; "timeout" and "name" may be added to any):
//     {"click": SELECTOR}               click an element of the workbench (Playwright selector:
//                                       CSS, text=..., role=treeitem[name="..."])
//     {"activity": ID|TITLE}            click an activity-bar icon, like --view-container
//     {"command": TITLE}                run a command from the palette: F1, type its title, pick it
//     {"type": TEXT} / {"press": KEY}   keyboard input (KEY as Playwright names it: Enter, Escape)
//     {"waitFor": SELECTOR}             wait until visible
//     {"wait": MS}                      pause
//     {"webviewWaitFor": SELECTOR}      wait until an element shows inside any webview
//     {"webviewClick": SELECTOR}        click an element inside the webview that has it; add
//                                       "in": SELECTOR to pick the webview that also shows that
//                                       (e.g. its heading) when several have the element
//     {"dialog": BUTTON}                click a button of the modal dialog showing now
//     {"screenshot": NAME, "target": "window"|"sidebar"|"editor"|"panel"|SELECTOR}
//   Every step is printed ok/FAIL; a failing step saves failure.png and stops the run. The steps
//   and the files written are also saved as DIR/steps.json. Exit code 0 when every step passed.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupReport, codeServerEntry, launchChromium, makeLogger, nodeBin, parseEnvAssignments, startCodeServer, workbenchUrl } from './codeServer.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const flags = { env: [] };
for (const arg of process.argv.slice(2)) {
  const m = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
  if (!m) throw new Error(`unexpected argument ${arg} (flags are --name=value)`);
  if (m[1] === 'env') flags.env.push(m[2]);
  else flags[m[1]] = m[2] ?? true;
}
if (!flags.out) {
  console.error(
    'usage: node scripts/vscode/screenshots.mjs --out=DIR [--extensionDevelopmentPath=DIR | --vsix=FILE] [--workspace=DIR] [--view-container=ID] [--script=FILE] (see the header of this file)',
  );
  process.exit(2);
}

const log = makeLogger();
const outDir = path.resolve(flags.out);
const stepTimeout = Number(flags.timeout || 30_000);
const [width, height] = String(flags.size || '1400x900')
  .split('x')
  .map(Number);
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vscode-harness-shots-'));
const userDataDir = path.join(runDir, 'user-data');
const extensionsDir = path.join(runDir, 'extensions');
const devPath = flags.vsix ? undefined : path.resolve(flags.extensionDevelopmentPath || root);
let workspace = flags.workspace ? path.resolve(flags.workspace) : path.join(runDir, 'workspace');
fs.mkdirSync(workspace, { recursive: true });
fs.mkdirSync(outDir, { recursive: true });
fs.rmSync(path.join(outDir, 'failure.png'), { force: true });

const script = flags.script ? JSON.parse(fs.readFileSync(flags.script, 'utf8')) : [];
if (!Array.isArray(script)) throw new Error(`${flags.script}: want a JSON array of steps`);
const steps = [];
if (flags['view-container'])
  steps.push(
    { activity: flags['view-container'] },
    { wait: Number(flags.wait || 2_000) },
    { screenshot: 'sidebar', target: 'sidebar' },
    { screenshot: 'editor', target: 'editor', optional: true },
    { screenshot: 'window', target: 'window' },
  );
steps.push(...script);
if (steps.length === 0) steps.push({ wait: Number(flags.wait || 2_000) }, { screenshot: 'window', target: 'window' });

/** The manifests of the extension under test, to turn a view-container id into its title. */
function manifests() {
  const dirs = devPath ? [devPath] : fs.readdirSync(extensionsDir).map((d) => path.join(extensionsDir, d));
  return dirs.flatMap((d) => {
    try {
      return [JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8'))];
    } catch {
      return [];
    }
  });
}
function containerTitle(idOrTitle) {
  for (const m of manifests()) {
    for (const c of m.contributes?.viewsContainers?.activitybar ?? []) if (c.id === idOrTitle) return c.title;
  }
  return idOrTitle;
}

const written = [];
const record = [];
let server;
let browser;
let page;

async function shot(name, target = 'window', optional = false) {
  const file = path.join(outDir, `${name}.png`);
  const selector = { window: null, sidebar: '.part.sidebar', editor: '.part.editor', panel: '.part.panel' }[target] ?? (target === 'window' ? null : target);
  if (target === 'editor' && (await page.locator('.part.editor .tabs-container .tab').count()) === 0) {
    if (optional) return 'no editor open: skipped';
    throw new Error('no editor is open');
  }
  if (selector) {
    const el = page.locator(selector).first();
    if (optional && !(await el.isVisible().catch(() => false))) return `${target} not visible: skipped`;
    await el.screenshot({ path: file, timeout: stepTimeout });
  } else {
    await page.screenshot({ path: file });
  }
  written.push(file);
  return file;
}

/** Moves the pointer to the empty middle of the status bar, so that no hover shows in a screenshot. */
async function parkMouse() {
  await page.mouse.move(Math.round(width / 2), height - 3);
}

/** Every ready webview's inner frame (a webview is iframe.webview > iframe#active-frame). */
async function findInWebviews(selector, timeout, within) {
  const end = Date.now() + timeout;
  for (;;) {
    const n = await page.locator('iframe.webview.ready').count();
    for (let i = 0; i < n; i++) {
      const frame = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('#active-frame');
      const loc = frame.locator(selector).first();
      if (!(await loc.isVisible().catch(() => false))) continue;
      if (
        within &&
        !(await frame
          .locator(within)
          .first()
          .isVisible()
          .catch(() => false))
      )
        continue;
      return loc;
    }
    if (Date.now() > end) throw new Error(`no webview shows ${selector}${within ? ` together with ${within}` : ''}`);
    await page.waitForTimeout(250);
  }
}

async function runCommand(title, timeout) {
  await page
    .locator('.part.titlebar, .part.statusbar')
    .first()
    .click({ position: { x: 5, y: 5 } })
    .catch(() => {});
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout });
  await row.click();
  await parkMouse();
}

async function runStep(step) {
  const timeout = step.timeout ?? stepTimeout;
  if ('click' in step) {
    await page.locator(step.click).first().click({ timeout });
    return void (await parkMouse());
  }
  if ('activity' in step) {
    const title = containerTitle(step.activity);
    const item = page.locator(`.activitybar .action-item [aria-label^="${title.replace(/"/g, '\\"')}"]`).first();
    await item.waitFor({ timeout }).catch(() => {
      throw new Error(`no activity-bar icon titled "${title}" (is the extension loaded?)`);
    });
    await item.click();
    await parkMouse();
    return `opened "${title}"`;
  }
  if ('command' in step) return void (await runCommand(step.command, timeout));
  if ('type' in step) return void (await page.keyboard.type(step.type, { delay: 20 }));
  if ('press' in step) return void (await page.keyboard.press(step.press));
  if ('waitFor' in step) return void (await page.locator(step.waitFor).first().waitFor({ state: 'visible', timeout }));
  if ('wait' in step) return void (await page.waitForTimeout(step.wait));
  if ('webviewWaitFor' in step) return void (await findInWebviews(step.webviewWaitFor, timeout, step.in));
  if ('webviewClick' in step) return void (await (await findInWebviews(step.webviewClick, timeout, step.in)).click({ timeout }));
  if ('dialog' in step) return void (await page.locator('.monaco-dialog-box').getByRole('button', { name: step.dialog }).click({ timeout }));
  if ('screenshot' in step) return shot(step.screenshot, step.target, step.optional);
  throw new Error(`unknown step ${JSON.stringify(step)}`);
}

let failed = 0;
let exitCode = 1;
let shutdownPromise;
function shutdown() {
  shutdownPromise ??= (async () => {
    if (browser) await browser.close().catch(() => {});
    if (server) {
      const report = cleanupReport(await server.stop({ log }));
      log(report.line);
      if (!report.ok) exitCode = 1;
    }
  })();
  return shutdownPromise;
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    log(`${sig}: stopping`);
    shutdown().finally(() => process.exit(130));
  });
}

try {
  const settings = flags.settings ? JSON.parse(fs.readFileSync(flags.settings, 'utf8')) : {};
  if (flags.vsix) {
    log('installing', flags.vsix);
    const r = spawnSync(
      nodeBin,
      [
        codeServerEntry,
        '--config',
        path.join(runDir, 'config.yaml'),
        '--user-data-dir',
        userDataDir,
        '--extensions-dir',
        extensionsDir,
        '--install-extension',
        path.resolve(flags.vsix),
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`code-server --install-extension failed:\n${r.stdout}${r.stderr}`);
  }
  server = await startCodeServer({ runDir, userDataDir, extensionsDir, workspace, devMode: !!devPath, settings, env: parseEnvAssignments(flags.env), log });
  browser = await launchChromium(server);
  page = await browser.newPage({ viewport: { width, height } });
  await page.goto(workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: devPath ? [devPath] : [] }));
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  log(`workbench loaded (${devPath ? `development mode: ${devPath}` : `installed from ${flags.vsix}`}; workspace ${workspace})`);
  for (const [i, step] of steps.entries()) {
    const label = step.name ?? JSON.stringify(step);
    try {
      const info = await runStep(step);
      record.push({ step, ok: true, info });
      console.log(`  ok   ${i + 1}. ${label}${info ? ` -> ${info}` : ''}`);
    } catch (e) {
      failed += 1;
      record.push({ step, ok: false, error: e.message });
      console.log(`  FAIL ${i + 1}. ${label}: ${e.message.split('\n')[0]}`);
      await shot('failure').catch(() => {});
      break;
    }
  }
  exitCode = failed === 0 ? 0 : 1;
} catch (e) {
  failed += 1;
  console.error(`screenshots: ${String(e.message).split('\n').slice(0, 4).join('\n')}`);
  if (page) await shot('failure').catch(() => {});
} finally {
  await shutdown();
  fs.writeFileSync(path.join(outDir, 'steps.json'), JSON.stringify({ steps: record, screenshots: written }, null, 2));
  for (const f of written) log('wrote', f);
  console.log(`${record.filter((r) => r.ok).length} passed, ${failed} failed`);
  if (exitCode === 0 && !flags.keep) fs.rmSync(runDir, { recursive: true, force: true });
  else log('run folder:', runDir);
  process.exit(exitCode);
}
