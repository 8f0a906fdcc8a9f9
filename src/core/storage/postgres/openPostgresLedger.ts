// Opens the ledger on PostgreSQL behind the same Ledger interface as the embedded engine: the
// stores of every toolset over one connection pool, change events through LISTEN/NOTIFY. The
// location it reports is the connection string with its password redacted.

import { LedgerError } from '../../errors';
import type { Logger } from '../../log';
import type { Ledger, LedgerChange, LedgerStats } from '../store';
import { PgEngine } from './engine';
import { PgProgressStore } from './progressRepo';
import { pgDb } from './sqlDb';
import { sqlStores } from '../sql/stores';
import { PG_SCHEMAS } from './schemas';
import { writePgEntry } from './entryWriter';

export interface OpenPostgresOptions {
  url: string;
  logger?: Logger;
  /** LISTEN for other processes' writes (views); off for servers, which do not need them. */
  watch?: boolean;
  maxConnections?: number;
  /** Ranked search from an index in memory, built by progress.prepareSearch() (PgStoreOptions). */
  memoryIndex?: boolean;
}

export async function openPostgresLedger(options: OpenPostgresOptions): Promise<Ledger> {
  const engine = await PgEngine.open({
    url: options.url,
    schemas: PG_SCHEMAS,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
  });
  const progress = new PgProgressStore(engine, undefined, { memoryIndex: options.memoryIndex === true });
  try {
    await progress.reindexWords();
  } catch (err) {
    await engine.close();
    throw err;
  }
  // Entries written without phrase words since the last pass (before they existed, or by an
  // older build) are looked over in the background (seconds at 100k entries, one row read when
  // there are none, never in the way of opening); close waits for the batch under way.
  let closing = false;
  const phraseWords = progress.markPhraseWords({ stopped: () => closing }).catch((err: unknown) => {
    if (!closing) options.logger?.warn(`Could not look over older entries for phrase search: ${(err as Error).message}`);
    return 0;
  });
  progress.phraseWordsPass = phraseWords;
  const db = pgDb(engine);
  return {
    location: engine.location,
    progress,
    ...sqlStores(db, writePgEntry),
    get notices() {
      return engine.notices;
    },
    onDidChange: (listener: (change: LedgerChange) => void) => engine.onDidChange((c) => listener({ foreign: c.foreign, maintenance: c.maintenance })),
    // Every read goes to the server: there is nothing to catch up on.
    refresh: async () => undefined,
    stats: async (): Promise<LedgerStats> => ({
      backend: 'postgres',
      location: engine.location,
      generation: 0,
      seq: 0,
      changes: engine.changes,
      snapshotBytes: 0,
      journalBytes: 0,
    }),
    // PostgreSQL keeps its own files: VACUUM and checkpoints are the server's job.
    compact: async () => undefined,
    recoverSetAside: () =>
      Promise.reject(
        new LedgerError('invalid_argument', 'This ledger is on PostgreSQL: it has no journal, so nothing is ever set aside to recover. Recovery applies to a ledger file.'),
      ),
    settle: () => progress.flushIndex(),
    close: async () => {
      closing = true;
      await phraseWords;
      await engine.close();
    },
  };
}
