// PostgreSQL as the shared stores' backend (sql/statements.ts): a store's body runs on one pooled
// connection, each statement awaited; a write is one transaction that the engine runs again from
// a fresh body on a deadlock or serialization failure.

import { POSTGRES } from '../sql/dialect';
import { runAsync, type AsyncTx, type SqlDb } from '../sql/statements';
import type { PgEngine } from './engine';

export function pgDb(engine: PgEngine): SqlDb {
  return {
    dialect: POSTGRES,
    read: async (body) => engine.read((tx) => runAsync(body(POSTGRES), tx as AsyncTx)),
    write: async (body, options) => engine.write((tx) => runAsync(body(POSTGRES), tx as AsyncTx), options),
  };
}
