// What differs in SQL between the embedded engine (SQLite through sql.js) and PostgreSQL, for the
// stores written once over both (statements.ts). Everything else in a statement is common SQL.

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * The column that orders a table's rows as they were inserted, in tables that have no `n`
   * column on the embedded engine (queue, progress entries): its rowid; PostgreSQL's identity `n`.
   */
  readonly rowOrder: string;
  /** `INSERT INTO <rest>` that does nothing when a unique key is taken. */
  insertOrIgnore(rest: string): string;
  /** `INSERT INTO <rest>` that replaces the row holding the same `key` with `columns`. */
  insertOrReplace(rest: string, key: readonly string[], columns: readonly string[]): string;
  /**
   * Appended to a SELECT of rows a write decides on: other transactions wait for this one. Empty
   * on the embedded engine, whose writes run one at a time under its lock.
   */
  readonly forUpdate: string;
  /** Like forUpdate, but readers of the row with FOR SHARE do not wait for each other. */
  readonly forShare: string;
  /** The queue head: rows another transaction has locked are skipped, not waited for. */
  readonly skipLocked: string;
  /** `a = b` where both may be NULL (then equal). */
  same(a: string, b: string): string;
  /** A text parameter where PostgreSQL cannot infer a placeholder's type (compared to a literal). */
  readonly textParam: string;
  /** A member of a JSON object kept in a text column, as text. */
  jsonText(column: string, key: string): string;
  /** Appended to a text ORDER BY term: byte order, as SQLite compares text. */
  readonly byteOrder: string;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  rowOrder: 'rowid',
  insertOrIgnore: (rest) => `INSERT OR IGNORE INTO ${rest}`,
  insertOrReplace: (rest) => `INSERT OR REPLACE INTO ${rest}`,
  forUpdate: '',
  forShare: '',
  skipLocked: '',
  same: (a, b) => `${a} IS ${b}`,
  textParam: '?',
  jsonText: (column, key) => `json_extract(${column}, '$.${key}')`,
  byteOrder: '',
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  rowOrder: 'n',
  insertOrIgnore: (rest) => `INSERT INTO ${rest} ON CONFLICT DO NOTHING`,
  insertOrReplace: (rest, key, columns) =>
    `INSERT INTO ${rest} ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${columns
      .filter((c) => !key.includes(c))
      .map((c) => `${c} = excluded.${c}`)
      .join(', ')}`,
  forUpdate: ' FOR UPDATE',
  forShare: ' FOR SHARE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  same: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  textParam: '?::text',
  jsonText: (column, key) => `(${column}::jsonb ->> '${key}')`,
  byteOrder: ' COLLATE "C"',
};
