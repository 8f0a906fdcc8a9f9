// Temp folders per test, removed afterwards, with every ledger host serving a ledger inside them
// stopped first (kill -9 of the pid its pid file names): no test leaves a host process behind.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

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

/** Kills the ledger hosts serving ledgers under `dir`. */
export function killHostsUnder(dir: string): number[] {
  const pids = hostPidsUnder(dir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids;
}

export function removeTempDirs(): void {
  while (made.length > 0) {
    const dir = made.pop()!;
    // A killed host's standby takes over and writes its own pid file, and a host may still be
    // writing into its folder while it is removed: kill whatever the folder names again until
    // it is gone (ENOTEMPTY means something wrote into it during the removal).
    const deadline = Date.now() + 10_000;
    for (;;) {
      killHostsUnder(dir);
      try {
        fs.rmSync(dir, { recursive: true, force: true });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || Date.now() > deadline) throw err;
      }
    }
  }
}

/** Registers cleanup for the enclosing describe block. */
export function useTempDirs(): void {
  afterEach(removeTempDirs);
}

/** Root hook (.mocharc.json): hosts under temp folders that a test kept to the end are stopped too. */
export const mochaHooks = {
  afterAll(): void {
    for (const dir of made) killHostsUnder(dir);
  },
};
