// Reaching the ledger host of a ledger file, starting it when none answers: one starter at a time
// (an exclusive start lock naming its pid), the host spawned detached with no stdio so that it
// never holds its starter's pipes or process group, and a stale socket or pid file of a killed
// host replaced (the host removes them once it holds the pid file).

import type * as ChildProcessModule from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { LedgerError } from '../errors';
import { ensureOwnPrivateDir, type HostPaths } from './paths';
import { createOwnerFile, processAlive, readOwnerFile, removeIfSame } from './ownerFile';
import { BUILD, compareBuilds } from './protocol';
import { LEAN_NODE_ARGS, withLeanEnv } from '../leanNode';
import { VERSION } from '../version';

/** The environment variable a PostgreSQL ledger's host is given its connection string in. */
export const HOST_DATABASE_URL_ENV = 'AGENT_PROGRESS_HOST_DATABASE_URL';

export interface HostCommand {
  command: string;
  args: string[];
}

/** How long older clients leave the start of a host to the newer build that asked for a handover. */
const HANDOVER_WAIT_MS = 10_000;
/** How long a client waits for a live standby to take over from a dead host before starting one itself. */
const STANDBY_WAIT_MS = 3_000;
/** A start lock older than this belongs to a starter that hung or died. */
const START_LOCK_STALE_MS = 10_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How to run the host: dist/ledgerHost.js beside this bundle, or the TypeScript entry from source (tests). */
export function defaultHostCommand(): HostCommand {
  if (__filename.endsWith('.ts')) {
    const tsx = path.resolve(__dirname, '../../../node_modules/tsx/dist/cjs/index.cjs');
    return { command: process.execPath, args: [...LEAN_NODE_ARGS, '--expose-gc', '--require', tsx, path.join(__dirname, 'main.ts')] };
  }
  // The host and its standby run lean (leanNode.ts): its JavaScript heap holds little that lives,
  // the ledger being in sql.js's memory; it collects its garbage when idle (server.ts collectWhenIdle).
  return { command: process.execPath, args: [...LEAN_NODE_ARGS, '--expose-gc', path.join(__dirname, 'ledgerHost.js')] };
}

/**
 * Starts a host process of `paths`'s ledger (a host, or a host's standby) detached from this one:
 * its own process group, no stdio (a daemon holding its starter's pipe open hangs whoever waits
 * for that pipe, a CI run among them), the ledger's folder as its cwd, a plain Node even from
 * VS Code's Electron extension host, and run lean. Unreferenced: this process may exit first.
 */
export function spawnDetached(command: HostCommand, paths: HostPaths, args: string[]): ChildProcess {
  // node:child_process loads here, on the first start: a client that finds its host answering (every CLI call but the first) never loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in, loaded on first use
  const { spawn } = require('node:child_process') as typeof ChildProcessModule;
  // A PostgreSQL ledger's connection string goes in the environment, which only this user can
  // read, never in the arguments, which every user of the machine can (ps).
  const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
  if (paths.databaseUrl) env[HOST_DATABASE_URL_ENV] = paths.databaseUrl;
  else delete env[HOST_DATABASE_URL_ENV];
  const target = paths.databaseUrl ? ['--postgres'] : ['--ledger', paths.ledger];
  const child = spawn(command.command, [...command.args, ...target, ...args], {
    detached: true,
    stdio: 'ignore',
    windowsHide: true,
    cwd: path.dirname(paths.databaseUrl ? paths.dir : paths.ledger),
    env: withLeanEnv(env),
  });
  child.unref();
  return child;
}

export function connectSocket(socketPath: string, timeoutMs = 2_000): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // A host killed mid-write: EPIPE and writes after its end surface as a lost connection
      // (the pending calls are sent again), never as an uncaught error.
      socket.on('error', () => socket.destroy());
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

/** Nothing listens there (yet): worth starting a host or waiting for one. A reset is a host that died with our connection in its backlog. */
function isAbsent(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTSOCK' || code === 'ETIMEDOUT' || code === 'ECONNRESET';
}

export interface ReachOptions {
  paths: HostPaths;
  /** Start a host when none answers. */
  start: boolean;
  idleMs?: number;
  command?: HostCommand;
  deadline: number;
}

