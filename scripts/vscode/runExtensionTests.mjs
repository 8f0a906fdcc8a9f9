#!/usr/bin/env node
// Runs mocha tests inside a real VS Code extension host: code-server (VS Code 1.139) started
// headless on a free loopback port, its workbench opened in headless Chromium with the
// extension-development options in ?payload= (code-server starts no extension host until a
// workbench connects). The in-host entry (extensionTestsPath, e.g. out/integration/index.js)
// writes its results to $HARNESS_TEST_OUT; this prints every test, then "N passed, N failed".
//
//   node scripts/vscode/runExtensionTests.mjs [options] [workspaceFolder]
//     --extensionDevelopmentPath=DIR  the extension (repeatable; default: this repository)
//     --extensionTestsPath=FILE       the in-host entry exporting run() (default: out/integration/index.js)
//     --user-data-dir=DIR             VS Code user data (default: a fresh folder in the run dir)
//     --extensions-dir=DIR            installed extensions (default: a fresh, empty folder)
//     --counts=FILE                   write {passes, failures, pending, failed:[{title,message}]} there
//     --screenshots=DIR               save PNGs of the workbench (when ready, at the end, on failure)
//     --env=NAME=VALUE                extra environment for the extension host (repeatable); the
//                                     whole environment of this process is passed on as well
//     --timeout=MS                    give up waiting for the results (default 300000)
//     --keep                          keep the run folder (kept anyway when something failed)
//     --verbose                       print the whole browser console, not only the host's output
//   Flags may also be written "--flag value". Desktop VS Code flags that do not apply here
//   (--no-sandbox, --disable-extensions, --skip-welcome, ...) are ignored, so that
//   code-server-test (beside this file) can stand in for a VS Code executable in
//   @vscode/test-electron's runTests({ vscodeExecutablePath }).
//   Environment: HARNESS_TEST_OUT (where the in-host runner writes its results), HARNESS_COUNTS, HARNESS_SCREENSHOTS, HARNESS_TIMEOUT_MS, HARNESS_KEEP_RUN=1,
//   HARNESS_VERBOSE=1 are defaults for the flags above; VSCODE_HARNESS_HOME is the install.
// Exit code 0 when at least one test ran, none failed, and no process was left behind.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupReport, launchChromium, makeLogger, parseEnvAssignments, startCodeServer, workbenchUrl } from './codeServer.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const VALUE_FLAGS = new Set(['extensionDevelopmentPath', 'extensionTestsPath', 'user-data-dir', 'extensions-dir', 'counts', 'screenshots', 'env', 'timeout', 'folder-uri']);
const BOOLEAN_FLAGS = new Set(['keep', 'verbose']);

function parseArgs(argv) {
  const flags = { extensionDevelopmentPath: [], env: [] };
  const positional = [];
  const ignored = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!m) {
      positional.push(arg);
      continue;
    }
    const [, name, inline] = m;
    if (VALUE_FLAGS.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      if (Array.isArray(flags[name])) flags[name].push(value);
      else flags[name] = value;
    } else if (BOOLEAN_FLAGS.has(name)) {
      flags[name] = inline === undefined || inline !== 'false';
    } else {
      ignored.push(arg);
    }
  }
  return { flags, positional, ignored };
}

const { flags, positional, ignored } = parseArgs(process.argv.slice(2));
const log = makeLogger();
const verbose = flags.verbose || process.env.HARNESS_VERBOSE === '1';
const keep = flags.keep || process.env.HARNESS_KEEP_RUN === '1';
const countsFile = flags.counts || process.env.HARNESS_COUNTS;
const screenshotsDir = flags.screenshots || process.env.HARNESS_SCREENSHOTS;
const timeoutMs = Number(flags.timeout || process.env.HARNESS_TIMEOUT_MS || 300_000);
const devPaths = (flags.extensionDevelopmentPath.length > 0 ? flags.extensionDevelopmentPath : [root]).map((p) => path.resolve(p));
const testsPath = path.resolve(flags.extensionTestsPath || path.join(root, 'out', 'integration', 'index.js'));
if (flags['folder-uri'] && !positional.length) positional.push(new URL(flags['folder-uri']).pathname);

const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vscode-harness-run-'));
const userDataDir = path.resolve(flags['user-data-dir'] || path.join(runDir, 'user-data'));
const extensionsDir = path.resolve(flags['extensions-dir'] || path.join(runDir, 'extensions'));
let workspace = positional[0] ? path.resolve(positional[0]) : path.join(runDir, 'workspace');
if (!positional[0]) {
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), '# test workspace\n');
}
// A caller (test/integration/runTest.ts) may choose where the results go.
const resultsFile = path.resolve(process.env.HARNESS_TEST_OUT || path.join(runDir, 'test-results.json'));
fs.rmSync(resultsFile, { force: true });
const hostLogFile = path.join(runDir, 'host.log');

// Prints what the in-host runner appended to host.log since the last call.
let hostLogOffset = 0;
function printHostLog() {
  let text;
  try {
    text = fs.readFileSync(hostLogFile, 'utf8');
  } catch {
    return;
  }
  const lastNewline = text.lastIndexOf('\n');
  if (lastNewline < hostLogOffset) return;
  for (const line of text.slice(hostLogOffset, lastNewline).split('\n')) console.log(`  | ${line}`);
  hostLogOffset = lastNewline + 1;
}

// Errors from the browser console (the workbench, and the extension host's errors forwarded to
// it), printed when the run fails. Known noise of an offline code-server is left out.
const NOISE = /open-vsx\.org|ERR_NAME_NOT_RESOLVED|authentication provider 'github'|status of 404|AgentHost|api\.github\.com|allow-same-origin|\d+ test\(s\) failed/;
const consoleErrors = [];
function printConsoleErrors() {
  if (consoleErrors.length === 0) return;
  console.log(`  last ${consoleErrors.length} error(s) in the browser console (all of it with --verbose):`);
  for (const e of consoleErrors) console.log(`    ${e.split('\n').slice(0, 8).join('\n    ')}`);
}

