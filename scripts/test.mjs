// The test command: typecheck, lint, build, unit tests, end-to-end tests against dist/, and
// integration tests inside a real VS Code (code-server's extension host, see scripts/vscode/),
// browser tests of the workbench, and `vsix`: the packaged extension installed and driven end to end.
// Ends with one "N passed, N failed" line and exits non-zero on any failure.
// `node scripts/test.mjs unit e2e` runs only those stages.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const resultsDir = path.join(root, '.test-results');
mkdirSync(resultsDir, { recursive: true });

// Counts files are per run of this script: two runs in one checkout (a targeted run beside the full
// one) must never read each other's counts.
const countsPath = (name) => path.join(resultsDir, `${name}-${process.pid}.json`);

const mocha = (name, spec, extra = []) => ({
  name,
  mocha: true,
  cmd: [bin('mocha'), '--require', 'tsx/cjs', '--reporter', path.join(root, 'scripts/mochaReporter.cjs'), '--reporter-option', `out=${countsPath(name)}`, ...extra, spec],
});

const STAGES = [
  // Node code and browser code (webviews) are checked against their own libraries.
  { name: 'typecheck', cmd: ['sh', '-c', `"${bin('tsc')}" --noEmit -p . && "${bin('tsc')}" --noEmit -p tsconfig.webview.json`] },
  // package.json's lint script: ESLint, then the formatter's check (npm run format rewrites what it finds).
  { name: 'lint', cmd: ['npm', 'run', '--silent', 'lint'] },
  { name: 'build', cmd: [process.execPath, 'esbuild.mjs'] },
  mocha('unit', 'test/unit/**/*.test.ts', ['--timeout', '20000']),
  mocha('e2e', 'test/e2e/**/*.test.ts', ['--timeout', '60000']),
  {
    // Mocha inside VS Code's extension host: test/integration/runTest.ts through
    // @vscode/test-electron and the code-server shim. The first run on a machine installs the
    // harness (about 4 minutes); later runs reuse $VSCODE_HARNESS_HOME.
    name: 'integration',
    counts: true,
    before: [
      {
        what: 'install the VS Code harness (scripts/vscode/install.sh)',
        skip: () => {
          const check = spawnSync('bash', ['scripts/vscode/install.sh', '--check'], { cwd: root, encoding: 'utf8' });
          if (check.status !== 0) process.stdout.write(check.stdout);
          return check.status === 0;
        },
        announce: 'VS Code harness not installed: running scripts/vscode/install.sh (about 4 minutes on a fresh machine)',
        cmd: ['bash', 'scripts/vscode/install.sh'],
      },
      { what: 'build the extension', cmd: [process.execPath, 'esbuild.mjs'] },
      { what: 'bundle the integration tests', cmd: [process.execPath, 'scripts/vscode/buildIntegrationTests.mjs'] },
    ],
    cmd: [bin('tsx'), 'test/integration/runTest.ts', `--counts=${countsPath('integration')}`, `--screenshots=${path.join(resultsDir, 'integration-screenshots')}`],
  },
  {
    // A person's view: the workbench in headless Chromium, screenshots in .test-results/screenshots.
    ...mocha('browser', 'test/browser/**/*.test.ts', ['--timeout', '240000']),
    before: [
      {
        what: 'install the VS Code harness (scripts/vscode/install.sh)',
        skip: () => spawnSync('bash', ['scripts/vscode/install.sh', '--check'], { cwd: root }).status === 0,
        announce: 'VS Code harness not installed: running scripts/vscode/install.sh',
        cmd: ['bash', 'scripts/vscode/install.sh'],
      },
      { what: 'build the extension', cmd: [process.execPath, 'esbuild.mjs'] },
    ],
  },
  {
    // The package a stranger installs: npm run package, then test/vsix installs agent-progress.vsix
    // into a fresh code-server and checks it as a person would; screenshots in .test-results/
    // vsix-screenshots (`npm run screenshots` writes the README's, docs/screenshots, instead).
    ...mocha('vsix', 'test/vsix/**/*.test.ts', ['--timeout', '300000']),
    before: [
      {
        what: 'install the VS Code harness (scripts/vscode/install.sh)',
        skip: () => spawnSync('bash', ['scripts/vscode/install.sh', '--check'], { cwd: root }).status === 0,
        announce: 'VS Code harness not installed: running scripts/vscode/install.sh',
        cmd: ['bash', 'scripts/vscode/install.sh'],
      },
      { what: 'package the extension (npm run package)', cmd: ['npm', 'run', '--silent', 'package'] },
      { what: 'check the package (scripts/checkPackage.mjs)', cmd: [process.execPath, 'scripts/checkPackage.mjs'] },
    ],
  },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !STAGES.some((s) => s.name === w));
if (unknown.length > 0) {
  console.error(`Unknown stage(s): ${unknown.join(', ')}. Stages: ${STAGES.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const stages = wanted.length === 0 ? STAGES : STAGES.filter((s) => wanted.includes(s.name));
if (wanted.length > 0 && stages.some((s) => s.name === 'e2e') && !wanted.includes('build')) stages.unshift(STAGES.find((s) => s.name === 'build'));

const runInherit = (cmd) => spawnSync(cmd[0], cmd.slice(1), { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' } });

/** Runs a stage's preparation steps; returns the first that failed, with its exit status. */
function runSteps(steps) {
  for (const step of steps) {
    if (step.skip?.()) continue;
    if (step.announce) console.log(step.announce);
    const run = runInherit(step.cmd);
    if (run.status !== 0) {
      console.log(`Could not ${step.what}: exit ${run.status ?? run.signal ?? run.error?.message}`);
      return { ...step, status: run.status ?? run.signal };
    }
  }
  return undefined;
}

let passed = 0;
let failed = 0;
const report = [];
for (const stage of stages) {
  const started = Date.now();
  console.log(`\n=== ${stage.name} ===`);
  const countsFile = countsPath(stage.name);
  if (stage.mocha || stage.counts) rmSync(countsFile, { force: true });
  const failedStep = runSteps(stage.before ?? []);
  if (failedStep) {
    failed += 1;
    report.push(`${stage.name}: FAILED to ${failedStep.what} (exit ${failedStep.status}); see the output above (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    continue;
  }
  const run = runInherit(stage.cmd);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (stage.mocha || stage.counts) {
    if (existsSync(countsFile)) {
      const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
      rmSync(countsFile, { force: true });
      passed += counts.passes;
      failed += counts.failures;
      if (run.status !== 0 && counts.failures === 0) failed += 1; // the runner itself failed (load error, process left behind)
      report.push(`${stage.name}: ${counts.passes} passed, ${counts.failures} failed (${seconds} s)`);
      // The failures again at the end, where a log cut to its last lines still shows them.
      for (const f of counts.failed ?? []) report.push(`  failed: ${f.title}: ${String(f.message).split('\n').slice(0, 4).join(' | ').slice(0, 400)}`);
    } else {
      failed += 1;
      report.push(`${stage.name}: did not run (exit ${run.status}) (${seconds} s)`);
    }
  } else if (run.status === 0) {
    passed += 1;
    report.push(`${stage.name}: ok (${seconds} s)`);
  } else {
    failed += 1;
    report.push(`${stage.name}: FAILED (exit ${run.status}) (${seconds} s)`);
  }
}
console.log('\n' + report.join('\n'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
