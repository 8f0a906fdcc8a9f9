// Opens the ledger behind the store interface: the embedded sql.js engine at a file path, or
// PostgreSQL when a connection string is given (teams whose agents run on several machines).

import type { Logger } from '../log';
import { SqliteEngine, type CheckpointPolicy } from './sqlite/engine';
import { SCHEMAS } from './sqlite/schemas';
import { SqliteProgressStore } from './sqlite/progressRepo';
import { sqliteDb } from './sqlite/sqlDb';
import { sqlStores } from './sql/stores';
import { writeSqliteEntry } from './sqlite/entryWriter';
import { SEARCH_FUNCTIONS } from './sqlite/search';
import type { Ledger, LedgerChange, LedgerStats } from './store';
import type * as PostgresModule from './postgres/openPostgresLedger';

export interface OpenLedgerOptions {
  /** Absolute path of the ledger file; companion files sit beside it. */
  file: string;
  logger?: Logger;
  /** Watch for other processes' writes and fire onDidChange (views, a queue server's reaper). */
  watch?: boolean;
  /** false in processes that only read and must keep memory low (the extension host). */
  checkpoint?: Partial<CheckpointPolicy> | false;
  lockTimeoutMs?: number;
  /** A PostgreSQL connection string: the ledger lives there instead of in `file`. */
  databaseUrl?: string;
  /** The identity its folder must keep (a ledger host): never created, nothing written once it is gone or replaced. */
  folder?: string;
  /** Keep the inter-process lock this long after a write for the next one (a ledger host; see EngineOptions). */
  lockLingerMs?: number;
  lockMaxHoldMs?: number;
  /** Called once a snapshot is written, with its size (EngineOptions). */
  onSnapshot?: (bytes: number) => void;
  /**
   * PostgreSQL: answer ranked searches from an index in memory once `progress.prepareSearch()`
   * built it (postgres/memoryIndex.ts), for a process that serves many clients (`--http`).
   */
  memoryIndex?: boolean;
}

export async function openLedger(options: OpenLedgerOptions): Promise<Ledger> {
  if (options.databaseUrl) {
    // The PostgreSQL driver loads only for a PostgreSQL ledger.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy: kept unevaluated in the bundles until used
    const { openPostgresLedger } = require('./postgres/openPostgresLedger') as typeof PostgresModule;
    return openPostgresLedger({
      url: options.databaseUrl,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.watch !== undefined ? { watch: options.watch } : {}),
      ...(options.memoryIndex ? { memoryIndex: true } : {}),
    });
  }
  const engine = await SqliteEngine.open({
    file: options.file,
    schemas: SCHEMAS,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
    ...(options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {}),
    ...(options.lockTimeoutMs !== undefined ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
    ...(options.folder !== undefined ? { folder: options.folder } : {}),
    ...(options.lockLingerMs !== undefined ? { lockLingerMs: options.lockLingerMs } : {}),
    ...(options.lockMaxHoldMs !== undefined ? { lockMaxHoldMs: options.lockMaxHoldMs } : {}),
    ...(options.onSnapshot ? { onSnapshot: options.onSnapshot } : {}),
    functions: SEARCH_FUNCTIONS,
  });
  const progress = new SqliteProgressStore(engine);
  const db = sqliteDb(engine);
  return {
    location: options.file,
    progress,
    ...sqlStores(db, writeSqliteEntry),
    get notices() {
      return engine.notices;
    },
    standingNotices: () => engine.standingNotices(),
    onDidChange: (listener: (change: LedgerChange) => void) => engine.onDidChange((c) => listener({ foreign: c.foreign, maintenance: c.maintenance })),
    refresh: async () => {
      engine.refresh();
    },
    stats: async (): Promise<LedgerStats> => ({ backend: 'sqlite', location: options.file, ...engine.stats() }),
    compact: async () => {
      await engine.checkpoint();
    },
    recoverSetAside: () => engine.recoverSetAside(),
    settle: () => progress.flushIndex(),
    close: () => engine.close(),
  };
}
