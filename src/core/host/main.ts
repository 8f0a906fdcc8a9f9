// Entry of dist/ledgerHost.js: `ledgerHost.js --ledger <file> [--idle-ms N] [--standby --folder <dev:ino>]`,
// or `ledgerHost.js --postgres [...]` with the connection string in AGENT_PROGRESS_HOST_DATABASE_URL
// (never on the command line, which every user of the machine can read).
// Started detached by the first client that finds no host (start.ts), with no stdio: it logs to
// `<ledger>.host/host.log` (a PostgreSQL ledger's: in its folder of the runtime directory). It makes
// no folder: the client made the ledger's folder and the host folder, and a host whose folder is
// gone (or another than its host's, for a standby) leaves at once.

import * as fs from 'node:fs';
import { createLogger } from '../log';
import { folderIdentity } from '../storage/files';
import { urlPassword } from '../storage/postgres/url';
import { ensureOwnPrivateDir, hostPaths, hostPathsForUrl, servedFolder } from './paths';
import { DEFAULT_IDLE_MS, runHost, type HostOutcome } from './server';
import { runStandby } from './standby';
import { defaultHostCommand, HOST_DATABASE_URL_ENV } from './start';

const MAX_LOG_BYTES = 1 << 20;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const databaseUrl = process.argv.includes('--postgres') ? process.env[HOST_DATABASE_URL_ENV] : undefined;
  const file = arg('--ledger');
  const paths = databaseUrl ? hostPathsForUrl(databaseUrl) : file ? hostPaths(file) : undefined;
  if (!paths) {
    process.stderr.write(`usage: ledgerHost.js --ledger <file> [--idle-ms N] [--standby], or --postgres with ${HOST_DATABASE_URL_ENV} set\n`);
    process.exit(2);
  }
  const idle = Number(arg('--idle-ms'));
  // The ledger's folder as this host finds it (a standby: as its host found it). Served while it
  // stays that folder; a folder removed (a test's temp folder) or replaced is never written to.
  // A PostgreSQL ledger has no folder: its host folder stands in for it.
  const folder = folderIdentity(servedFolder(paths));
  const given = arg('--folder');
  if (folder === undefined || (given !== undefined && given !== folder)) process.exit(0);
  try {
    ensureOwnPrivateDir(paths.dir, false);
  } catch {
    process.exit(0); // the host folder is gone too, or not this user's: nothing to serve from here
  }
  // One short log per host folder: the previous host's lines are dropped once it passes 1 MB.
  try {
    if (fs.statSync(paths.log).size > MAX_LOG_BYTES) fs.rmSync(paths.log, { force: true });
  } catch {
    // no log yet
  }
  const fd = fs.openSync(paths.log, 'a', 0o600);
  const logger = createLogger({ level: 'info', sink: (line) => fs.writeSync(fd, `${line}\n`) });
  if (databaseUrl) logger.addSecret(urlPassword(databaseUrl));
  process.on('uncaughtException', (err) => {
    logger.error(`Ledger host failed: ${err.stack ?? err.message}`);
    process.exit(1);
  });
  // A standby (started by the host) waits for the host to die, and serves only then.
  const standby = process.argv.includes('--standby') ? await runStandby(paths, folder, logger) : undefined;
  if (process.argv.includes('--standby') && !standby) process.exit(0);
  let outcome: HostOutcome;
  try {
    outcome = await runHost({
      paths,
      folder,
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
  } catch (err) {
    // Said in the log, whose last line the client that started this host reports (start.ts).
    logger.error(`Ledger host failed: ${(err as Error).message}`);
    process.exit(1);
  }
  if (outcome === 'another-host') logger.info(`Another ledger host already serves ${paths.ledger}; pid ${process.pid} leaves`);
  process.exit(0);
}

void main().catch((err: unknown) => {
  process.stderr.write(`Ledger host failed: ${(err as Error).message}\n`);
  process.exit(1);
});
