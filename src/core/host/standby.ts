// The standby of a ledger host: a second process of the same build, started by the host once it
// serves, that waits on the host's socket. It stays small until it is needed: neither the engine,
// sql.js nor the ledger is loaded before the host is gone. When the host dies without retiring
// (kill -9, a crash) the standby takes its pid file and socket over, so the clients' calls wait
// for one ledger open (a few hundred milliseconds) instead of a new process being found dead,
// started and connected. A
// host that retires (idle, stop, handover) tells its standby to leave. Clients that find a dead
// host and a live standby wait for the standby instead of starting a host of their own.

import * as fs from 'node:fs';
import type * as net from 'node:net';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import type { Logger } from '../log';
import type { Ledger } from '../storage/store';
import { folderIdentity } from '../storage/files';
import { VERSION } from '../version';
import { socketConnection } from './connection';
import { createOwnerFile, processAlive, readOwnerFile, removeIfSame, type Owner } from './ownerFile';
import { hostPaths, servedFolder, type HostPaths } from './paths';
import { BUILD, METHODS, PROTOCOL, type HelloParams, type HelloResult } from './protocol';
import { connectSocket } from './start';

export interface Standby {
  /** This standby's entry in the standby file. */
  owner: Owner;
  /** A ledger opened in advance (none today: the standby holds no second copy in memory). */
  ledger?: Ledger;
}

/** How long a standby whose host's socket closed waits for the host process to be gone. */
const DEATH_WAIT_MS = 3_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Stands by for the host of `ledger` (a file, or a PostgreSQL ledger's paths), whose served folder has the identity `folder`. Resolves with
 * this standby's entry in the standby file when the host died and this process is to take over
 * (runHost with it), or undefined when it leaves (as it does when the folder goes or is replaced).
 */
export async function runStandby(ledger: string | HostPaths, folder: string, logger: Logger): Promise<Standby | undefined> {
  const paths = typeof ledger === 'string' ? hostPaths(ledger) : ledger;
  const me: Owner = { pid: process.pid, at: Date.now() };
  if (!claimStandbyFile(paths, me)) return undefined;
  let takeOver = false;
  try {
    const host = readOwnerFile(paths.pid);
    if (!host) return undefined;
    // Nothing is loaded in advance: a standby beside every host would otherwise hold a second
    // engine (and a second copy of the ledger) for a takeover that may never come.
    logger.info(`Standby ${process.pid} ready for the ledger host ${host.pid} of ${paths.ledger}`);
    takeOver = (await waitForHost(paths, host.pid, folder, logger)) && (await hostDied(paths, host.pid));
    logger.info(takeOver ? `Standby ${process.pid}: the ledger host ${host.pid} died; taking over` : `Standby ${process.pid} leaves: its host ${host.pid} retired or was replaced`);
    return takeOver ? { owner: me } : undefined;
  } catch (err) {
    logger.warn(`Standby ${process.pid} leaves: ${(err as Error).message}`);
    return undefined;
  } finally {
    if (!takeOver) removeIfSame(paths.standby, me);
  }
}

/** One standby per host folder: a file naming a dead standby is replaced. */
function claimStandbyFile(paths: HostPaths, me: Owner): boolean {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createOwnerFile(paths.standby, me)) return true;
    const seen = readOwnerFile(paths.standby);
    if (seen && processAlive(seen.pid)) return false;
    removeIfSame(paths.standby, seen);
  }
  return false;
}

/**
 * Says hello to the host as its standby and waits until the connection ends. Resolves false when
 * the host told it to leave (it retires) or would not have it; true when the connection was lost
 * or could not be made (the host may have died).
 */
async function waitForHost(paths: HostPaths, hostPid: number, folder: string, logger: Logger): Promise<boolean> {
  const moved = (): boolean => folderIdentity(servedFolder(paths)) !== folder;
  let socket: net.Socket;
  for (;;) {
    try {
      socket = await connectSocket(paths.socket, 10_000);
      break;
    } catch (err) {
      // A busy machine can be slow to connect: try again while the host lives.
      if (moved()) return false;
      const owner = readOwnerFile(paths.pid);
      if (!owner || owner.pid !== hostPid || !processAlive(hostPid)) return true;
      logger.info(`Standby ${process.pid} cannot reach the host yet (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      await sleep(200);
    }
  }
  const connection: MessageConnection = socketConnection(socket);
  connection.onError(() => undefined);
  let leave = false;
  const closed = new Promise<void>((resolve) => {
    connection.onClose(() => resolve());
    socket.on('close', () => resolve());
  });
  connection.onNotification(METHODS.leave, () => {
    leave = true;
    socket.destroy();
  });
  connection.listen();
  // The ledger's folder removed or replaced: nothing to stand by for, whatever the host does.
  const check = setInterval(() => {
    if (!moved()) return;
    logger.info(`Standby ${process.pid} leaves: the ledger folder was removed or replaced`);
    leave = true;
    socket.destroy();
  }, 2_000);
  try {
    const token = fs.readFileSync(paths.token, 'utf8');
    const hello: HelloParams = { token, protocol: PROTOCOL, version: VERSION, build: BUILD, pid: process.pid, watch: false, standby: true };
    const answer = await connection.sendRequest<HelloResult>(METHODS.hello, hello);
    if (answer.kind !== 'ok') {
      logger.info(`Standby ${process.pid} leaves: the host answered ${answer.kind}`);
      leave = true;
    }
  } catch (err) {
    // lost during the handshake: see below whether the host is gone
    logger.info(`Standby ${process.pid}: no answer to its hello (${(err as Error).message})`);
  }
  if (!leave) await closed;
  clearInterval(check);
  connection.dispose();
  socket.destroy();
  return !leave;
}

/** The pid file still names `pid` and that process is gone (a zombie counts as gone). */
async function hostDied(paths: HostPaths, pid: number): Promise<boolean> {
  // The socket closes while the killed process is still exiting: wait for it to be gone.
  const until = Date.now() + DEATH_WAIT_MS;
  for (;;) {
    const owner = readOwnerFile(paths.pid);
    // Retired (the pid file removed) or already replaced: nothing to take over.
    if (!owner || owner.pid !== pid) return false;
    if (!processAlive(pid)) return true;
    if (Date.now() > until) return false;
    await sleep(5);
  }
}
