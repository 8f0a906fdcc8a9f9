// The PostgreSQL engine: a connection pool, transactions with retry on deadlock and serialization
// failure, schema migrations under an advisory lock per schema stream, and change events through
// LISTEN/NOTIFY. Knows SQL and connections; nothing of entries, tasks or MCP. Never prints the
// connection string's password: every message goes through redactUrl.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { loadVendored } from '../../vendor';
import { LedgerError, isLedgerError } from '../../errors';
import { silentLogger, type Logger } from '../../log';
import type { SchemaStream } from '../sql/schema';
import { redactUrl, urlPassword } from './url';
import { writeContext } from '../writeContext';

/** How long a write's result is kept for a retry of its call, and how many keyed writes pass between prunes (as the embedded engine). */
const WRITE_RESULT_TTL_MS = 10 * 60_000;
const PRUNE_EVERY = 500;

export type PgValue = string | number | boolean | null | Buffer;
export type PgRow = Record<string, unknown>;

export interface PgReadTx {
  get<T = PgRow>(sql: string, params?: PgValue[]): Promise<T | undefined>;
  all<T = PgRow>(sql: string, params?: PgValue[]): Promise<T[]>;
}

export interface PgWriteTx extends PgReadTx {
  run(sql: string, params?: PgValue[]): Promise<{ changes: number }>;
}

export interface PgEngineOptions {
  url: string;
  schemas: readonly SchemaStream[];
  logger?: Logger;
  /** LISTEN for other processes' writes and fire change events (views); off for servers. */
  watch?: boolean;
  /** Pool size (default 10). */
  maxConnections?: number;
}

export interface PgEngineChange {
  foreign: boolean;
  maintenance: boolean;
}

/** The NOTIFY channel every ledger process on one database shares. */
export const CHANGE_CHANNEL = 'agent_progress_changes';
const RETRY_CODES = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 8;

/** Turns `?` placeholders (outside quotes) into $1, $2... so statements read like the embedded engine's. */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let out = '';
  let quoted = false;
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  return out;
}

const converted = new Map<string, string>();
function prepare(sql: string): string {
  let text = converted.get(sql);
  if (text === undefined) {
    text = numberPlaceholders(sql);
    if (converted.size < 2000) converted.set(sql, text);
  }
  return text;
}

function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A pg error (or a connection error) as a LedgerError that names no secret. */
export function toLedgerError(err: unknown, url: string): LedgerError {
  if (isLedgerError(err)) return err;
  const code = pgCode(err);
  const message = redactUrl(err instanceof Error ? err.message : String(err));
  const password = urlPassword(url);
  const clean = password ? message.split(password).join('[redacted]') : message;
  if (code === '23505') return new LedgerError('conflict', `That record already exists (${clean}).`, { retryable: true });
  if (code === '28P01' || code === '28000') {
    return new LedgerError('permission_denied', `PostgreSQL refused the login for ${redactUrl(url)}: check the user and password in the connection string.`);
  }
  if (code === '42501') {
    return new LedgerError(
      'permission_denied',
      `PostgreSQL refused (${clean}) for ${redactUrl(url)}: the user needs to own the database, or have CREATE on its schema (PostgreSQL 15 no longer grants it on public).`,
    );
  }
  if (code === '3D000') return new LedgerError('unavailable', `The database in ${redactUrl(url)} does not exist: create it (createdb) or fix the connection string.`);
  if (code === undefined || code.startsWith('08') || code === '57P01' || code === '57P03' || /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|terminat/i.test(clean)) {
    return new LedgerError('unavailable', `Cannot reach PostgreSQL at ${redactUrl(url)} (${clean}). Check that the server is running and the connection string is right.`, {
      retryable: true,
    });
  }
  return new LedgerError('internal', `PostgreSQL error ${code}: ${clean}`);
}

function txOf(client: pg.PoolClient | pg.Client): PgWriteTx {
  return {
    get: async <T>(sql: string, params: PgValue[] = []) => (await client.query(prepare(sql), params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params: PgValue[] = []) => (await client.query(prepare(sql), params)).rows as T[],
    run: async (sql: string, params: PgValue[] = []) => ({ changes: (await client.query(prepare(sql), params)).rowCount ?? 0 }),
  };
}

/** A 64-bit advisory lock key per schema stream, stable across processes and versions. */
function lockKey(stream: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`agent-progress:${stream}`)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, h).toString();
}

