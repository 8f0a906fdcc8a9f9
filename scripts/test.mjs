// The test command: typecheck, lint, build, unit tests, end-to-end tests against dist/ (and, once
// the extension exists, tests inside a real VS Code). Ends with one "N passed, N failed" line and
// exits non-zero on any failure. `node scripts/test.mjs unit e2e` runs only those stages.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const resultsDir = path.join(root, '.test-results');
mkdirSync(resultsDir, { recursive: true });

const mocha = (name, spec, extra = []) => ({
  name,
  mocha: true,
  cmd: [bin('mocha'), '--require', 'tsx/cjs', '--reporter', path.join(root, 'scripts/mochaReporter.cjs'), '--reporter-option', `out=${path.join(resultsDir, `${name}.json`)}`, ...extra, spec],
});

const STAGES = [
  { name: 'typecheck', cmd: [bin('tsc'), '--noEmit', '-p', '.'] },
  { name: 'lint', cmd: [bin('eslint'), '--max-warnings', '0', '.'] },
  { name: 'build', cmd: [process.execPath, 'esbuild.mjs'] },
  mocha('unit', 'test/unit/**/*.test.ts', ['--timeout', '20000']),
  mocha('e2e', 'test/e2e/**/*.test.ts', ['--timeout', '60000']),
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !STAGES.some((s) => s.name === w));
if (unknown.length > 0) {
  console.error(`Unknown stage(s): ${unknown.join(', ')}. Stages: ${STAGES.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const stages = wanted.length === 0 ? STAGES : STAGES.filter((s) => wanted.includes(s.name));
if (wanted.length > 0 && stages.some((s) => s.name === 'e2e') && !wanted.includes('build')) stages.unshift(STAGES.find((s) => s.name === 'build'));

let passed = 0;
let failed = 0;
const report = [];
for (const stage of stages) {
  const started = Date.now();
  console.log(`\n=== ${stage.name} ===`);
  const countsFile = path.join(resultsDir, `${stage.name}.json`);
  if (stage.mocha) rmSync(countsFile, { force: true });
  const run = spawnSync(stage.cmd[0], stage.cmd.slice(1), { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (stage.mocha) {
    if (existsSync(countsFile)) {
      const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
      passed += counts.passes;
      failed += counts.failures;
      if (run.status !== 0 && counts.failures === 0) failed += 1; // mocha itself failed (load error)
      report.push(`${stage.name}: ${counts.passes} passed, ${counts.failures} failed (${seconds} s)`);
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
