// The embedded storage engine: sql.js in memory, made durable by an append-only, checksummed
// journal fsynced per transaction, shared by several processes through a file lock and catch-up
// on the journal, compacted by snapshots written when the journal grows or the ledger is idle.
// Knows SQL and files; nothing of progress entries, tasks or MCP.
//
// Files beside the ledger path P:  P (snapshot, a SQLite file)  P.journal  P.lock
// Invariant: state = snapshot of generation G + every record of journal G, in sequence order.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { LedgerError } from '../../errors';
import { silentLogger, type Logger } from '../../log';
import { ensurePrivateDir, FILE_MODE, folderIdentity, fsyncDir, renameWithRetrySync, tempPathFor, timestampForFileName, writeAllSync, writeFileAtomicSync } from '../files';
import { FileLock } from '../fileLock';
import type { SchemaStream } from '../sql/schema';
import type { TailRecovery } from '../store';
import { decodeHeader, encodeHeader, encodeRecord, HEADER_SIZE, JOURNAL_MAGIC, parseRecordAt, type JournalRecord, type Op, type SqlValue } from './journal';
import { loadSqlJs } from './sqlJs';
import { writeContext } from '../writeContext';
import { openRegularSync } from '../../regularFile';
import { APPLICATION_ID, journalIsOurs, notAJournal, notALedger, notOurDatabase, refuseSpecialFiles, SQLITE_MAGIC } from '../ledgerFiles';

export type { SqlValue } from './journal';
export type Row = Record<string, SqlValue>;

export interface ReadTx {
  get<T = Row>(sql: string, params?: SqlValue[]): T | undefined;
  all<T = Row>(sql: string, params?: SqlValue[]): T[];
}

export interface WriteTx extends ReadTx {
  /** Runs a statement that changes data; it is journaled. Must be deterministic given its params. */
  run(sql: string, params?: SqlValue[]): { changes: number };
}

// The schema's streams and migrations, shared with the PostgreSQL engine.
export type { Migration, SchemaStream } from '../sql/schema';

export interface CheckpointPolicy {
  /** Journal size that always triggers a snapshot. */
  minBytes: number;
  /** A snapshot is also due when the journal exceeds this fraction of the snapshot's size. */
  snapshotRatio: number;
  /** Quiet time after the last write before an idle snapshot is considered. */
  idleMs: number;
  /** Journal size below which an idle snapshot is not worth writing... */
  idleMinBytes: number;
  /** ...nor below this fraction of the snapshot: exporting a large ledger blocks for a moment. */
  idleSnapshotRatio: number;
  /**
   * Up to this snapshot size, the file at the ledger path holds every write within `freshMs` of
   * quiet (at most 5 x freshMs under steady writes), and a process that wrote snapshots before
   * it closes: `sqlite3 data.db` shows what was just logged. Larger ledgers follow the idle rule.
   */
  freshMaxBytes: number;
  freshMs: number;
}

export const DEFAULT_CHECKPOINT: CheckpointPolicy = {
  minBytes: 8 << 20,
  snapshotRatio: 0.5,
  idleMs: 15_000,
  idleMinBytes: 256 << 10,
  idleSnapshotRatio: 0.05,
  freshMaxBytes: 64 << 20,
  freshMs: 1_000,
};

export interface EngineOptions {
  /** Ledger (snapshot) path; companion files sit beside it. */
  file: string;
  schemas: readonly SchemaStream[];
  logger?: Logger;
  /** false: never write snapshots from this process (a reader such as the extension host). */
  checkpoint?: Partial<CheckpointPolicy> | false;
  /** Watch the journal and apply foreign writes within ~250 ms, firing change events. */
  watch?: boolean;
  lockTimeoutMs?: number;
  /** SQL functions available to queries (not to journaled statements: they must be deterministic). */
  functions?: Record<string, (...args: SqlValue[]) => SqlValue>;
  /**
   * The identity (`folderIdentity`) the ledger's folder must keep (a ledger host): the folder is
   * never created, and nothing (lock, journal, snapshot) is written once it is gone or replaced.
   */
  folder?: string;
  /**
   * Keeps the inter-process lock this long after a write, for the next one (a ledger host, whose
   * writes follow one another): no lock file is made and removed per write, and the fdatasync
   * that follows commits no directory change of the lock's. Held at most LINGER_MAX_HOLD_MS at a
   * stretch (lockMaxHoldMs), then let go for a direct writer that waits. 0 (the default): let go after each write.
   */
  lockLingerMs?: number;
  /** With lockLingerMs: the longest stretch the lock is kept across writes (LINGER_MAX_HOLD_MS by default). */
  lockMaxHoldMs?: number;
  /**
   * Called once a snapshot is written, with its size: the copy of the whole ledger sql.js
   * exported for it is garbage from then on (a ledger host collects it at once).
   */
  onSnapshot?: (bytes: number) => void;
}

export interface EngineChange {
  /** true when another process wrote; false for this process's own writes. */
  foreign: boolean;
  seq: number;
  /** true when only upkeep (index batches) was written: nothing a view shows changed. */
  maintenance: boolean;
  /** This process's own writes: the `writeContext` origin of each (-1 without one). */
  origins?: number[];
}

interface PendingWrite {
  fn: (tx: WriteTx) => unknown;
  maintenance: boolean;
  key: string | undefined;
  /** The key's call is sent for the first time (WriteContext.fresh): nothing to look up. */
  fresh: boolean;
  origin: number | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * With lockLingerMs: the longest stretch the lock is kept across writes by default, and the pause
 * after it before the next write takes it again, in which a direct writer (which polls every 1-2
 * ms) takes it. The pause is paid by one write a stretch; 250 ms stretches cost the host's p50.
 */
const LINGER_MAX_HOLD_MS = 1_000;
const LINGER_YIELD_MS = 5;
/** How long a handle holding the lock trusts what it last saw of the files without a stat (filesCurrent). */
const FILES_TRUST_MS = 250;

/** Results of writes with an id are kept this long: a client retries within seconds. */
const WRITE_RESULT_TTL_MS = 10 * 60_000;
const PRUNE_EVERY = 500;

export interface WriteOptions {
  /** Upkeep that changes no data, such as indexing: not counted in `changes`, flagged to listeners. */
  maintenance?: boolean;
}

export interface EngineStats {
  file: string;
  generation: number;
  seq: number;
  /** Data changes ever written (journal records that are not maintenance), comparable across processes. */
  changes: number;
  snapshotBytes: number;
  journalBytes: number;
  checkpoints: number;
  /** A write of this process waits for the fresh-snapshot rule (not yet in the file at the ledger path). */
  freshPending: boolean;
}

export { APPLICATION_ID } from '../ledgerFiles';

/** A set-aside journal tail larger than this is left for a person, not read into memory. */
const MAX_TAIL_BYTES = 256 << 20;

/** The intact records in damaged journal bytes: where a record does not check out, tries the next byte. */
function scanRecords(bytes: Buffer): { records: JournalRecord[]; damagedBytes: number } {
  const records: JournalRecord[] = [];
  let damagedBytes = 0;
  let at = 0;
  while (at < bytes.length) {
    const step = parseRecordAt(bytes, at);
    if (step.kind === 'record') {
      records.push(step.record);
      at += step.size;
    } else {
      damagedBytes++;
      at++;
    }
  }
  return { records, damagedBytes };
}
const READ_CHUNK = 8 << 20;
// The database lives in this process's memory alone (sql.js), so it is opened with an exclusive lock
// (locking_mode=EXCLUSIVE): in the default mode SQLite takes and drops its file lock around every
// statement outside a transaction and every transaction, and each time asks sql.js's in-memory file
// system whether a hot journal exists, which answers "no" by throwing and catching an error in
// JavaScript. That was about 20 us of every write and of every read (bench/results/lock-mode.md).
const PRAGMAS = 'PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY; PRAGMA locking_mode=EXCLUSIVE;';

interface OpenJournal {
  fd: number;
  ino: number;
  dev: number;
  generation: number;
  /** Bytes of this journal already applied (header included). */
  offset: number;
}

interface SnapshotIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
  generation: number;
}

