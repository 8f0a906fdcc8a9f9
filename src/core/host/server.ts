// The ledger host process: the one sql.js engine of a ledger file on this machine, served to
// every other process (MCP servers, the CLI, the extension's views) over a private local socket.
// Elected by an exclusive pid file, reached with a token only this user can read, gone when no
// client has been connected for its idle time, and replaced by a newer build's host when one asks.

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ResponseError, type MessageConnection } from 'vscode-jsonrpc/node';
import { socketConnection } from './connection';
import { isLedgerError } from '../errors';
import type { Logger } from '../log';
import type { Ledger } from '../storage/store';
import type * as OpenLedgerModule from '../storage/openLedger';
import type * as EngineModule from '../storage/sqlite/engine';
import { writeContext } from '../storage/writeContext';
import { FILE_MODE, folderIdentity, writeFileAtomicSync } from '../storage/files';
import { VERSION } from '../version';
import { ensureOwnPrivateDir, hostPaths, servedFolder, type HostPaths } from './paths';
import { createOwnerFile, processAlive, readOwnerFile, removeIfSame, type Owner } from './ownerFile';
import { spawnDetached, type HostCommand } from './start';
import {
  BUILD,
  compareBuilds,
  fromWire,
  toWire,
  LEDGER_ERROR_CODE,
  LEDGER_OPS,
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

export const DEFAULT_IDLE_MS = 10 * 60_000;
const RETIRING_CODE = -32051;
/** The answer to a call a retiring host will not run: the client sends it to the next host. */
function retiringError(): ResponseError<void> {
  return new ResponseError(RETIRING_CODE, 'The ledger host is retiring; ask the next one');
}
/** After the ledger opens, the host builds ranked search's term index this much later (the standby starts first). */
const PREPARE_SEARCH_MS = 1_000;
/**
 * The host keeps the ledger's lock this long after a write for the next one (EngineOptions
 * lockLingerMs): its writes follow one another, and a lock file made and removed per write cost
 * its syscalls and a directory change in every write's fdatasync. A direct writer beside the
 * host waits at most about this long (or 1 s under steady writes) for it.
 */
const LOCK_LINGER_MS = 50;

export interface HostOptions {
  /** The ledger file served, or `paths` of another ledger (a PostgreSQL ledger: hostPathsForUrl). */
  file?: string;
  paths?: HostPaths;
  /**
   * The identity (`folderIdentity`) of the ledger's folder when this host started: it serves that
   * folder only, and leaves without writing when it is removed or replaced.
   */
  folder: string;
  idleMs: number;
  logger: Logger;
  /** Given the host's retire function once it serves (the entry binds it to SIGTERM). */
  onSignal?: (retire: () => void) => void;
  /** This process was the standby (its file named it): it leaves that file once it holds the pid file. */
  standby?: Owner;
  /** The ledger the standby opened in advance: served instead of opening it again. */
  ledger?: Ledger;
  /** How to start a standby beside this host; none when absent or AGENT_PROGRESS_HOST_STANDBY=off. */
  standbyCommand?: HostCommand;
  /** A client's change notices after the first are merged within this window (CHANGE_WINDOW_MS). */
  changeWindowMs?: number;
}

interface Client {
  id: number;
  connection: MessageConnection;
  socket: net.Socket;
  ready: boolean;
  watch: boolean;
  /** The host's standby: not a client for the idle time or the status. */
  standby: boolean;
  pid?: number;
  /** Change notices held back within the client's window (CHANGE_WINDOW_MS), merged into one. */
  heldChange?: ChangeParams;
  changeTimer?: NodeJS.Timeout;
}

export type HostOutcome = 'exited' | 'another-host';

/**
 * A client hears of a change at once, then of the changes that follow at most once per this
 * window, merged (foreign if any was, maintenance only if all were). Each write told each client
 * once: with ten queue servers, every write cost ten notices, each read by a server whose reaper
 * then read its schedule from the host again, and the host spent more on notices than on writes.
 */
const CHANGE_WINDOW_MS = 25;

/**
 * A call looks at the ledger's folders (gone()) unless a call did less than this long ago: three
 * stats per call were about 20 us of each log_progress through the host (bench/host.mjs).
 */
const GONE_CHECK_MS = 100;

/** How long a connection has to say hello, and the more it gets when the deadline fired late (the host was busy). */
const HELLO_MS = 5_000;
const LATE_MS = 1_000;

/** Quiet time after the last call before the host collects its garbage (collectWhenIdle): past the engine's fresh snapshot (1 s after the last write). */
const IDLE_GC_MS = 2_000;

/**
 * A snapshot at least this large has its exported copy collected at once (collectSoon): V8 sees
 * no pressure to collect it, and until then the host held the ledger twice over (412 MB instead
 * of 244 MB at 100k entries, bench/host.mjs).
 */
const COLLECT_AFTER_SNAPSHOT_BYTES = 16 << 20;

function memoryFigures(): Pick<HostStatus, 'rssBytes' | 'heapUsedBytes' | 'arrayBufferBytes'> {
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, arrayBufferBytes: m.arrayBuffers };
}

