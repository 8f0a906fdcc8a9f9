// Temp folders per test, removed afterwards, with every ledger host and standby serving a ledger
// inside them killed and gone first: no test leaves a host process behind. useTempDirs() removes
// them in a root afterEach hook (this file is a root hook plugin, .mocharc.json), which mocha runs
// after the test's own afterEach hooks: the servers and clients a test stops there are gone before
// their folders go, so none of them starts a host for a folder being removed.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { processAlive } from '../../src/core/storage/fileLock';

const made: string[] = [];

/**
 * The V8 code caches (src/core/codeCache.ts) of every CLI and server the tests start: one folder for
 * this test process instead of the user's cache, removed when the process exits. Set in the
 * environment too, for the processes started with it; cleanEnv() keeps it.
 */
export const TEST_CODE_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-test-code-cache-'));
process.env.AGENT_PROGRESS_CODE_CACHE = TEST_CODE_CACHE;
process.once('exit', () => fs.rmSync(TEST_CODE_CACHE, { recursive: true, force: true }));

/**
 * The user's runtime folder (XDG_RUNTIME_DIR) for this test process and every process it starts:
 * a PostgreSQL ledger's host keeps its folder and socket there (src/core/host/paths.ts), so no
 * host started by a test lives on in the real one. Its hosts are stopped at the end (mochaHooks),
 * and leave by themselves once the folder is removed at exit.
 */
export const TEST_RUNTIME_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-test-runtime-'));
fs.chmodSync(TEST_RUNTIME_DIR, 0o700);
process.env.XDG_RUNTIME_DIR = TEST_RUNTIME_DIR;
process.once('exit', () => fs.rmSync(TEST_RUNTIME_DIR, { recursive: true, force: true }));

export function tempDir(prefix = 'ap-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** The pids named by ledger hosts' pid files (`*.host/standby.pid`, then `*.host/host.pid`) under `dir`, a few levels deep. */
export function hostPidsUnder(dir: string, depth = 4): number[] {
  const pids: number[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name === '.git') continue;
    const sub = path.join(dir, entry.name);
    if (entry.name.endsWith('.host')) {
      // The standby first: killed after its host, it would take over.
      for (const file of ['standby.pid', 'host.pid']) {
        try {
          const pid = (JSON.parse(fs.readFileSync(path.join(sub, file), 'utf8')) as { pid?: unknown }).pid;
          if (typeof pid === 'number' && pid > 0 && pid !== process.pid) pids.push(pid);
        } catch {
          // none
        }
      }
    } else if (depth > 0) {
      pids.push(...hostPidsUnder(sub, depth - 1));
    }
  }
  return pids;
}

/**
 * Live ledger host processes (built or run from source, hosts and standbys, standbys first)
 * whose `--ledger` is under `dir` (a PostgreSQL ledger's: whose runtime folder is), found in /proc: this also finds a standby just started, before
 * it wrote its pid file, and a host a client is starting. Elsewhere, the pid files.
 */
export function hostProcessesUnder(dir: string): number[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return hostPidsUnder(dir).filter(processAlive);
  }
  const roots = [dir];
  try {
    roots.push(fs.realpathSync.native(dir));
  } catch {
    // removed already: its hosts still name it as it was
  }
  const standbys: number[] = [];
  const hosts: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (!argv.some((a) => a.endsWith('ledgerHost.js') || a.endsWith(path.join('core', 'host', 'main.ts')))) continue;
    // A file's host names its ledger; a PostgreSQL ledger's host runs in the runtime folder that holds its own.
    let served = argv[argv.indexOf('--ledger') + 1] ?? '';
    if (argv.includes('--postgres')) {
      try {
        served = `${fs.readlinkSync(`/proc/${name}/cwd`).replace(/ \(deleted\)$/, '')}${path.sep}`;
      } catch {
        continue;
      }
    } else if (!argv.includes('--ledger')) continue;
    if (!roots.some((root) => served.startsWith(`${root}${path.sep}`))) continue;
    if (!processAlive(Number(name))) continue; // a zombie has left already
    (argv.includes('--standby') ? standbys : hosts).push(Number(name));
  }
  return [...standbys, ...hosts];
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Kills (SIGKILL) the ledger hosts and standbys serving ledgers under `dir` and waits until they
 * are gone, again while new ones appear (a standby taking over from its killed host). Returns the
 * pids killed.
 */
export function killHostsUnder(dir: string): number[] {
  const killed: number[] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pids = hostProcessesUnder(dir);
    if (pids.length === 0) return killed;
    if (Date.now() > deadline) throw new Error(`Ledger host processes ${pids.join(', ')} under ${dir} did not exit after SIGKILL`);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      } catch {
        // already gone
      }
    }
    while (pids.some(processAlive) && Date.now() <= deadline) sleepSync(10);
  }
}

/** Removes the temp folders made so far, each once no ledger host serves a ledger inside it. */
export function removeTempDirs(): void {
  while (made.length > 0) {
    const dir = made.pop()!;
    killHostsUnder(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let removeAfterTest = false;

/** Removes the temp folders after each test of the enclosing describe block (after its own afterEach hooks). */
export function useTempDirs(): void {
  beforeEach(() => {
    removeAfterTest = true;
  });
  // Run without this file's root hooks, the folders go at the end of the block instead.
  after(() => {
    if (removeAfterTest) removeTempDirs();
    removeAfterTest = false;
  });
}

/** Root hooks (.mocharc.json): temp folders go after a test's own hooks; hosts under folders a test kept are stopped at the end. */
export const mochaHooks = {
  afterEach(): void {
    if (!removeAfterTest) return;
    removeAfterTest = false;
    removeTempDirs();
  },
  afterAll(): void {
    for (const dir of made) killHostsUnder(dir);
    killHostsUnder(TEST_RUNTIME_DIR);
  },
};