/** Reads the SQLite header's user_version (bytes 60..63), where a snapshot keeps its generation. */
function readSnapshotHeader(file: string): { generation: number; applicationId: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(100);
    const n = fs.readSync(fd, head, 0, 100, 0);
    if (n < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) return { generation: -1, applicationId: 0 };
    return { generation: head.readUInt32BE(60), applicationId: head.readUInt32BE(68) };
  } finally {
    fs.closeSync(fd);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
  idle(): Promise<void> {
    return this.tail;
  }
}

export class SqliteEngine {
  readonly file: string;
  readonly journalPath: string;
  /** Things a person should know, such as a file moved aside. Shown by the transports. */
  readonly notices: string[] = [];

  private db!: Database;
  private statements = new Map<string, Statement>();
  /**
   * The result column names of each prepared query, read once: sql.js's getAsObject asks SQLite
   * for them and decodes each again for every row, then builds the row through Object.fromEntries
   * (together about 7% of a ledger host's CPU draining a queue). A schema change can change them
   * (SQLite prepares `SELECT *` again): cleared when a statement of this process or of a journal
   * record changes the schema (every one goes through `change`), on every rollback (`control`),
   * and with the statements.
   */
  private columnNames = new Map<string, string[]>();
  private journal: OpenJournal | undefined;
  private generation = 0;
  private lastSeq = 0;
  private changes = 0;
  private snapshotBytes = 0;
  private snapshotId: SnapshotIdentity | undefined;
  private checkpoints = 0;
  private closed = false;
  private readonly lock: FileLock;
  /** With lockLingerMs: when the lock was taken, the timer that lets it go, and no taking it before `lockYieldUntil`. */
  private lockTakenAt = 0;
  /**
   * When this handle last saw the ledger's files as it knows them (journal, generation), under the
   * lock it still holds: a catch-up or its own commit (0: not since the lock was last released).
   * See filesCurrent().
   */
  private filesSeenAt = 0;
  private lingerTimer: NodeJS.Timeout | undefined;
  private lockYieldUntil = 0;
  private readonly mutex = new Mutex();
  private readonly pending: PendingWrite[] = [];
  private drainQueued = false;
  private keyedWrites = 0;
  private readonly logger: Logger;
  private readonly policy: CheckpointPolicy | undefined;
  private readonly listeners = new Set<(change: EngineChange) => void>();
  private idleTimer: NodeJS.Timeout | undefined;
  /** When the oldest write not yet in a snapshot was made by this process (the fresh-snapshot rule). */
  private freshSince: number | undefined;
  /** The seq of the first write of this process not yet known to be in a snapshot (with freshSince). */
  private freshSinceSeq = 0;
  /** The seq of this process's last write; 0 until it writes (then it leaves a current snapshot when it closes). */
  private ownSeq = 0;
  private checkpointQueued = false;
  private watcher: fs.FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private catchUpQueued = false;
  private tooNew: string | undefined;
  private catchUpDepth = 0;
  /** Damaged journal places already warned about (generation:offset). */
  private readonly damageWarned = new Set<string>();
  /** Warnings of damaged journal bytes not yet set aside: true until a writer cuts the journal. */
  private readonly damageNotices = new Set<string>();
  /** Foreign changes applied by the catch-up under way, announced when it ends. */
  private pendingForeign: EngineChange | undefined;

  private constructor(
    private readonly sql: SqlJsStatic,
    private readonly options: EngineOptions,
  ) {
    this.file = options.file;
    this.journalPath = `${options.file}.journal`;
    this.logger = options.logger ?? silentLogger;
    this.lock = new FileLock(`${options.file}.lock`, this.logger, options.lockTimeoutMs);
    this.policy = options.checkpoint === false ? undefined : { ...DEFAULT_CHECKPOINT, ...(options.checkpoint ?? {}) };
  }