/** Runs a host until it retires. Resolves 'another-host' at once when a live host already holds the pid file. */
export async function runHost(options: HostOptions): Promise<HostOutcome> {
  const paths = options.paths ?? hostPaths(options.file ?? '');
  ensureOwnPrivateDir(paths.dir, false);
  const me: Owner = { pid: process.pid, at: Date.now(), version: VERSION, build: BUILD, protocol: PROTOCOL, socket: paths.socket };
  const claimed = claimPidFile(paths, me);
  if (options.standby) removeIfSame(paths.standby, options.standby);
  if (!claimed) {
    await options.ledger?.close();
    return 'another-host';
  }
  const host = new Host(paths, me, options);
  try {
    await host.start();
  } catch (err) {
    removeIfSame(paths.pid, me);
    throw err;
  }
  return host.done;
}

/** Takes the pid file; a file naming a dead process is removed first. */
function claimPidFile(paths: HostPaths, me: Owner): boolean {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createOwnerFile(paths.pid, me)) return true;
    const seen = readOwnerFile(paths.pid);
    if (seen && seen.pid !== process.pid && processAlive(seen.pid)) return false;
    removeIfSame(paths.pid, seen);
  }
  return false;
}

class Host {
  private server: net.Server | undefined;
  private ledger: Promise<Ledger> | undefined;
  private readonly clients = new Map<number, Client>();
  /** Event notices of the ledger already told to a client. */
  private readonly told = new Set<string>();
  private nextClient = 1;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private gcTimer: NodeJS.Timeout | undefined;
  private retiring = false;
  /** The host folder as this host found it, and whether the ledger file existed yet (a new ledger has none at first). */
  private hostDir: string | undefined;
  private ledgerFileSeen = false;
  /** When gone() last found the folders there (performance.now(); goneLately). */
  private lookedAt = -Infinity;
  private readonly token = randomBytes(32).toString('hex');
  private readonly startedAt = new Date();
  private finish!: (outcome: HostOutcome) => void;
  readonly done = new Promise<HostOutcome>((resolve) => (this.finish = resolve));

  constructor(
    private readonly paths: HostPaths,
    private readonly me: Owner,
    private readonly options: HostOptions,
  ) {}