/** A connected socket to the host, started if needed. Throws `unavailable` when it cannot be reached by the deadline. */
export async function reachHost(options: ReachOptions): Promise<net.Socket> {
  const { paths } = options;
  let lastError: unknown;
  let standbySince: number | undefined;
  for (let round = 0; ; round++) {
    try {
      return await connectSocket(paths.socket);
    } catch (err) {
      lastError = err;
      if (!isAbsent(err)) throw unreachable(paths, err);
    }
    if (!options.start) throw new LedgerError('unavailable', `No ledger host answers for ${paths.ledger}`, { details: { reason: 'absent' } });
    if (Date.now() > options.deadline) throw unreachable(paths, lastError);
    if (hostComing(paths)) {
      // A host is starting (or finishing a handover): wait for its socket.
      await sleep(Math.min(5 + round * 2, 25));
      continue;
    }
    if (standbyAlive(paths) && Date.now() - (standbySince ??= Date.now()) < STANDBY_WAIT_MS) {
      // The dead host's standby is taking over: a host started here would only lose to it.
      await sleep(5);
      continue;
    }
    // Its folder only: the ledger's folder was made by the first open, and one removed since stays
    // removed. A PostgreSQL ledger's host folder sits in the user's runtime folder, made when missing.
    if (paths.databaseUrl) ensureOwnPrivateDir(path.dirname(paths.dir), true);
    ensureOwnPrivateDir(paths.dir, true);
    if (takeStartLock(paths)) {
      try {
        await startHost(options);
      } finally {
        releaseStartLock(paths);
      }
    } else {
      await sleep(Math.min(5 + round * 2, 25));
    }
  }
}

/** A live host holds the pid file (serving, or about to), or a newer build's is on its way. */
function hostComing(paths: HostPaths): boolean {
  const owner = readOwnerFile(paths.pid);
  return (owner !== undefined && processAlive(owner.pid)) || newerBuildComing(paths);
}

/**
 * A host just handed the ledger over to a newer build whose client is alive: an older client
 * waits for that build's host instead of starting its own (which would be handed over again).
 */
function newerBuildComing(paths: HostPaths): boolean {
  const marker = readOwnerFile(paths.handover);
  if (!marker) return false;
  const theirs = { version: String(marker.version), build: Number(marker.build) || 0 };
  return Date.now() - marker.at < HANDOVER_WAIT_MS && processAlive(marker.pid) && compareBuilds(theirs, { version: VERSION, build: BUILD }) > 0;
}

function standbyAlive(paths: HostPaths): boolean {
  const standby = readOwnerFile(paths.standby);
  return standby !== undefined && processAlive(standby.pid);
}

function unreachable(paths: HostPaths, err: unknown): LedgerError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'error';
  return new LedgerError('unavailable', `The ledger host for ${paths.ledger} cannot be reached (${code})`, { details: { reason: code } });
}

const me = { pid: process.pid, at: 0 };

function takeStartLock(paths: HostPaths): boolean {
  me.at = Date.now();
  if (createOwnerFile(paths.startLock, me)) return true;
  const seen = readOwnerFile(paths.startLock);
  const stale = seen === undefined ? ageMs(paths.startLock) > 1_000 : !processAlive(seen.pid) || Date.now() - seen.at > START_LOCK_STALE_MS;
  if (!stale) return false;
  removeIfSame(paths.startLock, seen);
  return createOwnerFile(paths.startLock, me);
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function releaseStartLock(paths: HostPaths): void {
  removeIfSame(paths.startLock, me);
}

/** Spawns a host and waits until it holds the pid file and its socket answers, or it exits. */
async function startHost(options: ReachOptions): Promise<void> {
  const { paths } = options;
  // Another starter may have finished while we took the lock.
  try {
    (await connectSocket(paths.socket, 500)).destroy();
    return;
  } catch {
    // none yet
  }
  const child = spawnDetached(options.command ?? defaultHostCommand(), paths, options.idleMs ? ['--idle-ms', String(options.idleMs)] : []);
  const spawnedAt = Date.now();
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit ??= code !== null ? `code ${code}` : `signal ${signal}`));
  child.once('error', (err) => (exit ??= (err as NodeJS.ErrnoException).code ?? err.message));
  const until = Math.min(options.deadline, Date.now() + 8_000);
  while (exit === undefined && Date.now() < until) {
    if (hostComing(paths)) {
      try {
        (await connectSocket(paths.socket, 500)).destroy();
        return;
      } catch {
        // listening soon
      }
    }
    await sleep(10);
  }
  if (exit === undefined) return;
  // It left without serving. Lost to another host (or a standby taking over): wait for that one.
  // Else it cannot serve this ledger, and a host started again would leave the same way: say why
  // now (the client opens the ledger directly) instead of starting hosts until the deadline.
  if (hostComing(paths) || standbyAlive(paths)) return;
  const reason = lastLogLine(paths.log, spawnedAt);
  throw new LedgerError('unavailable', `The ledger host for ${paths.ledger} exited at start (${exit})${reason ? `: ${reason}` : ''}`, {
    details: { reason: 'exited' },
  });
}

/** Why the host that just left failed: the last line of the host log, when it says so and was written since `since`. */
function lastLogLine(log: string, since: number): string | undefined {
  try {
    const st = fs.statSync(log);
    if (st.mtimeMs < since - 1_000) return undefined;
    const fd = fs.openSync(log, 'r');
    try {
      const length = Math.min(st.size, 4096);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, st.size - length);
      const line = buffer.toString('utf8').trimEnd().split('\n').pop() ?? '';
      const failed = /^\S+ \[error\] Ledger host failed: (.+)$/.exec(line);
      return failed?.[1];
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