export class PgEngine {
  readonly location: string;
  readonly notices: string[] = [];
  /** This process's identity in change notifications, to tell its own writes from others'. */
  private readonly instance = randomUUID();
  private readonly listeners = new Set<(change: PgEngineChange) => void>();
  private readonly logger: Logger;
  private listener: pg.Client | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  private closed = false;
  private writes = 0;
  /** Writes recorded under a call id since the last prune of _write_results. */
  private keyedWrites = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly options: PgEngineOptions,
  ) {
    this.location = redactUrl(options.url);
    this.logger = options.logger ?? silentLogger;
  }

  static async open(options: PgEngineOptions): Promise<PgEngine> {
    options.logger?.addSecret(urlPassword(options.url));
    const pool = new (loadVendored<typeof pg>('pg').Pool)({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
    });
    // No JIT compilation: it pays off for long analytic queries, and ours are short. PostgreSQL
    // compiles a query whose estimated cost passes jit_above_cost, and a sequential scan in a
    // transaction that forbids them (read with indexScans) is costed at 10^10 however small its
    // table: a 1 ms query then spends tens of milliseconds being compiled, every time. Sent as the
    // connection's first statement, ahead of whatever it runs next.
    pool.on('connect', (client) => {
      client.query('SET jit = off').catch(() => undefined);
    });
    // An idle client's error (server restart) must not crash the process: the pool replaces it.
    pool.on('error', (err) => options.logger?.warn(`PostgreSQL connection lost: ${redactUrl(err.message)}`));
    const engine = new PgEngine(pool, options);
    try {
      await engine.migrate();
      if (options.watch) await engine.listen();
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw toLedgerError(err, options.url);
    }
    return engine;
  }

  /**
   * Applies each stream's missing migrations, each stream in one transaction under its own
   * advisory lock: servers starting together wait for the first, then find nothing to do.
   */
  private async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [lockKey('meta')]);
      try {
        await client.query('CREATE TABLE IF NOT EXISTS ap_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [lockKey('meta')]);
      }
      for (const stream of this.options.schemas) {
        await client.query('BEGIN');
        try {
          await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey(stream.name)]);
          const row = (await client.query<{ value: string }>('SELECT value FROM ap_meta WHERE key = $1', [`schema_version.${stream.name}`])).rows[0];
          const current = row ? Number(row.value) : 0;
          const latest = stream.migrations.reduce((m, x) => Math.max(m, x.version), 0);
          if (current > latest) {
            this.notices.push(
              `The ${stream.name} tables in ${this.location} were written by a newer Agent Progress (schema ${current}, this build knows ${latest}); update the extension or server.`,
            );
          }
          for (const migration of stream.migrations) {
            if (migration.version <= current) continue;
            for (const statement of migration.statements) await client.query(statement);
            await client.query('INSERT INTO ap_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
              `schema_version.${stream.name}`,
              String(migration.version),
            ]);
            this.logger.info(`Migrated ${stream.name} schema to version ${migration.version}: ${migration.description}`);
          }
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }
    } finally {
      client.release();
    }
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new (loadVendored<typeof pg>('pg').Client)({ connectionString: this.options.url });
    client.on('error', (err) => {
      this.logger.warn(`Lost the PostgreSQL change feed (${redactUrl(err.message)}); reconnecting`);
      this.relisten();
    });
    client.on('end', () => this.relisten());
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGE_CHANNEL) return;
      let payload: { i?: string; m?: boolean } = {};
      try {
        payload = JSON.parse(msg.payload ?? '{}') as typeof payload;
      } catch {
        // someone else's notification on our channel: treat it as a foreign change
      }
      if (payload.i === this.instance) return; // our own write, announced at commit
      this.emit({ foreign: true, maintenance: payload.m === true });
    });
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    this.listener = client;
  }

  private relisten(): void {
    if (this.closed || this.listenRetry) return;
    const dead = this.listener;
    this.listener = undefined;
    dead?.removeAllListeners();
    dead?.on('error', () => undefined);
    void dead?.end().catch(() => undefined);
    this.listenRetry = setTimeout(() => {
      this.listenRetry = undefined;
      this.listen().then(
        // Writes missed while disconnected: tell the views to read again.
        () => this.emit({ foreign: true, maintenance: false }),
        () => this.relisten(),
      );
    }, 1000);
    this.listenRetry.unref();
  }

  private emit(change: PgEngineChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (err) {
        this.logger.warn(`A ledger change listener failed: ${(err as Error).message}`);
      }
    }
  }

  onDidChange(listener: (change: PgEngineChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs fn on one connection. With `indexScans`, in a read-only transaction that forbids
   * sequential scans: a full-text condition costs the planner nothing per row, but checking it on
   * a row reads the row's search vector out of line, so a scan of 100k rows costs seconds where
   * the GIN index answers in milliseconds (progressRepo.ts searchEntries). With `snapshot`, in a
   * read-only REPEATABLE READ transaction: every statement of fn sees the same committed entries
   * (the memory index reads the whole ledger in batches, memoryIndex.ts).
   */
  async read<T>(fn: (tx: PgReadTx) => Promise<T>, options: { indexScans?: boolean; snapshot?: boolean } = {}): Promise<T> {
    this.assertOpen();
    const client = await this.connect();
    let broken = false;
    try {
      if (!options.indexScans && !options.snapshot) return await fn(txOf(client));
      await client.query(options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN READ ONLY');
      try {
        if (options.indexScans) await client.query('SET LOCAL enable_seqscan = off');
        const result = await fn(txOf(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      }
    } catch (err) {
      throw toLedgerError(err, this.options.url);
    } finally {
      client.release(broken);
    }
  }

  /**
   * Runs fn in one transaction (READ COMMITTED; row locks where the stores take them), retried
   * from the start on a deadlock or serialization failure, and announces the change at commit.
   */
  async write<T>(fn: (tx: PgWriteTx) => Promise<T>, options: { maintenance?: boolean } = {}): Promise<T> {
    this.assertOpen();
    // A write of a ledger host's call (writeContext) records its result under the call's id in
    // the same transaction; the call retried after its host died is answered from it instead of
    // applied twice (the embedded engine's _write_results, the same table here).
    const ctx = writeContext.getStore();
    const key = ctx ? `${ctx.id}:${ctx.n++}` : undefined;
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const tx = txOf(client);
        const done = key && !ctx?.fresh ? await tx.get<{ result: string }>('SELECT result FROM _write_results WHERE id = ?', [key]) : undefined;
        if (done) {
          await client.query('COMMIT');
          return (JSON.parse(done.result) as { v?: T }).v as T;
        }
        const result = await fn(tx);
        if (key) {
          const now = Date.now();
          await tx.run('INSERT INTO _write_results (id, result, at) VALUES (?, ?, ?)', [key, JSON.stringify({ v: result }), now]);
          if (++this.keyedWrites >= PRUNE_EVERY) {
            this.keyedWrites = 0;
            await tx.run('DELETE FROM _write_results WHERE at < ?', [now - WRITE_RESULT_TTL_MS]);
          }
        }
        await client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ i: this.instance, m: options.maintenance === true })]);
        await client.query('COMMIT');
        if (!options.maintenance) this.writes++;
        this.emit({ foreign: false, maintenance: options.maintenance === true });
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        if (RETRY_CODES.has(pgCode(err) ?? '') && attempt < MAX_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
          continue;
        }
        throw toLedgerError(err, this.options.url);
      } finally {
        client.release(broken);
      }
    }
  }

  /** Writes committed by this process (data changes, upkeep not counted). */
  get changes(): number {
    return this.writes;
  }

  private assertOpen(): void {
    if (this.closed) throw new LedgerError('unavailable', 'The ledger is closed.');
  }

  /** A connection of the pool; a server that cannot be reached is a LedgerError saying so. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw toLedgerError(err, this.options.url);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.listenRetry) clearTimeout(this.listenRetry);
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      listener.removeAllListeners();
      listener.on('error', () => undefined);
      await listener.end().catch(() => undefined);
    }
    this.listeners.clear();
    await this.pool.end().catch(() => undefined);
  }
}