  static async open(options: EngineOptions): Promise<SqliteEngine> {
    const sql = await loadSqlJs();
    const dir = path.dirname(options.file);
    if (options.folder !== undefined && folderIdentity(dir) !== options.folder) throw folderGone(dir);
    try {
      if (options.folder === undefined) ensurePrivateDir(dir);
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (err) {
      throw new LedgerError(
        'unavailable',
        `The ledger folder ${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'}). Choose another path with AGENT_PROGRESS_DB_PATH or fix its permissions.`,
      );
    }
    // A device, a FIFO or a socket at the ledger's paths is never read, renamed or replaced.
    refuseSpecialFiles(options.file);
    const engine = new SqliteEngine(sql, options);
    await engine.load();
    if (options.watch) engine.startWatching();
    return engine;
  }

  // ---- public API --------------------------------------------------------------------------

  /** Runs `fn` on the latest state of the ledger (this process's and every other's writes). */
  read<T>(fn: (tx: ReadTx) => T): T {
    this.assertUsable();
    this.catchUp(false);
    this.assertUsable(); // catching up may have brought a schema this build cannot read
    return fn(this.readTx());
  }

  /**
   * Runs `fn` in a transaction under the inter-process lock, after catching up. Statements it
   * runs are journaled and fsynced before this resolves; if `fn` throws, nothing is kept.
   * Writes that arrive while another is under way are committed together (group commit): one
   * journal record and one fdatasync, each in its own savepoint, so that one failing leaves the
   * others whole. A write made within a `writeContext` (a ledger host's call) records its result
   * under the call's id, and a retry of that call gets the result instead of writing again.
   */
  write<T>(fn: (tx: WriteTx) => T, options: WriteOptions = {}): Promise<T> {
    this.assertUsable();
    const ctx = writeContext.getStore();
    const key = ctx ? `${ctx.id}:${ctx.n++}` : undefined;
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        fn,
        maintenance: options.maintenance === true,
        key,
        fresh: ctx?.fresh === true,
        origin: ctx?.origin,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      if (this.drainQueued) return;
      this.drainQueued = true;
      // The commit waits for the event loop's check phase: the calls of every client whose request
      // was read in this turn (a ledger host) join it. Committed at once, each call's write had
      // its own record and fdatasync, as calls run one after another in the same turn.
      void this.mutex.run(async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        return this.drain();
      });
    });
  }

  private async drain(): Promise<void> {
    this.drainQueued = false;
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    try {
      this.assertUsable();
      // Before a lock file is made in the folder; a lock kept from the last write makes nothing,
      // and commitLocked checks the folder again under it.
      if (!this.lock.held) this.checkFolder();
      await this.takeLock();
    } catch (err) {
      this.releaseLock();
      for (const item of batch) item.reject(err);
      return;
    }
    try {
      // Upkeep is journaled apart (it is not counted as a change); data writes share one record.
      let start = 0;
      let open = false;
      // A ledger host's engine keeps the lock past its writes (lockLingerMs): it may answer first.
      const answerFirst = (this.options.lockLingerMs ?? 0) > 0;
      while (start < batch.length) {
        let end = start + 1;
        while (end < batch.length && batch[end]!.maintenance === batch[start]!.maintenance) end++;
        open = this.commitLocked(batch.slice(start, end), answerFirst && end === batch.length);
        start = end;
      }
      if (open) {
        // The last record is durable and its writers answered: their answers leave in this
        // turn's promise jobs (a ledger host's replies), and the database in memory commits in
        // the next turn, still under the mutex and the lock. Meanwhile a read sees the written
        // rows (one connection) and no other process can append a record for it to apply.
        await new Promise<void>((resolve) => setImmediate(resolve));
        this.finishCommit();
      }
    } finally {
      this.dropLock();
    }
  }

  /** Takes the inter-process lock, or keeps it when a write just left it lingering (lockLingerMs). */
  private async takeLock(): Promise<void> {
    if (this.lingerTimer) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    if (this.lock.held) return;
    const wait = this.lockYieldUntil - Date.now();
    if (wait > 0) await sleep(wait);
    await this.lock.acquire();
    this.lockTakenAt = Date.now();
  }

  /** After a write: lets the lock go, or keeps it lockLingerMs for the next write (under the mutex). */
  private dropLock(): void {
    const linger = this.options.lockLingerMs ?? 0;
    const now = Date.now();
    if (linger <= 0 || this.closed || !this.lock.held || now - this.lockTakenAt >= (this.options.lockMaxHoldMs ?? LINGER_MAX_HOLD_MS)) {
      if (linger > 0 && this.lock.held) this.lockYieldUntil = now + LINGER_YIELD_MS;
      this.releaseLock();
      return;
    }
    const timer = setTimeout(() => {
      void this.mutex.run(async () => {
        if (this.lingerTimer === timer) this.releaseLock();
      });
    }, linger);
    timer.unref();
    this.lingerTimer = timer;
  }

  private releaseLock(): void {
    if (this.lingerTimer) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    // A lock kept (lockLingerMs) while the ledger's folder was replaced leaves the lock file at its
    // path to its new owner: release() removes only this handle's own.
    this.lock.release();
    this.filesSeenAt = 0;
  }

  /**
   * Whether the ledger's files are still as this handle last saw them, without a stat: it has held
   * the lock ever since (every writer takes it to append or rotate, so nothing else wrote), and
   * only briefly (FILES_TRUST_MS: a lock held far longer, say across a suspended machine, may have
   * been broken as stale by another process, whose writes the next catch-up must then read).
   */
  private filesCurrent(): boolean {
    // By the wall clock, as the breaker judges the lock's age; a clock set back counts as too long.
    const since = Date.now() - this.filesSeenAt;
    return this.lock.held && this.filesSeenAt >= this.lockTakenAt && since >= 0 && since < FILES_TRUST_MS;
  }

  /** Writes a snapshot now and starts a new journal. Returns false when there was nothing to do. */
  checkpoint(): Promise<boolean> {
    this.assertUsable();
    return this.mutex.run(async () => {
      if (this.closed) return false;
      this.checkFolder();
      await this.takeLock();
      try {
        return this.checkpointLocked();
      } finally {
        this.dropLock();
      }
    });
  }

  onDidChange(listener: (change: EngineChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies foreign writes now (what the watcher does on its own). Returns how many. */
  refresh(): number {
    this.assertUsable();
    return this.catchUp(false);
  }

  stats(): EngineStats {
    return {
      file: this.file,
      generation: this.generation,
      seq: this.lastSeq,
      changes: this.changes,
      snapshotBytes: this.snapshotBytes,
      journalBytes: this.journal ? this.journal.offset - HEADER_SIZE : 0,
      checkpoints: this.checkpoints,
      freshPending: this.freshSince !== undefined,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.stopWatching();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.mutex.idle();
    if (this.ownSeq > 0 && this.policy && this.snapshotBytes <= this.policy.freshMaxBytes && !this.tooNew) {
      // A short-lived writer (the CLI) leaves the file at the ledger path current.
      await this.checkpoint().catch((err: unknown) => this.logger.warn(`Snapshot failed: ${(err as Error).message}`));
    }
    this.closed = true;
    await this.mutex.run(async () => this.releaseLock());
    if (this.journal) fs.closeSync(this.journal.fd);
    this.journal = undefined;
    this.freeStatements();
    this.db.close();
    this.listeners.clear();
  }

  // ---- loading -----------------------------------------------------------------------------

  private async load(): Promise<void> {
    const state = this.loadUnlocked();
    const needsLock = state !== 'ok' || this.needsMigration();
    if (needsLock) {
      await this.mutex.run(async () => {
        this.checkFolder();
        await this.lock.acquire();
        try {
          if (state === 'corrupt') this.recoverCorruptLocked();
          if (state === 'bad-journal') this.moveBadJournalAsideLocked();
          this.catchUp(true);
          this.ensureJournalLocked();
          this.migrateLocked();
        } finally {
          this.lock.release();
        }
      });
    }
    this.checkSchemaNotTooNew();
    if (this.tooNew) throw new LedgerError('unavailable', this.tooNew);
    this.scheduleCheckpointIfDue();
  }

  /**
   * Loads snapshot and journal without the lock. 'ok' when they agree; 'repair' when a writer
   * must create or rotate the journal; 'corrupt' when the snapshot cannot be read.
   */
  private loadUnlocked(): 'ok' | 'repair' | 'corrupt' | 'bad-journal' {
    for (let attempt = 0; attempt < 8; attempt++) {
      const snap = this.readSnapshot();
      if (snap === 'corrupt') {
        this.adoptEmpty();
        return 'corrupt';
      }
      const opened = this.tryOpenJournalFile();
      if (opened === undefined) return 'repair';
      if (typeof opened === 'string') return 'bad-journal';
      if (opened.generation === this.generation) {
        this.journal = opened;
        this.catchUp(false);
        return 'ok';
      }
      fs.closeSync(opened.fd);
      // Journal older than the snapshot: a rotation is under way or was cut short.
      if (opened.generation < this.generation) return 'repair';
      // Journal newer: a snapshot was written after we read ours. Read again.
    }
    throw new LedgerError(
      'unavailable',
      `The ledger journal ${this.journalPath} belongs to a later snapshot than ${this.file} (was the snapshot replaced or deleted?). Restore ${path.basename(this.file)} from a backup, or move ${path.basename(this.journalPath)} aside to start from the snapshot.`,
    );
  }

  private adoptEmpty(): void {
    this.replaceDb(new this.sql.Database());
    this.generation = 0;
    this.lastSeq = 0;
    this.changes = 0;
    this.snapshotBytes = 0;
    this.snapshotId = undefined;
  }

  /** Loads the snapshot file into memory (or an empty database when there is none). */
  private readSnapshot(): 'ok' | 'corrupt' {
    let bytes: Buffer;
    try {
      const fd = openRegularSync(this.file, 'The ledger path');
      try {
        bytes = Buffer.alloc(fs.fstatSync(fd).size);
        let done = 0;
        while (done < bytes.length) {
          const n = fs.readSync(fd, bytes, done, bytes.length - done, done);
          if (n === 0) break;
          done += n;
        }
        bytes = bytes.subarray(0, done);
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.adoptEmpty();
        return 'ok';
      }
      if (err instanceof LedgerError) throw err;
      throw new LedgerError('unavailable', `Cannot read the ledger ${this.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}. Fix its permissions.`);
    }
    if (bytes.length < 16 || bytes.toString('latin1', 0, 16) !== SQLITE_MAGIC) {
      // Only a file that is recognisably ours may be moved aside: a damaged snapshot beside our
      // journal. Anything else (a text file, an empty file) is a person's, and is left alone.
      if (journalIsOurs(this.journalPath)) return 'corrupt';
      throw notALedger(this.file);
    }
    if (bytes.length < 100) return 'corrupt';
    const appId = bytes.readUInt32BE(68);
    if (appId !== APPLICATION_ID) {
      throw notOurDatabase(this.file);
    }
    let db: Database;
    try {
      db = new this.sql.Database(bytes);
      const row = db.exec('SELECT generation, base_seq, changes FROM _ledger_snapshot WHERE id = 1')[0]?.values[0];
      db.exec("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
      if (!row) throw new Error('no snapshot row');
      this.replaceDb(db);
      this.generation = Number(row[0]);
      this.lastSeq = Number(row[1]);
      this.changes = Number(row[2]);
    } catch {
      return 'corrupt';
    }
    this.snapshotBytes = bytes.length;
    this.rememberSnapshot(this.generation);
    return 'ok';
  }

  /** Moves an unreadable snapshot and its journal aside (never deleted), then starts afresh. */
  private recoverCorruptLocked(): void {
    const again = this.readSnapshot();
    if (again === 'ok') return; // someone repaired it meanwhile
    const suffix = `corrupt-${timestampForFileName()}`;
    const moved: string[] = [];
    for (const file of [this.file, this.journalPath]) {
      if (!fs.existsSync(file)) continue;
      const target = `${file}.${suffix}`;
      renameWithRetrySync(file, target);
      moved.push(target);
    }
    fsyncDir(path.dirname(this.file));
    if (this.journal) {
      fs.closeSync(this.journal.fd);
      this.journal = undefined;
    }
    this.adoptEmpty();
    const notice = `The ledger ${this.file} could not be read (not a valid SQLite file). It was moved aside to ${moved.join(' and ')} and a new, empty ledger was started. Nothing was deleted.`;
    this.notices.push(notice);
    this.logger.error(notice);
  }

  private moveBadJournalAsideLocked(): void {
    const problem = this.tryOpenJournalFile();
    if (typeof problem !== 'string') {
      if (problem) fs.closeSync(problem.fd);
      return;
    }
    const target = `${this.journalPath}.unreadable-${timestampForFileName()}`;
    renameWithRetrySync(this.journalPath, target);
    fsyncDir(path.dirname(this.file));
    const notice = `The ledger journal ${this.journalPath} could not be read (${problem}). It was moved aside to ${target}; the ledger continues from its last snapshot. Nothing was deleted.`;
    this.notices.push(notice);
    this.logger.error(notice);
  }

  private openJournalFile(): OpenJournal | undefined {
    const opened = this.tryOpenJournalFile();
    if (typeof opened === 'string') {
      throw new LedgerError(
        'unavailable',
        `The ledger journal ${this.journalPath} is unreadable: ${opened}. Reopen the ledger to move it aside and recover from the last snapshot.`,
      );
    }
    return opened;
  }

  private tryOpenJournalFile(): OpenJournal | string | undefined {
    let fd: number;
    try {
      fd = openRegularSync(this.journalPath, 'The ledger journal', 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      if (err instanceof LedgerError) throw err;
      throw new LedgerError('unavailable', `Cannot open the ledger journal ${this.journalPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}. Fix its permissions.`);
    }
    const head = Buffer.alloc(HEADER_SIZE);
    const n = fs.readSync(fd, head, 0, HEADER_SIZE, 0);
    const header = decodeHeader(head.subarray(0, n));
    if (typeof header === 'string') {
      fs.closeSync(fd);
      if (n < 4 || head.readUInt32LE(0) !== JOURNAL_MAGIC) {
        // Not ours at all: a person's file that happens to sit where our journal would.
        throw notAJournal(this.journalPath);
      }
      return header;
    }
    const st = fs.fstatSync(fd);
    return { fd, ino: st.ino, dev: st.dev, generation: header.generation, offset: HEADER_SIZE };
  }

  // ---- catching up ---------------------------------------------------------------------------

  /**
   * Applies records other processes appended since we last looked, following the journal across
   * rotations. Under the lock, a torn tail (a write cut off by a crash, never acknowledged) is cut
   * off; without it, a short tail may be a write in progress and is left for later.
   */
  private catchUp(locked: boolean): number {
    // Listeners hear of foreign writes only once the whole catch-up is done: one reading the
    // ledger from its callback would otherwise start another catch-up from an offset not yet
    // advanced, and apply the same records twice ("out of sequence").
    this.catchUpDepth++;
    try {
      return this.catchUpAll(locked);
    } finally {
      this.catchUpDepth--;
      if (this.catchUpDepth === 0 && this.pendingForeign) {
        const change = this.pendingForeign;
        this.pendingForeign = undefined;
        this.emit(change);
      }
    }
  }

  private catchUpAll(locked: boolean): number {
    let applied = 0;
    for (let hops = 0; hops < 16; hops++) {
      if (!this.journal) {
        const opened = this.openJournalFile();
        if (!opened) return applied;
        if (opened.generation !== this.generation) {
          fs.closeSync(opened.fd);
          if (opened.generation < this.generation) return applied; // stale; a writer will rotate it
          applied += this.reloadFromDisk();
          continue;
        }
        this.journal = opened;
      }
      applied += this.applyNewRecords(this.journal, locked);
      let st: fs.Stats;
      try {
        st = fs.statSync(this.journalPath);
      } catch {
        return applied; // moved away by hand; keep what we have
      }
      if (st.ino === this.journal.ino && st.dev === this.journal.dev) return applied;
      // Rotated: the old journal is final now. Finish it, then step onto the new one.
      applied += this.applyNewRecords(this.journal, locked);
      fs.closeSync(this.journal.fd);
      this.journal = undefined;
      const next = this.openJournalFile();
      if (!next) return applied;
      if (next.generation === this.generation + 1 && this.headerBaseSeq(next) === this.lastSeq) {
        this.journal = next;
        this.generation = next.generation;
        continue;
      }
      fs.closeSync(next.fd);
      applied += this.reloadFromDisk();
    }
    return applied;
  }

  private headerBaseSeq(journal: OpenJournal): number {
    const head = Buffer.alloc(HEADER_SIZE);
    fs.readSync(journal.fd, head, 0, HEADER_SIZE, 0);
    const header = decodeHeader(head);
    return typeof header === 'string' ? -1 : header.baseSeq;
  }

  /** We fell too far behind (a whole generation passed): start over from the files. */
  private reloadFromDisk(): number {
    const before = this.lastSeq;
    if (this.journal) {
      fs.closeSync(this.journal.fd);
      this.journal = undefined;
    }
    const state = this.loadUnlocked();
    if (state === 'corrupt' || state === 'bad-journal') throw new LedgerError('unavailable', `The ledger ${this.file} became unreadable while open. Reopen it to recover.`);
    this.emit({ foreign: true, seq: this.lastSeq, maintenance: false });
    return Math.max(1, this.lastSeq - before);
  }

  private applyNewRecords(journal: OpenJournal, locked: boolean): number {
    const size = fs.fstatSync(journal.fd).size;
    if (size <= journal.offset) return 0;
    let applied = 0;
    let buf = Buffer.alloc(0);
    let bufStart = journal.offset;
    let at = 0;
    const batch: JournalRecord[] = [];
    const flush = (): void => {
      if (batch.length === 0) return;
      this.applyRecords(batch);
      applied += batch.length;
      batch.length = 0;
    };
    while (bufStart + at < size) {
      const step = parseRecordAt(buf, at);
      if (step.kind === 'record') {
        if (step.record.seq !== this.lastSeq + batch.length + 1) {
          flush();
          throw new LedgerError(
            'internal',
            `The ledger journal ${this.journalPath} is out of sequence at record ${step.record.seq} (expected ${this.lastSeq + 1}). Another program may have written it; restore it from a backup or move it aside.`,
          );
        }
        batch.push(step.record);
        at += step.size;
        if (batch.length >= 512) {
          flush();
          journal.offset = bufStart + at;
        }
        continue;
      }
      if (step.kind === 'incomplete') {
        const start = bufStart + at;
        const want = Math.max(step.needed, Math.min(READ_CHUNK, size - start));
        if (start + step.needed > size) {
          flush();
          journal.offset = start;
          if (locked) this.cutTornTail(journal, start, size, 'the last record is incomplete');
          return applied;
        }
        buf = Buffer.alloc(Math.min(want, size - start));
        fs.readSync(journal.fd, buf, 0, buf.length, start);
        bufStart = start;
        at = 0;
        continue;
      }
      flush();
      journal.offset = bufStart + at;
      if (locked) this.cutTornTail(journal, journal.offset, size, step.reason);
      else this.warnDamaged(journal.offset, size, step.reason);
      return applied;
    }
    flush();
    journal.offset = bufStart + at;
    return applied;
  }

  /**
   * A reader cannot cut the journal (no lock): what follows a damaged record stays unread until a
   * writer sets it aside. Said once per place, naming the file and offset, never silently.
   */
  private warnDamaged(at: number, size: number, reason: string): void {
    const key = `${this.generation}:${at}`;
    if (this.damageWarned.has(key)) return;
    this.damageWarned.add(key);
    const notice = `The ledger journal ${this.journalPath} is damaged at byte ${at} (${reason}): the ${size - at} bytes after it are not read, so later writes are hidden. Run "agent-progress recover-ledger" (or "Agent Progress: Recover Set-Aside Ledger Writes") to set them aside and bring back every intact write.`;
    this.notices.push(notice);
    this.damageNotices.add(notice);
    this.logger.warn(notice);
  }

  /** Notices that stay true until someone acts (a damaged journal byte hiding writes), as opposed to events told once. */
  standingNotices(): string[] {
    return [...this.damageNotices];
  }

  /**
   * Brings back the intact writes of journal tails set aside as damaged (`*.journal.tail-*`):
   * first sets aside a damaged tail still in the journal, then scans each kept file for records
   * whose checksums hold, skipping damaged bytes, and writes each record's statements again as a
   * new write. A record that no longer applies (its row is already there, or it needed the lost
   * one) is skipped and named. A file done with is renamed `*.recovered`, never deleted.
   */
  async recoverSetAside(): Promise<TailRecovery> {
    await this.write(() => undefined); // under the lock: sets aside a damaged tail still in the journal
    const dir = path.dirname(this.journalPath);
    const prefix = `${path.basename(this.journalPath)}.tail-`;
    const names = fs
      .readdirSync(dir)
      .filter((n) => n.startsWith(prefix) && !n.endsWith('.recovered'))
      .sort();
    const files: TailRecovery['files'] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      const st = fs.lstatSync(file);
      if (!st.isFile()) continue;
      if (st.size > MAX_TAIL_BYTES) {
        files.push({ file, records: 0, applied: 0, skipped: [], damagedBytes: st.size, keptAs: file, refused: `larger than ${MAX_TAIL_BYTES} bytes; not read` });
        continue;
      }
      const { records, damagedBytes } = scanRecords(fs.readFileSync(file));
      let applied = 0;
      const skipped: { time: string; reason: string }[] = [];
      for (const record of records) {
        try {
          await this.write(
            (tx) => {
              for (const [sql, params] of record.ops) tx.run(sql, params);
            },
            { maintenance: record.maintenance },
          );
          applied++;
        } catch (err) {
          skipped.push({ time: new Date(record.time).toISOString(), reason: (err as Error).message.replace(/\s+/g, ' ').slice(0, 300) });
        }
      }
      const keptAs = `${file}.recovered`;
      fs.renameSync(file, keptAs);
      files.push({ file, records: records.length, applied, skipped, damagedBytes, keptAs });
    }
    return { journal: this.journalPath, files };
  }

  private cutTornTail(journal: OpenJournal, at: number, size: number, reason: string): void {
    // The damage warned about is set aside now: its warnings no longer hold.
    for (const notice of this.damageNotices) this.notices.splice(this.notices.indexOf(notice), 1);
    this.damageNotices.clear();
    if (size - at > 1 << 20 || !reason.includes('incomplete')) {
      // More than a torn write would leave, or damaged bytes: keep them for inspection.
      const keep = `${this.journalPath}.tail-${timestampForFileName()}-${at}`;
      const bytes = Buffer.alloc(size - at);
      fs.readSync(journal.fd, bytes, 0, bytes.length, at);
      fs.writeFileSync(keep, bytes, { mode: FILE_MODE });
      const notice = `${size - at} bytes at the end of ${this.journalPath} could not be read (${reason}) and were set aside in ${keep}.`;
      this.notices.push(notice);
      this.logger.warn(notice);
    }
    fs.ftruncateSync(journal.fd, at);
    fs.fdatasyncSync(journal.fd);
    this.logger.warn(`Ignored a torn tail of ${size - at} bytes at the end of ${this.journalPath} (${reason}): a write cut off before it was acknowledged`);
  }

  private applyRecords(records: JournalRecord[]): void {
    this.control('BEGIN');
    try {
      for (const record of records) for (const [sql, params] of record.ops) this.change(sql, params);
      this.control('COMMIT');
    } catch (err) {
      this.control('ROLLBACK');
      throw new LedgerError(
        'internal',
        `Journal record ${records[0]?.seq ?? '?'} of ${this.journalPath} could not be applied (${(err as Error).message}). It may come from a newer Agent Progress; update this one.`,
      );
    }
    const last = records[records.length - 1]!;
    this.lastSeq = last.seq;
    this.changes = last.changes;
    // Only a migration writes _meta: look at the schema versions again only after one (twelve
    // compiled queries per batch of other processes' writes otherwise).
    if (records.some((r) => r.ops.some(([sql]) => sql.includes('_meta')))) this.checkSchemaNotTooNew();
    this.emit({ foreign: true, seq: this.lastSeq, maintenance: records.every((r) => r.maintenance) });
  }

  // ---- writing -------------------------------------------------------------------------------

  /** One write alone, under the lock (migrations). */
  private writeLocked<T>(fn: (tx: WriteTx) => T, options: WriteOptions = {}): T {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    this.commitLocked([
      {
        fn,
        maintenance: options.maintenance === true,
        key: undefined,
        fresh: false,
        origin: undefined,
        resolve: (value) => (outcome = { ok: true, value: value as T }),
        reject: (error) => (outcome = { ok: false, error }),
      },
    ]);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.value;
  }

  /**
   * Runs the writes of `batch` in one transaction, a savepoint each when there are several, and
   * journals them as one record. With `answerFirst`, a durable record's writers are answered
   * before the database in memory commits: it returns true, and the caller calls finishCommit.
   */
  private commitLocked(batch: PendingWrite[], answerFirst = false): boolean {
    let settled: Array<{ item: PendingWrite; ok: boolean; value: unknown }> = [];
    try {
      this.checkFolder();
      if (!this.filesCurrent()) {
        this.catchUp(true);
        this.ensureJournalLocked();
      }
      this.assertUsable();
    } catch (err) {
      for (const item of batch) item.reject(err);
      return false;
    }
    const journal = this.journal!;
    const ops: Op[] = [];
    const tx = this.writeTx(ops);
    const now = Date.now();
    this.control('BEGIN');
    let keyed = 0;
    // A write alone needs no savepoint: when it fails, the transaction holds nothing else.
    const savepoints = batch.length > 1;
    for (const item of batch) {
      const mark = ops.length;
      if (savepoints) this.control('SAVEPOINT w');
      try {
        const value = this.runWrite(item, tx, now);
        if (savepoints) this.control('RELEASE w');
        settled.push({ item, ok: true, value });
        if (item.key) keyed++;
      } catch (err) {
        if (savepoints) {
          this.control('ROLLBACK TO w');
          this.control('RELEASE w');
        } else {
          this.control('ROLLBACK');
          this.control('BEGIN');
        }
        ops.length = mark;
        settled.push({ item, ok: false, value: err });
      }
    }
    if (keyed > 0 && (this.keyedWrites += keyed) >= PRUNE_EVERY) {
      this.keyedWrites = 0;
      tx.run('DELETE FROM _write_results WHERE at < ?', [now - WRITE_RESULT_TTL_MS]);
    }
    if (ops.length === 0) {
      this.control('COMMIT');
      for (const s of settled) (s.ok ? s.item.resolve : s.item.reject)(s.value);
      return false;
    }
    const seq = this.lastSeq + 1;
    const maintenance = batch[0]!.maintenance;
    const changes = this.changes + (maintenance ? 0 : 1);
    const record = encodeRecord({ seq, time: now, ops, changes, maintenance });
    try {
      writeAllSync(journal.fd, record, journal.offset);
      fs.fdatasyncSync(journal.fd);
    } catch (err) {
      this.control('ROLLBACK');
      try {
        fs.ftruncateSync(journal.fd, journal.offset);
      } catch {
        // the next writer cuts the torn tail
      }
      const failure = new LedgerError(
        'unavailable',
        `Could not write the ledger journal ${this.journalPath} (${(err as NodeJS.ErrnoException).code ?? 'error'}). Free disk space or fix permissions, then retry; nothing was saved.`,
        { retryable: true },
      );
      settled = settled.map((s) => (s.ok ? { item: s.item, ok: false, value: failure } : s));
      for (const s of settled) s.item.reject(s.value);
      return false;
    }
    journal.offset += record.length;
    this.filesSeenAt = Date.now();
    this.lastSeq = seq;
    this.changes = changes;
    this.ownSeq = seq;
    if (this.freshSince === undefined) this.freshSinceSeq = seq;
    const origins = settled.filter((s) => s.ok).map((s) => s.item.origin ?? -1);
    // Before the writers hear back: a listener in this process (a store's cache) learns of the
    // change before its caller's next statement.
    this.emit({ foreign: false, seq, maintenance, origins });
    if (!answerFirst) this.finishCommit();
    for (const s of settled) (s.ok ? s.item.resolve : s.item.reject)(s.value);
    return answerFirst;
  }

  /**
   * Commits in memory the transaction whose record commitLocked made durable: before its writers
   * are answered, or after (answerFirst, from drain). Should the commit fail (sql.js out of
   * memory), the database is read again from the files, which hold the record.
   */
  private finishCommit(): void {
    try {
      this.control('COMMIT');
    } catch (err) {
      this.logger.warn(`Could not commit a journaled write in memory (${(err as Error).message}); reading the ledger again from its files.`);
      try {
        this.control('ROLLBACK');
      } catch {
        // SQLite already rolled it back
      }
      try {
        this.reloadFromDisk();
      } catch (reloadErr) {
        this.logger.error((reloadErr as Error).message);
      }
    }
    this.scheduleCheckpointIfDue();
  }

  /** One write (in its savepoint when it shares the transaction); with a key, answered from `_write_results` if it was applied before. */
  private runWrite(item: PendingWrite, tx: WriteTx, now: number): unknown {
    if (!item.key) return item.fn(tx);
    const done = item.fresh ? undefined : tx.get<{ result: string }>('SELECT result FROM _write_results WHERE id = ?', [item.key]);
    if (done) return (JSON.parse(done.result) as { v?: unknown }).v;
    const value = item.fn(tx);
    tx.run('INSERT INTO _write_results (id, result, at) VALUES (?, ?, ?)', [item.key, JSON.stringify({ v: value }), now]);
    return value;
  }

  /**
   * Under the lock: makes sure the journal exists and belongs to the snapshot's generation,
   * finishing a rotation that a crashed process left half done.
   */
  private ensureJournalLocked(): void {
    const snapGen = this.snapshotGenerationOnDisk();
    if (this.journal && snapGen <= this.generation) return;
    if (snapGen > this.generation + 1) {
      // Several generations passed without us seeing their journals: reload from the files.
      this.reloadFromDisk();
      if (this.journal && this.snapshotGenerationOnDisk() <= this.generation) return;
    }
    if (this.journal && snapGen === this.generation + 1) {
      // The snapshot holds everything in our journal (we are caught up under the lock).
      this.generation = snapGen;
    }
    if (this.journal) {
      fs.closeSync(this.journal.fd);
      this.journal = undefined;
    }
    const existing = this.openJournalFile();
    if (existing && existing.generation === this.generation) {
      this.journal = existing;
      this.catchUp(true);
      return;
    }
    if (existing) fs.closeSync(existing.fd);
    this.createJournalLocked(this.generation, this.lastSeq);
  }

  /** The generation of the snapshot file now on disk; a stat per call, a header read when it changed. */
  private snapshotGenerationOnDisk(): number {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch {
      return 0;
    }
    const known = this.snapshotId;
    if (known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.generation;
    const header = readSnapshotHeader(this.file);
    const generation = header && header.generation >= 0 ? header.generation : 0;
    this.snapshotId = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, generation };
    return generation;
  }

  private rememberSnapshot(generation: number): void {
    const st = fs.statSync(this.file);
    this.snapshotId = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, generation };
  }

  private createJournalLocked(generation: number, baseSeq: number): void {
    const tmp = tempPathFor(this.journalPath);
    const fd = fs.openSync(tmp, 'wx', FILE_MODE);
    try {
      writeAllSync(fd, encodeHeader({ generation, baseSeq }), 0);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    renameWithRetrySync(tmp, this.journalPath);
    fsyncDir(path.dirname(this.journalPath));
    const opened = this.openJournalFile();
    if (!opened) throw new LedgerError('internal', `The ledger journal ${this.journalPath} vanished right after it was created`);
    this.journal = opened;
  }

  private checkpointLocked(): boolean {
    this.checkFolder();
    this.catchUp(true);
    this.ensureJournalLocked();
    const journal = this.journal!;
    if (journal.offset <= HEADER_SIZE && fs.existsSync(this.file)) return false;
    const nextGen = this.generation + 1;
    const started = Date.now();
    this.db.run(
      'CREATE TABLE IF NOT EXISTS _ledger_snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, base_seq INTEGER NOT NULL, changes INTEGER NOT NULL, written_at TEXT NOT NULL)',
    );
    this.db.run('INSERT OR REPLACE INTO _ledger_snapshot (id, generation, base_seq, changes, written_at) VALUES (1, ?, ?, ?, ?)', [
      nextGen,
      this.lastSeq,
      this.changes,
      new Date().toISOString(),
    ]);
    this.db.run(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${nextGen};`);
    this.freeStatements(); // export() closes and reopens the database, freeing every statement
    const bytes = this.db.export();
    this.afterOpen(this.db);
    writeFileAtomicSync(this.file, bytes);
    this.freshSince = undefined;
    this.removeStaleTempsLocked();
    // The snapshot is durable; from here a crash leaves a stale journal that the next writer replaces.
    fs.closeSync(journal.fd);
    this.journal = undefined;
    this.generation = nextGen;
    this.createJournalLocked(nextGen, this.lastSeq);
    this.rememberSnapshot(nextGen);
    this.snapshotBytes = bytes.length;
    this.checkpoints++;
    this.logger.debug(`Snapshot of ${bytes.length} bytes written in ${Date.now() - started} ms (generation ${nextGen}, seq ${this.lastSeq})`);
    this.options.onSnapshot?.(bytes.length);
    return true;
  }

  /**
   * Under the lock, no process is writing a snapshot or a journal: temp files of ours left beside
   * the ledger were cut off by a crash (kill -9). Only names exactly of our making are removed.
   */
  private removeStaleTempsLocked(): void {
    const dir = path.dirname(this.file);
    const base = path.basename(this.file);
    const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const ours = new RegExp(`^${escaped}(\\.journal)?\\.tmp-\\d+-[0-9a-f]{8}$`);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!ours.test(name)) continue;
      const full = path.join(dir, name);
      try {
        if (!fs.lstatSync(full).isFile()) continue;
        fs.unlinkSync(full);
        this.logger.info(`Removed ${full}, a temporary file a stopped process left behind`);
      } catch {
        // gone already, or not ours to remove
      }
    }
  }

  private scheduleFresh(ms: number): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (!this.closed) this.freshSnapshot().catch((err: unknown) => this.logger.warn(`Snapshot failed: ${(err as Error).message}`));
    }, ms);
    this.idleTimer.unref();
  }

  /**
   * The fresh-snapshot rule, shared by every process writing the ledger: a snapshot another
   * process wrote since our first pending write counts as ours, and the lock is only taken when
   * free. Ten writers thus write about one snapshot a second between them, and a snapshot never
   * queues for the lock ahead of a write (waiters would starve under load).
   */
  private freshSnapshot(): Promise<void> {
    return this.mutex.run(async () => {
      const policy = this.policy;
      if (this.closed || !policy || this.freshSince === undefined) return;
      this.catchUp(false);
      const baseSeq = this.journal ? this.headerBaseSeq(this.journal) : -1;
      if (baseSeq >= this.ownSeq) {
        this.freshSince = undefined; // every write of ours is in the file at the ledger path
        return;
      }
      if (baseSeq >= this.freshSinceSeq) {
        // Our earlier writes are in; the later ones wait a full interval from now.
        this.freshSince = Date.now();
        this.freshSinceSeq = baseSeq + 1;
        this.scheduleFresh(policy.freshMs);
        return;
      }
      this.checkFolder();
      if (this.lock.held) {
        // Kept from the last write (lockLingerMs): the snapshot is written under it.
        clearTimeout(this.lingerTimer);
        this.lingerTimer = undefined;
      } else if (this.lock.tryAcquire()) {
        this.lockTakenAt = Date.now();
      } else {
        this.scheduleFresh(Math.max(50, policy.freshMs / 4));
        return;
      }
      try {
        this.checkpointLocked();
      } finally {
        this.dropLock();
      }
    });
  }

  private scheduleCheckpointIfDue(): void {
    const policy = this.policy;
    if (!policy || this.closed) return;
    const journalBytes = this.journal ? this.journal.offset - HEADER_SIZE : 0;
    const due = journalBytes >= Math.max(policy.minBytes, this.snapshotBytes * policy.snapshotRatio);
    if (due && !this.checkpointQueued) {
      this.checkpointQueued = true;
      setImmediate(() => {
        this.checkpointQueued = false;
        if (!this.closed) this.checkpoint().catch((err: unknown) => this.logger.warn(`Snapshot failed: ${(err as Error).message}`));
      });
      return;
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (journalBytes > 0 && this.snapshotBytes <= policy.freshMaxBytes) {
      const now = Date.now();
      this.freshSince ??= now;
      const at = Math.min(now + policy.freshMs, this.freshSince + 5 * policy.freshMs);
      this.scheduleFresh(Math.max(0, at - now));
      return;
    }
    if (journalBytes < Math.max(policy.idleMinBytes, this.snapshotBytes * policy.idleSnapshotRatio)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (!this.closed) this.checkpoint().catch((err: unknown) => this.logger.warn(`Snapshot failed: ${(err as Error).message}`));
    }, policy.idleMs);
    this.idleTimer.unref();
  }

  // ---- schema --------------------------------------------------------------------------------

  private static latest(stream: SchemaStream): number {
    return stream.migrations.reduce((max, m) => Math.max(max, m.version), 0);
  }

  private schemaVersion(stream: string): number {
    const hasMeta = this.db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_meta'")[0];
    if (!hasMeta) return 0;
    const row = this.db.exec('SELECT value FROM _meta WHERE key = ?', [`schema_version.${stream}`])[0]?.values[0];
    return row ? Number(row[0]) : 0;
  }

  private needsMigration(): boolean {
    return this.options.schemas.some((stream) => this.schemaVersion(stream.name) < SqliteEngine.latest(stream));
  }

  private checkSchemaNotTooNew(): void {
    for (const stream of this.options.schemas) {
      const version = this.schemaVersion(stream.name);
      if (version > SqliteEngine.latest(stream)) {
        this.tooNew = `The ledger ${this.file} has ${stream.name} schema version ${version}, newer than this Agent Progress understands (${SqliteEngine.latest(stream)}). Update Agent Progress; the ledger was not changed.`;
      }
    }
  }

  private migrateLocked(): void {
    const plan = this.options.schemas
      .map((stream) => {
        const current = this.schemaVersion(stream.name);
        return { stream, current, pending: stream.migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version) };
      })
      .filter((p) => p.pending.length > 0);
    if (plan.length === 0) return;
    this.writeLocked(
      (tx) => {
        tx.run('CREATE TABLE IF NOT EXISTS _meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
        for (const { stream, pending } of plan) {
          for (const migration of pending) {
            for (const statement of migration.statements) tx.run(statement);
            tx.run('INSERT OR REPLACE INTO _meta (key, value) VALUES (?, ?)', [`schema_version.${stream.name}`, String(migration.version)]);
          }
        }
      },
      { maintenance: true },
    );
    for (const { stream, current } of plan) this.logger.info(`Ledger ${this.file}: ${stream.name} schema migrated from ${current} to ${SqliteEngine.latest(stream)}`);
  }

  // ---- sql.js plumbing -------------------------------------------------------------------------

  private replaceDb(db: Database): void {
    if (this.db) {
      this.freeStatements();
      this.db.close();
    }
    this.db = db;
    this.afterOpen(db);
  }

  private afterOpen(db: Database): void {
    db.exec(PRAGMAS);
    for (const [name, fn] of Object.entries(this.options.functions ?? {})) db.create_function(name, fn);
  }

  private freeStatements(): void {
    for (const statement of this.statements.values()) {
      try {
        statement.free();
      } catch {
        // already freed by export()
      }
    }
    this.statements.clear();
    this.columnNames.clear();
  }

  /**
   * A transaction control statement (BEGIN, COMMIT, SAVEPOINT...), prepared once: db.run parses it
   * every time. A rollback also forgets the column names: it may undo a schema change whose names
   * a query of the same transaction read.
   */
  private control(sql: string): void {
    this.statement(sql).run();
    if (sql.startsWith('ROLLBACK')) this.columnNames.clear();
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs a statement that changes the ledger (a write's, or a journal record's). */
  private change(sql: string, params: SqlValue[]): void {
    this.statement(sql).run(params);
    if (schemaChange(sql)) this.columnNames.clear();
  }

  /** The row a stepped statement is on, as an object of its columns (getAsObject's answer). */
  private row<T>(sql: string, statement: Statement): T {
    const values = statement.get();
    let names = this.columnNames.get(sql);
    if (names === undefined) {
      names = statement.getColumnNames();
      this.columnNames.set(sql, names);
    }
    const row: Record<string, SqlValue> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]!;
    return row as T;
  }

  private readTx(): ReadTx {
    const all = <T>(sql: string, params: SqlValue[] = []): T[] => {
      const statement = this.statement(sql);
      try {
        statement.bind(params);
        const rows: T[] = [];
        while (statement.step()) rows.push(this.row<T>(sql, statement));
        return rows;
      } finally {
        statement.reset();
      }
    };
    return {
      all,
      get: <T>(sql: string, params: SqlValue[] = []): T | undefined => {
        const statement = this.statement(sql);
        try {
          statement.bind(params);
          return statement.step() ? this.row<T>(sql, statement) : undefined;
        } finally {
          statement.reset();
        }
      },
    };
  }

  private writeTx(ops: Op[]): WriteTx {
    const read = this.readTx();
    return {
      ...read,
      run: (sql: string, params: SqlValue[] = []) => {
        this.change(sql, params);
        ops.push([sql, params]);
        return { changes: this.db.getRowsModified() };
      },
    };
  }

  // ---- change notification ---------------------------------------------------------------------

  private emit(change: EngineChange): void {
    if (this.catchUpDepth > 0) {
      const pending = this.pendingForeign;
      this.pendingForeign = pending ? { foreign: true, seq: change.seq, maintenance: pending.maintenance && change.maintenance } : change;
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.logger.warn(`A ledger change listener failed: ${(err as Error).message}`);
      }
    }
  }

  private startWatching(): void {
    const queue = (): void => {
      if (this.catchUpQueued || this.closed) return;
      this.catchUpQueued = true;
      setImmediate(() => {
        this.catchUpQueued = false;
        // Our own append woke the watcher: under a lock held since, no other process wrote.
        if (this.closed || this.filesCurrent()) return;
        try {
          this.catchUp(false);
        } catch (err) {
          this.logger.warn(`Could not apply another process's ledger writes: ${(err as Error).message}`);
        }
      });
    };
    try {
      const base = path.basename(this.file);
      this.watcher = fs.watch(path.dirname(this.file), { persistent: false }, (_event, name) => {
        if (!name || name.startsWith(base)) queue();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // some file systems cannot be watched; the poll below still notices writes
    }
    this.pollTimer = setInterval(queue, 250);
    this.pollTimer.unref();
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  /** A stat of the folder, before each write and snapshot: nothing is written into a folder that is gone or another. */
  private checkFolder(): void {
    if (this.options.folder === undefined) return;
    const dir = path.dirname(this.file);
    if (folderIdentity(dir) !== this.options.folder) throw folderGone(dir);
  }

  private assertUsable(): void {
    if (this.closed) throw new LedgerError('unavailable', 'The ledger is closed');
    if (this.tooNew) throw new LedgerError('unavailable', this.tooNew);
  }
}

/**
 * A statement that may change the columns a prepared query answers with: CREATE, ALTER or DROP,
 * after any white space and comments (SQLite skips them too; a journal record may come from
 * another build).
 */
function schemaChange(sql: string): boolean {
  // One character of white space at a time, and comments matched without overlap: linear time.
  return /^(?:\s|--[^\n]*(?:\n|$)|\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\/)*(?:create|alter|drop)\b/i.test(sql);
}

function folderGone(dir: string): LedgerError {
  return new LedgerError('unavailable', `The ledger folder ${dir} was removed or replaced while the ledger was open; nothing more is written there from this process.`);
}
