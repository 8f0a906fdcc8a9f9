// The core API as the bench runner uses it in its own process, bundled by esbuild into
// bench/.build/harness.cjs (bench/run.mjs does that). Two things:
//  - openLedger, the public entry of the storage engine, for the store-level durable insert, and
//    ProgressService for in-process searches (the same call as search_logs without MCP);
//  - a bulk loader that fills a ledger fast: the engine's own write transaction with the exact
//    statements of SqliteProgressStore.insertEntry, many entries per transaction (one journal
//    record, one fsync), then a snapshot, so the servers under test start from a compacted ledger.

import { createLogger, silentLogger } from '../src/core/log';
import { ProgressService } from '../src/core/progress/progressService';
import { Summariser } from '../src/core/progress/summariser';
import type { NewEntry } from '../src/core/progress/types';
import { openLedger } from '../src/core/storage/openLedger';
import { SqliteEngine, type WriteTx } from '../src/core/storage/sqlite/engine';
import { SCHEMAS } from '../src/core/storage/sqlite/schemas';

const MIGRATIONS = SCHEMAS.flatMap((stream) => stream.migrations);
import { SqliteProgressStore } from '../src/core/storage/sqlite/progressRepo';
import { bm25, fullTextMatch, SEARCH_FUNCTIONS, titleTrigramDoc } from '../src/core/storage/sqlite/search';
import { fold } from '../src/core/text';
import { searchWords } from '../src/core/storage/postgres/search';

export { openLedger, createLogger, silentLogger, MIGRATIONS, fold, titleTrigramDoc, bm25, fullTextMatch, ProgressService, Summariser, searchWords };
export type { NewEntry };

export interface BulkLoader {
  /** Inserts the entries in one transaction (one journal record, one fdatasync). */
  insertMany(entries: readonly NewEntry[]): Promise<void>;
  count(): number;
  /** Writes a snapshot and restarts the journal, as the engine does after a burst of writes. */
  compact(): Promise<void>;
  stats(): { snapshotBytes: number; journalBytes: number; seq: number; generation: number };
  close(): Promise<void>;
}

/**
 * The floor under a full-text search: FTS4 reading the query's doclists and counting the hits,
 * without ranking, joins or listings. Opened on a ledger that a server or store also has open.
 */
export async function openFullTextFloor(file: string): Promise<{ count(text: string): number; close(): Promise<void> }> {
  const engine = await SqliteEngine.open({ file, schemas: SCHEMAS, checkpoint: false, watch: false, functions: SEARCH_FUNCTIONS });
  return {
    count(text) {
      const match = fullTextMatch(text);
      if (!match) return 0;
      return engine.read((tx) => Number(tx.get<{ n: number }>('SELECT count(*) AS n FROM log_entries_fts WHERE log_entries_fts MATCH ?', [match])?.n ?? 0));
    },
    close: () => engine.close(),
  };
}

/** Opens a ledger for bulk loading; snapshots only when asked (compact), not on its own. */
export async function openBulkLoader(file: string): Promise<BulkLoader> {
  const engine = await SqliteEngine.open({
    file,
    schemas: SCHEMAS,
    checkpoint: false,
    functions: SEARCH_FUNCTIONS,
  });
  return {
    async insertMany(entries) {
      await engine.write((tx: WriteTx) => {
        // A stand-in engine whose write() runs at once inside this transaction: insertEntry's
        // synchronous part (everything up to its first await) issues every statement here. A
        // failure is rethrown after the loop so that the whole transaction rolls back.
        let failure: unknown;
        let open = true;
        const inline = {
          write<T>(fn: (inner: WriteTx) => T): Promise<T> {
            // Indexing the store schedules for later is done by compact(), on the real engine.
            if (!open) return Promise.resolve(0 as T);
            try {
              return Promise.resolve(fn(tx));
            } catch (err) {
              failure ??= err;
              return Promise.resolve(undefined as T);
            }
          },
        } as unknown as SqliteEngine;
        const store = new SqliteProgressStore(inline);
        for (const entry of entries) void store.insertEntry(entry);
        open = false;
        if (failure !== undefined) throw failure;
      });
    },
    count() {
      return engine.read((tx) => Number(tx.get<{ n: number }>('SELECT count(*) AS n FROM log_entries')?.n ?? 0));
    },
    async compact() {
      // Index what was loaded (as a server does when idle), then write the snapshot.
      await new SqliteProgressStore(engine).flushIndex();
      await engine.checkpoint();
    },
    stats() {
      const s = engine.stats();
      return { snapshotBytes: s.snapshotBytes, journalBytes: s.journalBytes, seq: s.seq, generation: s.generation };
    },
    close: () => engine.close(),
  };
}
