// The embedded engine as the shared stores' backend (sql/statements.ts): a store's body runs to
// its end synchronously, inside engine.write's transaction under the inter-process lock, so its
// statements are journaled as one record exactly as a hand-written write's were.

import { SQLITE } from '../sql/dialect';
import { runSync, type SqlDb } from '../sql/statements';
import type { SqliteEngine } from './engine';

export function sqliteDb(engine: SqliteEngine): SqlDb {
  return {
    dialect: SQLITE,
    read: async (body) => engine.read((tx) => runSync(body(SQLITE), tx)),
    write: async (body, options) => engine.write((tx) => runSync(body(SQLITE), tx), options),
  };
}
