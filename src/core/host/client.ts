// A client of the ledger host: the same async `Ledger` interface as the embedded engine and
// PostgreSQL, each store method a JSON-RPC call. A call that loses its host (killed, handed over
// to a newer build) is sent again with the same id to the next host, started if needed: the id
// makes the retry of a write that was already applied answer instead of writing twice.

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import type * as net from 'node:net';
import * as path from 'node:path';
import { ResponseError, type MessageConnection } from 'vscode-jsonrpc/node';
import { socketConnection } from './connection';
import { LedgerError } from '../errors';
import type { Logger } from '../log';
import { ensurePrivateDir } from '../storage/files';
import type { Ledger, LedgerChange, LedgerStats, TailRecovery } from '../storage/store';
import { VERSION } from '../version';
import { hostPaths, hostPathsForUrl, type HostPaths } from './paths';
import {
  BUILD,
  fromWire,
  toWire,
  LEDGER_ERROR_CODE,
  METHODS,
  PROTOCOL,
  STORE_METHODS,
  type CallParams,
  type ChangeParams,
  type HelloParams,
  type HelloResult,
  type HostStatus,
  type LedgerErrorData,
  type LedgerOp,
  type StoreName,
  type Wrapped,
} from './protocol';
import { reachHost, type HostCommand } from './start';

export interface HostClientOptions {
  file: string;
  /** A PostgreSQL ledger (then `file` is unused): reached through the one host of this machine for that connection string. */
  databaseUrl?: string;
  logger?: Logger;
  /** Start a host when none answers (false: status and stop only). */
  start?: boolean;
  idleMs?: number;
  command?: HostCommand;
  /** Subscribe to change events from the start. */
  watch?: boolean;
  /** How long one call may keep trying to reach a host (default 30 s). */
  reachTimeoutMs?: number;
}

/** The host would not serve this client (an older build of another protocol): open the ledger directly. */
export class HostIncompatible extends Error {
  constructor(readonly hostVersion: string) {
    super(`The running ledger host is a newer Agent Progress (${hostVersion}) that this one cannot talk to`);
  }
}

interface Live {
  connection: MessageConnection;
  socket: net.Socket;
  pid: number;
  version: string;
  notices: string[];
}

export class HostConnection {
  readonly paths: HostPaths;
  private live: Promise<Live> | undefined;
  private watching: boolean;
  private readonly listeners = new Set<(change: ChangeParams) => void>();
  private closed = false;
  /** Hosts this connection has been served by (a new one after a kill or a handover). */
  connects = 0;
  /** A call of this client wrote to the ledger: closing asks the host to leave the ledger file current. */
  wrote = false;
  /** Requests waiting for their answer: only then does the socket keep this process alive. */
  private busy = 0;

  constructor(private readonly options: HostClientOptions) {
    this.paths = options.databaseUrl ? hostPathsForUrl(options.databaseUrl) : hostPaths(options.file);
    this.watching = options.watch === true;
  }

  onChange(listener: (change: ChangeParams) => void): () => void {
    this.listeners.add(listener);
    if (!this.watching) {
      this.watching = true;
      void this.live?.then((l) => l.connection.sendRequest(METHODS.watch).catch(() => undefined)).catch(() => undefined);
    }
    return () => this.listeners.delete(listener);
  }

  /** Connects (starting a host if allowed); resolves with the host's pid. */
  async connect(): Promise<{ pid: number; version: string; notices: string[] }> {
    const live = await this.connection();
    return { pid: live.pid, version: live.version, notices: live.notices };
  }

  private connection(): Promise<Live> {
    if (this.closed) return Promise.reject(new LedgerError('unavailable', 'The ledger is closed'));
    if (!this.live) {
      const attempt = this.open();
      this.live = attempt;
      attempt.catch(() => {
        if (this.live === attempt) this.live = undefined;
      });
    }
    return this.live;
  }

