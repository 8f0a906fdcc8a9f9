// The in-host entry (extensionTestsPath): VS Code's extension host requires the bundled
// out/integration/index.js and awaits run(). It runs mocha (11: mocha 12 is ESM-only and cannot
// be required) on every *.test.js next to it and writes the results to $HARNESS_TEST_OUT, which
// the outside runner reads (a web workbench cannot hand an exit code back to it).
// Environment: HARNESS_TEST_OUT (results file), HARNESS_TEST_LOG (a copy of mocha's report and
// of the tests' console output, which the runner prints as it grows), HARNESS_GREP (run only
// matching tests), HARNESS_MOCHA_TIMEOUT (ms per test, default 60000).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

export interface TestRecord {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  message?: string;
}

export interface TestResults {
  passes: number;
  failures: number;
  pending: number;
  failed: { title: string; message: string }[];
  tests: TestRecord[];
  started: string;
  finished?: string;
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith('.test.js')) out.push(full);
  }
  return out.sort();
}

type LogFn = (...data: unknown[]) => void;

/** Copies console output (and mocha's report) to `file` until the returned function is called. */
function teeConsole(file: string | undefined): () => void {
  if (!file) return () => {};
  const append = (data: unknown[]): void => {
    try {
      fs.appendFileSync(file, `${format(...data)}\n`);
    } catch {
      /* the log is a convenience */
    }
  };
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const saved = methods.map((m) => console[m]);
  const savedReporterLog = Mocha.reporters.Base.consoleLog;
  const wrap =
    (original: LogFn): LogFn =>
    (...data) => {
      append(data);
      original(...data);
    };
  methods.forEach((m, i) => {
    console[m] = wrap(saved[i] as LogFn);
  });
  Mocha.reporters.Base.consoleLog = wrap(savedReporterLog);
  return () => {
    methods.forEach((m, i) => {
      console[m] = saved[i] as LogFn;
    });
    Mocha.reporters.Base.consoleLog = savedReporterLog;
  };
}

export function run(): Promise<void> {
  const outFile = process.env.HARNESS_TEST_OUT || path.join(os.tmpdir(), 'vscode-harness-test-results.json');
  const results: TestResults = { passes: 0, failures: 0, pending: 0, failed: [], tests: [], started: new Date().toISOString() };
  const fail = (title: string, err: unknown): void => {
    const e = err as Error | undefined;
    results.failures += 1;
    results.failed.push({ title, message: String(e?.message ?? err).slice(0, 500) });
    results.tests.push({ title, state: 'failed', message: String(e?.stack ?? err).slice(0, 2000) });
  };
  const untee = teeConsole(process.env.HARNESS_TEST_LOG);
  const write = (): void => {
    untee();
    results.finished = new Date().toISOString();
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    // Written whole, then renamed: the runner polls for this file.
    fs.writeFileSync(`${outFile}.tmp`, JSON.stringify(results, null, 2));
    fs.renameSync(`${outFile}.tmp`, outFile);
  };

  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: Number(process.env.HARNESS_MOCHA_TIMEOUT || 60_000) });
  if (process.env.HARNESS_GREP) mocha.grep(process.env.HARNESS_GREP);
  const files = testFiles(__dirname);
  for (const file of files) mocha.addFile(file);

  return new Promise<void>((resolve, reject) => {
    let runner: Mocha.Runner;
    try {
      runner = mocha.run((failures) => {
        write();
        console.log(`${results.passes} passed, ${results.failures} failed`);
        if (failures > 0 || results.failures > 0) reject(new Error(`${results.failures} test(s) failed`));
        else resolve();
      });
    } catch (err) {
      // A test file that throws while loading.
      fail(`loading ${files.map((f) => path.basename(f)).join(', ')}`, err);
      write();
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    runner.on('pass', (test) => {
      results.passes += 1;
      results.tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 });
    });
    runner.on('fail', (test, err) => fail(test.fullTitle(), err));
    runner.on('pending', (test) => {
      results.pending += 1;
      results.tests.push({ title: test.fullTitle(), state: 'pending' });
    });
  });
}
