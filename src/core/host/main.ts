// Entry of dist/ledgerHost.js: `ledgerHost.js --ledger <file> [--idle-ms N] [--standby]`. Started detached by
// the first client that finds no host (start.ts), with no stdio: it logs to `<ledger>.host/host.log`.

import * as fs from 'node:fs';
import { createLogger } from '../log';
import { ensureOwnPrivateDir, hostPaths } from './paths';
import { DEFAULT_IDLE_MS, runHost } from './server';
import { runStandby } from './standby';
import { defaultHostCommand } from './start';

const MAX_LOG_BYTES = 1 << 20;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const file = arg('--ledger');
  if (!file) {
    process.stderr.write('usage: ledgerHost.js --ledger <file> [--idle-ms N] [--standby]\n');
    process.exit(2);
  }
  const idle = Number(arg('--idle-ms'));
  const paths = hostPaths(file);
  // A standby whose host's folder is gone (a test removed it) has nothing to stand by for.
  if (process.argv.includes('--standby') && !fs.existsSync(paths.dir)) process.exit(0);
  ensureOwnPrivateDir(paths.dir);
  // One short log per host folder: the previous host's lines are dropped once it passes 1 MB.
  try {
    if (fs.statSync(paths.log).size > MAX_LOG_BYTES) fs.rmSync(paths.log, { force: true });
  } catch {
    // no log yet
  }
  const fd = fs.openSync(paths.log, 'a', 0o600);
  const logger = createLogger({ level: 'info', sink: (line) => fs.writeSync(fd, `${line}\n`) });
  process.on('uncaughtException', (err) => {
    logger.error(`Ledger host failed: ${err.stack ?? err.message}`);
    process.exit(1);
  });
  // A standby (started by the host) waits for the host to die, and serves only then.
  const standby = process.argv.includes('--standby') ? await runStandby(file, logger) : undefined;
  if (process.argv.includes('--standby') && !standby) process.exit(0);
  const outcome = await runHost({
    file,
    idleMs: Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_IDLE_MS,
    logger,
    ...(standby ? { standby: standby.owner } : {}),
    ...(standby?.ledger ? { ledger: standby.ledger } : {}),
    // A host run from source (the unit tests, through tsx) starts none: each would compile the
    // sources again beside every test's host. The built host does.
    ...(__filename.endsWith('.ts') ? {} : { standbyCommand: defaultHostCommand() }),
    onSignal: (retire) => {
      process.on('SIGTERM', retire);
      process.on('SIGINT', retire);
    },
  });
  if (outcome === 'another-host') logger.info(`Another ledger host already serves ${paths.ledger}; pid ${process.pid} leaves`);
  process.exit(0);
}

void main().catch((err: unknown) => {
  process.stderr.write(`Ledger host failed: ${(err as Error).message}\n`);
  process.exit(1);
});
