// Runs the integration tests (bundled into out/integration/ by
// scripts/vscode/buildIntegrationTests.mjs) inside a real VS Code with @vscode/test-electron's
// runTests. It never downloads VS Code: the executable is $VSCODE_EXECUTABLE_PATH when that points
// at a desktop VS Code, else scripts/vscode/code-server-test, which runs code-server's extension
// host with headless Chromium as the window (bash scripts/vscode/install.sh installs it).
//
//   npx tsx test/integration/runTest.ts [--counts=FILE] [--screenshots=DIR] [--workspace=DIR] [--grep=TEXT] [--tests=DIR] [--user-settings=FILE]
//
// --counts writes {passes, failures, pending, failed} for scripts/test.mjs; --workspace opens that
// folder (default: an empty temporary one); --tests runs another bundle than out/integration
// (bench/extension.mjs uses it); --user-settings adds that JSON file's settings to the user's
// (machine-scoped ones such as agentProgress.ledgerPath, which a workspace cannot set). Everything in this process's environment reaches the
// extension host. `node scripts/test.mjs integration` installs, builds and runs this.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import type { TestResults } from './index';

const root = path.resolve(__dirname, '..', '..');
const shim = path.join(root, 'scripts', 'vscode', 'code-server-test');

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv
    .slice(2)
    .find((a) => a.startsWith(prefix))
    ?.slice(prefix.length);
}

async function main(): Promise<number> {
  const desktop = process.env.VSCODE_EXECUTABLE_PATH;
  if (desktop && !fs.existsSync(desktop)) throw new Error(`VSCODE_EXECUTABLE_PATH=${desktop} does not exist (this never downloads VS Code)`);
  const executable = desktop || shim;
  const extensionTestsPath = path.join(path.resolve(root, option('tests') ?? path.join('out', 'integration')), 'index.js');
  if (!fs.existsSync(extensionTestsPath)) throw new Error(`${extensionTestsPath} is missing: run node scripts/vscode/buildIntegrationTests.mjs`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-progress-itest-'));
  const workspace = path.resolve(option('workspace') ?? path.join(tmp, 'workspace'));
  fs.mkdirSync(workspace, { recursive: true });
  const resultsFile = path.join(tmp, 'results.json');
  // VS Code also reads other clients' MCP files in the workspace (.mcp.json, .cursor/mcp.json):
  // the Connect Other Agents tests write those, and their servers must not stand in for the
  // provider's in the tests that follow. Off here; a person's VS Code keeps its own choice.
  const userSettings = path.join(tmp, 'user-data', 'User', 'settings.json');
  fs.mkdirSync(path.dirname(userSettings), { recursive: true });
  fs.writeFileSync(
    userSettings,
    JSON.stringify({
      'chat.mcp.discovery.enabled': { 'claude-desktop': false, copilot: false, windsurf: false, 'cursor-global': false, 'cursor-workspace': false },
      'chat.mcp.workspaceRootConfig.enabled': false,
      ...(option('user-settings') ? (JSON.parse(fs.readFileSync(option('user-settings')!, 'utf8')) as Record<string, unknown>) : {}),
    }),
  );
  const countsFile = option('counts');
  const screenshots = option('screenshots');
  const grep = option('grep');

  let exitCode = 1;
  try {
    exitCode = await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: root,
      extensionTestsPath,
      launchArgs: [workspace, `--user-data-dir=${path.join(tmp, 'user-data')}`, `--extensions-dir=${path.join(tmp, 'extensions')}`, '--disable-extensions'],
      extensionTestsEnv: {
        HARNESS_TEST_OUT: resultsFile,
        ...(screenshots ? { HARNESS_SCREENSHOTS: path.resolve(screenshots) } : {}),
        ...(grep ? { HARNESS_GREP: grep } : {}),
      },
    });
  } catch (err) {
    // runTests rejects when the executable exits non-zero (a failed test, or no run at all).
    console.error(String((err as Error).message ?? err));
  }

  let results: TestResults | undefined;
  try {
    results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as TestResults;
  } catch {
    /* no run */
  }
  const counts = results
    ? { passes: results.passes, failures: results.failures, pending: results.pending, failed: results.failed }
    : { passes: 0, failures: 1, pending: 0, failed: [{ title: 'integration tests', message: 'VS Code exited without test results (see above)' }] };
  if (results && exitCode !== 0 && results.failures === 0) {
    // All tests passed but the run still failed (e.g. a process was left behind): count it.
    counts.failures += 1;
    counts.failed.push({ title: 'integration run', message: `exit code ${exitCode} after the tests passed (see above)` });
  }
  if (countsFile) fs.writeFileSync(countsFile, JSON.stringify(counts));
  if (desktop) {
    // The code-server runner prints these itself.
    for (const t of results?.tests ?? [])
      console.log(`  ${t.state === 'passed' ? 'ok  ' : t.state === 'pending' ? 'skip' : 'FAIL'} ${t.title}${t.message ? `\n       ${t.message}` : ''}`);
    console.log(`${counts.passes} passed, ${counts.failures} failed`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  return counts.failures === 0 && counts.passes > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`integration tests: ${(err as Error).message ?? err}`);
    process.exit(1);
  },
);