  async start(): Promise<void> {
    this.hostDir = folderIdentity(this.paths.dir);
    removeStaleSocket(this.paths.socket);
    // A handover to this build (or an older one) is done.
    const marker = readOwnerFile(this.paths.handover);
    if (marker && compareBuilds({ version: String(marker.version), build: Number(marker.build) || 0 }, { version: VERSION, build: BUILD }) <= 0)
      fs.rmSync(this.paths.handover, { force: true });
    writeFileAtomicSync(this.paths.token, Buffer.from(this.token));
    fs.chmodSync(this.paths.token, FILE_MODE);
    // Open the ledger while the socket starts listening: calls wait for it. The engine's modules
    // load meanwhile too (a client that lost its host connects before they have).
    const opened = this.options.ledger;
    this.ledger = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      if (opened) {
        // Followed through the journal until now; read what the dead host wrote last.
        await opened.refresh();
        return opened;
      }
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the socket listens
      const { openLedger } = require('../storage/openLedger') as typeof OpenLedgerModule;
      // A PostgreSQL ledger: the one process of this machine that serves it ranks searches from
      // an index in memory (postgres/memoryIndex.ts), built by prepareSearch below.
      if (this.paths.databaseUrl) return openLedger({ file: '', databaseUrl: this.paths.databaseUrl, logger: this.options.logger, watch: true, memoryIndex: true });
      return openLedger({
        file: this.paths.ledger,
        logger: this.options.logger,
        watch: true,
        folder: this.options.folder,
        lockLingerMs: LOCK_LINGER_MS,
        onSnapshot: (bytes) => {
          if (bytes >= COLLECT_AFTER_SNAPSHOT_BYTES) this.collectSoon();
        },
      });
    });
    this.ledger.then(
      (ledger) => {
        this.options.logger.info(`Ledger host ${process.pid} opened the ledger ${Date.now() - this.startedAt.getTime()} ms after it started serving`);
        ledger.onDidChange((change) => this.broadcast(change));
        for (const notice of ledger.notices) this.options.logger.warn(notice);
        this.startStandby();
        // The ledger file read to open it is garbage now: as large as the ledger.
        this.collectSoon();
        // Ranked search's term index, built while nobody waits for a search (seconds of work at
        // 100k entries, in steps of about 10 ms: calls arriving meanwhile are answered between
        // them, searches by the saved hits).
        setTimeout(() => {
          const t0 = Date.now();
          ledger.progress.prepareSearch().then(
            () => {
              this.options.logger.info(`Ledger host ${process.pid} prepared ranked search in ${Date.now() - t0} ms`);
              // Reading FTS4's segments left their copies behind: give them back when idle.
              this.collectWhenIdle();
            },
            (err: unknown) => this.options.logger.warn(`Could not prepare ranked search: ${(err as Error).message}`),
          );
        }, PREPARE_SEARCH_MS).unref();
      },
      (err: unknown) => this.options.logger.error(`Could not open the ledger ${this.paths.ledger}: ${(err as Error).message}`),
    );
    // A ledger path too long for a Unix socket has its socket in the user's runtime folder
    // (paths.ts), which this host makes, private, when it is missing: it is ours, not a ledger's.
    const socketDir = path.dirname(this.paths.socket);
    if (process.platform !== 'win32' && socketDir !== this.paths.dir) ensureOwnPrivateDir(socketDir, true);
    const server = net.createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.paths.socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (process.platform !== 'win32') fs.chmodSync(this.paths.socket, FILE_MODE);
    server.on('error', (err) => this.options.logger.warn(`Ledger host socket: ${err.message}`));
    this.options.logger.info(`Ledger host ${process.pid} (${VERSION}, build ${BUILD}) serving ${this.paths.ledger} on ${this.paths.socket}`);
    this.armIdle();
    // Retire when the files that name this host are gone or name another one (a person deleted the
    // pid file), and leave at once, writing nothing, when its folders or the ledger file are gone
    // or replaced (a test removed its temp folder).
    this.checkTimer = setInterval(() => {
      const gone = this.gone();
      if (gone) return void this.retire(gone, true);
      const owner = readOwnerFile(this.paths.pid);
      if (!owner || owner.pid !== process.pid || !fs.existsSync(this.paths.socket)) void this.retire('its pid file or socket is gone');
    }, 2_000);
    this.checkTimer.unref();
    this.options.onSignal?.(() => void this.retire('signalled'));
  }

  private accept(socket: net.Socket): void {
    if (this.retiring) {
      socket.destroy();
      return;
    }
    const connection = socketConnection(socket);
    const client: Client = { id: this.nextClient++, connection, socket, ready: false, watch: false, standby: false };
    this.clients.set(client.id, client);
    this.disarmIdle();
    // A connection that never says hello with the token is dropped after 5 s of the host's own
    // time. A deadline that fires late means this host was busy (opening a large ledger on a loaded
    // machine) and a hello sent meanwhile may still be unread: it gets another second to be read.
    const helloDeadline = (ms: number): NodeJS.Timeout => {
      const armed = performance.now();
      return setTimeout(() => {
        if (client.ready) return;
        if (performance.now() - armed > ms + 100) helloTimer = helloDeadline(LATE_MS);
        else socket.destroy();
      }, ms);
    };
    let helloTimer = helloDeadline(HELLO_MS);
    const drop = (): void => {
      clearTimeout(helloTimer);
      clearTimeout(client.changeTimer);
      if (!this.clients.delete(client.id)) return;
      connection.dispose();
      socket.destroy();
      if (this.users() === 0) this.armIdle();
    };
    socket.on('close', drop);
    socket.on('error', drop);
    connection.onClose(drop);
    connection.onError(() => undefined);

    connection.onRequest(METHODS.hello, async (params: HelloParams): Promise<HelloResult> => {
      if (typeof params?.token !== 'string' || params.token !== this.token) {
        setImmediate(drop);
        throw new ResponseError(LEDGER_ERROR_CODE, 'Not allowed: wrong ledger host token', {
          ledgerError: { code: 'permission_denied', message: 'Not allowed: wrong ledger host token', retryable: false },
        } satisfies LedgerErrorData);
      }
      clearTimeout(helloTimer);
      if (params.standby === true) {
        // Started by a host of this build; anything else leaves.
        if (params.protocol !== PROTOCOL || params.version !== VERSION || params.build !== BUILD) return { kind: 'incompatible', pid: process.pid, version: VERSION };
        client.ready = true;
        client.standby = true;
        client.pid = Number(params.pid) || undefined;
        this.options.logger.info(`Standby ${client.pid} connected`);
        if (this.users() === 0) this.armIdle();
        return { kind: 'ok', pid: process.pid, version: VERSION, build: BUILD, notices: [] };
      }
      const theirs = { version: String(params.version), build: Number(params.build) || 0 };
      const order = compareBuilds(theirs, { version: VERSION, build: BUILD });
      if (order > 0 && (params.protocol !== PROTOCOL || theirs.version !== VERSION || theirs.build !== BUILD)) {
        this.options.logger.info(`A newer build (${theirs.version}, build ${theirs.build}) asked for this ledger: handing over`);
        try {
          writeFileAtomicSync(this.paths.handover, Buffer.from(JSON.stringify({ pid: Number(params.pid) || 0, at: Date.now(), ...theirs })));
        } catch {
          // older clients may start a host meanwhile; the newer client hands it over again
        }
        void this.retire('a newer build took over');
        return { kind: 'handover', pid: process.pid };
      }
      if (params.protocol !== PROTOCOL) return { kind: 'incompatible', pid: process.pid, version: VERSION };
      client.ready = true;
      client.watch = params.watch === true;
      return { kind: 'ok', pid: process.pid, version: VERSION, build: BUILD, notices: await this.noticesForHello() };
    });
    connection.onRequest(METHODS.watch, () => {
      if (client.ready) client.watch = true;
      return null;
    });
    connection.onRequest(METHODS.call, (params: CallParams) => this.guard(client, () => this.call(client, params)));
    connection.onRequest(METHODS.ledger, (params: { op: LedgerOp }) => this.guard(client, () => this.ledgerOp(params.op)));
    connection.onRequest(METHODS.status, () => this.guard(client, () => this.status()));
    connection.onRequest(METHODS.stop, () =>
      this.guard(client, async () => {
        setImmediate(() => void this.retire('asked to stop'));
        return { pid: process.pid };
      }),
    );
    connection.listen();
  }

  private async guard<T>(client: Client, run: () => Promise<T>): Promise<T> {
    if (!client.ready || client.standby)
      throw new ResponseError(LEDGER_ERROR_CODE, 'Say hello first', {
        ledgerError: { code: 'permission_denied', message: 'Say hello first', retryable: false },
      } satisfies LedgerErrorData);
    // A retiring host takes no new call: the client sends it to the next host (none when the
    // ledger's folder is gone: the client says so). The folders are looked at again once
    // GONE_CHECK_MS has passed since the last look: a write in between is refused by the engine
    // itself when the ledger's folder is gone or replaced (it looks before every write), and is
    // then answered as below.
    const gone = this.retiring ? undefined : this.goneLately();
    if (gone) void this.retire(gone, true);
    if (this.retiring) throw retiringError();
    this.inFlight++;
    try {
      return await run();
    } catch (err) {
      if (err instanceof ResponseError) throw err;
      // A failure because the folders went meanwhile: retire, and send the client on, as when seen first.
      const goneNow = this.retiring ? undefined : this.gone();
      if (goneNow) {
        void this.retire(goneNow, true);
        throw retiringError();
      }
      const shape = isLedgerError(err) ? err.toJSON() : { code: 'internal' as const, message: err instanceof Error ? err.message : String(err), retryable: false };
      throw new ResponseError(LEDGER_ERROR_CODE, shape.message, { ledgerError: shape } satisfies LedgerErrorData);
    } finally {
      this.inFlight--;
      if (this.retiring && this.inFlight === 0) this.drained?.();
      if (this.inFlight === 0) this.collectWhenIdle();
    }
  }

  /**
   * A full garbage collection once the host has had no call for IDLE_GC_MS (with --expose-gc, as
   * defaultHostCommand runs it). What the host leaves behind is mostly large and short-lived: the
   * ledger file read to open it, and each snapshot sql.js exports (a copy of the whole ledger, a
   * fresh one about a second after the last write), which V8 otherwise keeps until allocation
   * pressure makes it collect. bench/host.mjs: the host 3 s after 200 writes on a 17 MB ledger.
   */
  private collectWhenIdle(): void {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (typeof gc !== 'function' || this.retiring) return;
    if (this.gcTimer) clearTimeout(this.gcTimer);
    this.gcTimer = setTimeout(() => {
      this.gcTimer = undefined;
      if (this.inFlight === 0 && !this.retiring) gc();
    }, IDLE_GC_MS);
    this.gcTimer.unref();
  }

  /**
   * A full garbage collection right after this turn of the event loop, calls in flight or not:
   * after the host let go of a copy of the whole ledger (the file read to open it, a snapshot
   * exported). Its heap is small (about 10 MB); the pause is tens of milliseconds at 100k entries.
   */
  private collectSoon(): void {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (typeof gc !== 'function' || this.retiring) return;
    setImmediate(() => {
      if (!this.retiring) gc();
    });
  }

  /** For a new client: the notices that still hold, and those no client was told yet. */
  private async noticesForHello(): Promise<string[]> {
    let ledger: Ledger;
    try {
      ledger = await this.ledger!;
    } catch {
      return []; // the calls answer why it cannot be opened
    }
    return [...(ledger.standingNotices?.() ?? []), ...this.untoldNotices(ledger)];
  }

  /** Notices raised since last asked that are events (told once, to whoever is asking now). */
  private untoldNotices(ledger: Ledger): string[] {
    const standing = new Set(ledger.standingNotices?.() ?? []);
    const fresh = ledger.notices.filter((n) => !standing.has(n) && !this.told.has(n));
    for (const n of fresh) this.told.add(n);
    return fresh;
  }

  /** The answer with the notices the call raised. */
  private async withNotices(answer: Wrapped): Promise<Wrapped> {
    const fresh = this.untoldNotices(await this.ledger!);
    if (fresh.length > 0) answer.n = fresh;
    return answer;
  }

  private async call(client: Client, params: CallParams): Promise<Wrapped> {
    const methods = STORE_METHODS[params.store as StoreName] as Record<string, true> | undefined;
    if (!methods || !Object.hasOwn(methods, params.method) || !Array.isArray(params.args) || typeof params.id !== 'string') {
      throw new ResponseError(LEDGER_ERROR_CODE, 'Unknown ledger call', {
        ledgerError: { code: 'invalid_argument', message: `Unknown ledger call ${String(params.store)}.${String(params.method)}`, retryable: false },
      } satisfies LedgerErrorData);
    }
    const args = fromWire(params.args) as unknown[];
    const ledger = await this.ledger!;
    const store = ledger[params.store as StoreName] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const context = { id: params.id, n: 0, origin: client.id, fresh: params.fresh === true };
    const value = await writeContext.run(context, () => store[params.method]!(...args));
    const answer: Wrapped = value === undefined ? {} : { v: toWire(value) };
    if (context.n > 0) answer.w = true;
    return this.withNotices(answer);
  }

  private async ledgerOp(op: LedgerOp): Promise<Wrapped> {
    if (!LEDGER_OPS.includes(op)) throw new Error(`Unknown ledger operation ${String(op)}`);
    const ledger = await this.ledger!;
    if (op === 'stats') return { v: await ledger.stats() };
    if (op === 'recoverSetAside') return this.withNotices({ v: await ledger.recoverSetAside() });
    if (op === 'flush') {
      // A client that wrote is closing (the CLI exiting): the file at the ledger path is left
      // current, as a process that opened it directly does when it closes. PostgreSQL has no file.
      const stats = await ledger.stats();
      if (stats.backend !== 'sqlite') return {};
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the engine is loaded by now
      const { DEFAULT_CHECKPOINT } = require('../storage/sqlite/engine') as typeof EngineModule;
      if (stats.journalBytes > 0 && stats.snapshotBytes <= DEFAULT_CHECKPOINT.freshMaxBytes) await ledger.compact();
      return {};
    }
    if (op === 'refresh') await ledger.refresh();
    else if (op === 'compact') await ledger.compact();
    else await ledger.settle();
    return {};
  }

  private async status(): Promise<HostStatus> {
    let ledgerBytes = 0;
    let journalBytes = 0;
    let searchIndex: HostStatus['searchIndex'];
    try {
      const ledger = await this.ledger!;
      const stats = await ledger.stats();
      ledgerBytes = stats.snapshotBytes;
      journalBytes = stats.journalBytes;
      searchIndex = ledger.progress.memoryIndexStats?.();
    } catch {
      // not open: sizes stay 0
    }
    return {
      pid: process.pid,
      version: VERSION,
      build: BUILD,
      protocol: PROTOCOL,
      ledger: this.paths.ledger,
      socket: this.paths.socket,
      clients: [...this.clients.values()].filter((c) => c.ready && !c.standby).length,
      ledgerBytes,
      journalBytes,
      startedAt: this.startedAt.toISOString(),
      idleMs: this.options.idleMs,
      ...memoryFigures(),
      standby: [...this.clients.values()].find((c) => c.ready && c.standby)?.pid ?? null,
      ...(searchIndex ? { searchIndex } : {}),
    };
  }

  private broadcast(change: { foreign: boolean; maintenance: boolean; origins?: number[] }): void {
    for (const client of this.clients.values()) {
      if (!client.ready || !client.watch) continue;
      // Foreign for a client unless every write in the record was its own.
      const own = !change.foreign && change.origins !== undefined && change.origins.length > 0 && change.origins.every((o) => o === client.id);
      const params: ChangeParams = { foreign: !own, maintenance: change.maintenance };
      if (client.changeTimer) {
        const held = client.heldChange;
        client.heldChange = held ? { foreign: held.foreign || params.foreign, maintenance: held.maintenance && params.maintenance } : params;
        continue;
      }
      this.tell(client, params);
    }
  }

  /** Sends a change notice now and holds the next ones for CHANGE_WINDOW_MS. */
  private tell(client: Client, params: ChangeParams): void {
    client.connection.sendNotification(METHODS.changed, params).catch(() => undefined);
    client.changeTimer = setTimeout(() => {
      client.changeTimer = undefined;
      const held = client.heldChange;
      client.heldChange = undefined;
      if (held && this.clients.has(client.id)) this.tell(client, held);
    }, this.options.changeWindowMs ?? CHANGE_WINDOW_MS);
    client.changeTimer.unref();
  }

  /** gone(), unless a call found the folders there less than GONE_CHECK_MS ago. */
  private goneLately(): string | undefined {
    const now = performance.now();
    if (now - this.lookedAt < GONE_CHECK_MS) return undefined;
    const gone = this.gone();
    if (!gone) this.lookedAt = now;
    return gone;
  }

  /**
   * Why this host must stop serving at once: the folder it serves or its own folder is gone or
   * another one, or the ledger file was removed. A PostgreSQL ledger's host serves its own folder
   * (servedFolder), and there is no file. One to three stats: run on each tick, and by calls (goneLately).
   */
  private gone(): string | undefined {
    const served = servedFolder(this.paths);
    if (served !== this.paths.dir && folderIdentity(served) !== this.options.folder) return `the ledger folder ${served} was removed or replaced`;
    if (folderIdentity(this.paths.dir) !== this.hostDir) return `its folder ${this.paths.dir} was removed or replaced`;
    if (this.paths.databaseUrl) return undefined;
    const exists = fs.existsSync(this.paths.ledger);
    if (this.ledgerFileSeen && !exists) return `the ledger file ${this.paths.ledger} was removed`;
    this.ledgerFileSeen ||= exists;
    return undefined;
  }

  /** Connections that count as clients (the standby does not). */
  private users(): number {
    let n = 0;
    for (const c of this.clients.values()) if (!c.standby) n++;
    return n;
  }

  /**
   * Starts the standby: a second host process of this build that loads the engine now and waits
   * on this host's socket; when this host dies (kill -9, a crash) it takes the pid file and the
   * socket over at once, so a client's call waits for a ledger open instead of a cold start.
   */
  private startStandby(): void {
    const command = this.options.standbyCommand;
    if (!command || this.retiring || process.env.AGENT_PROGRESS_HOST_STANDBY === 'off') return;
    try {
      const child = spawnDetached(command, this.paths, ['--idle-ms', String(this.options.idleMs), '--standby', '--folder', this.options.folder]);
      child.once('error', (err) => this.options.logger.warn(`Could not start a standby ledger host: ${err.message}`));
    } catch (err) {
      this.options.logger.warn(`Could not start a standby ledger host: ${(err as Error).message}`);
    }
  }

  private armIdle(): void {
    this.disarmIdle();
    if (this.retiring) return;
    this.idleTimer = setTimeout(() => void this.retire(`no client for ${this.options.idleMs} ms`), this.options.idleMs);
  }

  private disarmIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private drained: (() => void) | undefined;

  /**
   * Stops taking clients, frees the socket and pid file for a successor, finishes the calls under
   * way, then closes. `gone`: its folder is gone or another; it leaves at once and writes nothing
   * (no snapshot, and no unlink of a socket path that may be a new host's in a new folder).
   */
  async retire(reason: string, gone = false): Promise<void> {
    if (this.retiring) return;
    this.retiring = true;
    this.options.logger.info(`Ledger host ${process.pid} retiring: ${reason}`);
    this.disarmIdle();
    if (this.checkTimer) clearInterval(this.checkTimer);
    if (this.gcTimer) clearTimeout(this.gcTimer);
    // The standby leaves (it would take over from a host that is not dead).
    for (const client of this.clients.values()) if (client.standby) client.connection.sendNotification(METHODS.leave).catch(() => undefined);
    if (gone) {
      for (const client of this.clients.values()) client.socket.end();
      this.finish('exited');
      return;
    }
    // Closing the server unlinks its socket file; then the pid file, so that a successor can start.
    this.server?.close();
    removeIfSame(this.paths.pid, this.me);
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    // Let the last answers leave before the connections close (they are written asynchronously).
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const client of this.clients.values()) {
      client.socket.end();
      client.connection.dispose();
    }
    try {
      const ledger = await this.ledger;
      await ledger?.close();
    } catch {
      // it never opened
    }
    this.finish('exited');
  }
}

/** A socket file left by a host that died: removed when nothing answers on it and it is ours. */
function removeStaleSocket(socket: string): void {
  if (process.platform === 'win32') return;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socket);
  } catch {
    return;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!st.isSocket() || (uid !== undefined && st.uid !== uid)) return;
  // We hold the pid file: whatever listened there before is dead or about to leave.
  fs.rmSync(socket, { force: true });
}
