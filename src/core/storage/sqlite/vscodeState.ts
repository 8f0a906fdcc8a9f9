// Reads one value from a VS Code state database (state.vscdb: SQLite, table ItemTable(key, value)),
// read-only: the file is loaded into memory with sql.js and never written. Used for the chat
// session index (titles). All SQL lives under core/storage.

import { readRegularFile } from '../../regularFile';
import { loadSqlJs } from './sqlJs';

/** state.vscdb is a few MB; a larger one (or a device behind a symlink) is not loaded into memory. */
const MAX_STATE_BYTES = 256 << 20;

/** The value stored under `key`, or undefined when the file, the table or the key is missing. */
export async function readStateValue(file: string, key: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(file, { maxBytes: MAX_STATE_BYTES, what: 'The VS Code state database' });
  } catch {
    return undefined;
  }
  const SQL = await loadSqlJs();
  let db;
  try {
    db = new SQL.Database(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
  try {
    const stmt = db.prepare('SELECT value FROM ItemTable WHERE key = ?');
    try {
      stmt.bind([key]);
      if (!stmt.step()) return undefined;
      const value = stmt.get()[0];
      if (typeof value === 'string') return value;
      if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
      return undefined;
    } finally {
      stmt.free();
    }
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}