  private async open(): Promise<Live> {
    const deadline = Date.now() + (this.options.reachTimeoutMs ?? 30_000);
    for (;;) {
      const socket = await reachHost({
        paths: this.paths,
        start: this.options.start !== false,
        deadline,
        ...(this.options.idleMs ? { idleMs: this.options.idleMs } : {}),
        ...(this.options.command ? { command: this.options.command } : {}),
      });
      const connection = socketConnection(socket);
      connection.onError(() => undefined);
      connection.listen();
      let token: string;
      try {
        token = fs.readFileSync(this.paths.token, 'utf8');
      } catch (err) {
        connection.dispose();
        socket.destroy();
        throw new LedgerError('unavailable', `Cannot read the ledger host's token (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      const hello: HelloParams = { token, protocol: PROTOCOL, version: VERSION, build: BUILD, pid: process.pid, watch: this.watching };
      let answer: HelloResult;
      try {
        answer = await connection.sendRequest<HelloResult>(METHODS.hello, hello);
      } catch (err) {
        connection.dispose();
        socket.destroy();
        if (err instanceof ResponseError && err.code === LEDGER_ERROR_CODE) throw toLedgerError(err);
        // The host went away during the handshake (a handover, a kill): try the next one.
        if (Date.now() > deadline) throw new LedgerError('unavailable', `The ledger host for ${this.paths.ledger} did not answer`);
        continue;
      }
      if (answer.kind === 'handover') {
        // It retires: wait for its socket to go, then start ours.
        connection.dispose();
        socket.destroy();
        continue;
      }
      if (answer.kind === 'incompatible') {
        connection.dispose();
        socket.destroy();
        throw new HostIncompatible(answer.version);
      }
      const live: Live = { connection, socket, pid: answer.pid, version: answer.version, notices: answer.notices ?? [] };
      // An idle connection does not keep the process alive (as the engine's timers do not): a
      // client that never closes its ledger (a test, a script) still exits. Requests ref it.
      if (this.busy === 0) socket.unref();
      this.connects++;
      // The first host's notices are the ledger's (Services tells them); a later host's are told here.
      if (this.connects > 1) for (const notice of live.notices) this.options.logger?.warn(notice);
      connection.onNotification(METHODS.changed, (change: ChangeParams) => this.fire(change));
      // A lost host (its connection is disposed with the socket): the next call connects again.
      socket.once('close', () => this.forget(live));
      // After the first host, changes may have been missed meanwhile: views read again.
      if (this.connects > 1) setImmediate(() => this.fire({ foreign: true, maintenance: false }));
      return live;
    }
  }

  /** Forgets `live` if it is still the current connection (a later one is kept). */
  private forget(live: Live): void {
    void this.live
      ?.then((l) => {
        if (l === live) this.live = undefined;
      })
      .catch(() => undefined);
  }

  private fire(change: ChangeParams): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.options.logger?.warn(`A ledger change listener failed: ${(err as Error).message}`);
      }
    }
  }

  /**
   * Sends a request, again to the next host when the connection is lost (after `again`); the host's
   * own errors are thrown as they are.
   */
  async request<T>(method: string, params: unknown, again?: () => void): Promise<T> {
    const deadline = Date.now() + (this.options.reachTimeoutMs ?? 30_000);
    for (;;) {
      const live = await this.connection();
      if (this.busy++ === 0) live.socket.ref();
      try {
        return await live.connection.sendRequest<T>(method, params);
      } catch (err) {
        if (err instanceof ResponseError && err.code === LEDGER_ERROR_CODE) throw toLedgerError(err);
        // Lost the host: forget this connection and send the same request to the next one.
        again?.();
        this.forget(live);
        live.connection.dispose();
        if (this.closed) throw new LedgerError('unavailable', 'The ledger is closed');
        if (Date.now() > deadline) throw new LedgerError('unavailable', `Lost the ledger host for ${this.paths.ledger} and could not reach another; retry.`, { retryable: true });
      } finally {
        if (--this.busy === 0) live.socket.unref();
      }
    }
  }

  async call(store: StoreName, method: string, args: unknown[]): Promise<unknown> {
    const params: CallParams = { id: randomUUID(), fresh: true, store, method, args: toWire(args) as unknown[] };
    // Sent again, the call may have been applied by the host that was lost: no longer fresh.
    const answer = await this.request<Wrapped>(METHODS.call, params, () => (params.fresh = false));
    if (answer.w) this.wrote = true;
    this.tell(answer);
    return fromWire(answer.v);
  }

  async ledgerOp(op: LedgerOp): Promise<unknown> {
    const answer = await this.request<Wrapped>(METHODS.ledger, { op });
    this.tell(answer);
    return answer.v;
  }

  /** Notices a call raised in the host (a damaged journal tail set aside) are this caller's to tell. */
  private tell(answer: Wrapped): void {
    for (const notice of answer.n ?? []) this.options.logger?.warn(notice);
  }

  status(): Promise<HostStatus> {
    return this.request<HostStatus>(METHODS.status, {});
  }

  async stop(): Promise<number> {
    return (await this.request<{ pid: number }>(METHODS.stop, {})).pid;
  }

  async close(): Promise<void> {
    if (this.wrote && !this.closed && this.live) {
      this.wrote = false;
      await this.ledgerOp('flush').catch((err: unknown) => this.options.logger?.warn(`The ledger host could not write a snapshot: ${(err as Error).message}`));
    }
    this.closed = true;
    const live = this.live;
    this.live = undefined;
    this.listeners.clear();
    try {
      const l = await live;
      l?.connection.dispose();
      l?.connection.end();
      // Disposing the connection leaves its socket open until the host hangs up: a closed client
      // kept its process alive (a test run that never exited).
      l?.socket.destroy();
    } catch {
      // never connected
    }
  }
}

function toLedgerError(err: ResponseError<unknown>): LedgerError {
  const shape = (err.data as LedgerErrorData | undefined)?.ledgerError;
  if (!shape) return new LedgerError('internal', err.message);
  return new LedgerError(shape.code, shape.message, { ...(shape.details ? { details: shape.details } : {}), retryable: shape.retryable });
}

function storeProxy<T>(connection: HostConnection, store: StoreName): T {
  const target: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of Object.keys(STORE_METHODS[store])) target[method] = (...args: unknown[]) => connection.call(store, method, args);
  return target as T;
}

let opened = 0;

/** How many ledgers this process opened through a host (tests check that a mode really used one). */
export function hostsOpened(): number {
  return opened;
}

/** Opens the ledger through its host (started if needed). Throws when no host can serve it. */
export async function openHostLedger(options: HostClientOptions): Promise<Ledger & { readonly host: HostConnection }> {
  // Opening a new ledger makes its folder (as the engine does for a direct open), before its
  // canonical path is taken. Nothing later does: a host, its standby or a reconnecting client
  // never makes a folder that was removed meanwhile.
  // A PostgreSQL ledger has no folder of its own (its host's is made by reachHost).
  if (options.start !== false && !options.databaseUrl) ensurePrivateDir(path.dirname(path.resolve(options.file)));
  const connection = new HostConnection(options);
  const { notices } = await connection.connect();
  opened++;
  const location = connection.paths.ledger;
  return {
    host: connection,
    location: options.databaseUrl ? location : options.file,
    progress: storeProxy(connection, 'progress'),
    queue: storeProxy(connection, 'queue'),
    workflow: storeProxy(connection, 'workflow'),
    review: storeProxy(connection, 'review'),
    transfer: storeProxy(connection, 'transfer'),
    notices,
    onDidChange: (listener: (change: LedgerChange) => void) => connection.onChange((c) => listener({ foreign: c.foreign, maintenance: c.maintenance })),
    refresh: async () => {
      await connection.ledgerOp('refresh');
    },
    stats: async () => ({ ...((await connection.ledgerOp('stats')) as LedgerStats), location }),
    compact: async () => {
      await connection.ledgerOp('compact');
    },
    recoverSetAside: async () => (await connection.ledgerOp('recoverSetAside')) as TailRecovery,
    settle: async () => {
      await connection.ledgerOp('settle');
    },
    close: () => connection.close(),
  };
}