function writeCounts(counts) {
  if (!countsFile) return;
  fs.mkdirSync(path.dirname(path.resolve(countsFile)), { recursive: true });
  fs.writeFileSync(countsFile, JSON.stringify(counts));
}

async function shoot(page, name) {
  if (!screenshotsDir || !page) return;
  try {
    fs.mkdirSync(screenshotsDir, { recursive: true });
    const file = path.join(screenshotsDir, `${name}.png`);
    await page.screenshot({ path: file, timeout: 10_000 });
    log('screenshot', file);
  } catch (e) {
    log(`screenshot ${name} failed: ${e.message}`);
  }
}

let server;
let browser;
let page;
let stopping = false;
let interrupted = false;
let exitCode = 1;
let counts = { passes: 0, failures: 1, pending: 0, failed: [{ title: 'extension tests', message: 'did not run' }] };

// Called from the end of the run and from a signal handler: both wait for the same shutdown.
let shutdownPromise;
function shutdown() {
  shutdownPromise ??= (async () => {
    stopping = true;
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
    interrupted = true;
    shutdown().finally(() => process.exit(130));
  });
}

/** The first lines of an error: Playwright's messages carry whole browser logs. */
const brief = (e) =>
  String(e?.message ?? e)
    .split('\n')
    .slice(0, 4)
    .join('\n')
    .slice(0, 800);

try {
  for (const p of [...devPaths, testsPath]) if (!fs.existsSync(p)) throw new Error(`not found: ${p}`);
  if (ignored.length > 0) log('ignoring desktop flags:', ignored.join(' '));
  const extraEnv = parseEnvAssignments(flags.env);
  server = await startCodeServer({
    runDir,
    userDataDir,
    extensionsDir,
    workspace,
    devMode: true,
    log,
    env: { ...extraEnv, HARNESS_TEST_OUT: resultsFile, HARNESS_TEST_LOG: hostLogFile },
  });
  browser = await launchChromium(server);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });

  // The workbench calls window.codeAutomationExit(code) when the extension host running the
  // tests exits (run() settled): then a missing results file means index.js did not load.
  let hostExit = null;
  await page.exposeFunction('codeAutomationExit', (code) => {
    hostExit = { code };
  });
  page.on('console', (m) => {
    const text = m
      .text()
      .replace(/%c|color: #[0-9a-f]{3}/g, '')
      .trim();
    if (verbose) console.log('  [console]', text.slice(0, 2000));
    if ((m.type() === 'error' || /^ERR /.test(text)) && !NOISE.test(text)) {
      consoleErrors.push(text.slice(0, 2000));
      if (consoleErrors.length > 20) consoleErrors.shift();
    }
  });
  page.on('pageerror', (e) => {
    if (verbose) console.log('  [pageerror]', e.message);
  });

  const url = workbenchUrl(server, { folder: workspace, extensionDevelopmentPaths: devPaths, extensionTestsPath: testsPath });
  log('extension', devPaths.join(', '), '| tests', testsPath, '| workspace', workspace);
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  log('workbench loaded; waiting for the tests');
  if (screenshotsDir)
    setTimeout(() => {
      if (!stopping && !hostExit) void shoot(page, '01-workbench');
    }, 3_000);

  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(resultsFile) && !hostExit && Date.now() < deadline) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) throw new Error(`code-server exited during the run; see ${server.logFile}`);
    printHostLog();
    await new Promise((r) => setTimeout(r, 250));
  }
  printHostLog();
  // The results file is written just before run() settles; give the exit call a moment.
  if (fs.existsSync(resultsFile) && !hostExit) await new Promise((r) => setTimeout(r, 500));
  await shoot(page, '99-end');
  if (!fs.existsSync(resultsFile)) {
    throw new Error(
      hostExit
        ? `the extension host exited (code ${hostExit.code}) without writing results: did ${testsPath} load? (rerun with --verbose)`
        : `no test results after ${timeoutMs / 1000} s (rerun with --verbose)`,
    );
  }
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  for (const t of results.tests) {
    if (t.state === 'passed') console.log(`  ok   ${t.title} (${t.durationMs} ms)`);
    else if (t.state === 'pending') console.log(`  skip ${t.title}`);
    else console.log(`  FAIL ${t.title}\n       ${String(t.message).split('\n').join('\n       ')}`);
  }
  counts = { passes: results.passes, failures: results.failures, pending: results.pending, failed: results.failed };
  exitCode = results.failures === 0 && results.passes > 0 ? 0 : 1;
  if (results.passes + results.failures === 0) log('no test ran');
  if (results.failures > 0) printConsoleErrors();
} catch (e) {
  const message = interrupted ? 'interrupted' : brief(e);
  if (!interrupted) {
    printHostLog();
    console.error(`extension tests: ${message}`);
    printConsoleErrors();
    await shoot(page, '99-failure');
  }
  counts = { passes: 0, failures: 1, pending: 0, failed: [{ title: 'extension tests', message: message.slice(0, 500) }] };
  exitCode = 1;
} finally {
  await shutdown();
  writeCounts(counts);
  console.log(`${counts.passes} passed, ${counts.failures} failed${counts.pending ? `, ${counts.pending} skipped` : ''}`);
  if (exitCode === 0 && !keep) fs.rmSync(runDir, { recursive: true, force: true });
  else log('run folder (code-server.log, user data):', runDir);
  process.exit(exitCode);
}
