// Tables written once for both engines: a column list in the embedded engine's SQL, rendered in
// a dialect's (PostgreSQL text in byte order, DOUBLE PRECISION for REAL, an identity `n`). The
// streams under schemas/ use it; streams whose SQL really differs (full-text search, triggers,
// the queue's rowid order) stay per engine in sqlite/schemas/ and postgres/schemas.ts.

import type { Dialect } from './dialect';

export interface Migration {
  version: number;
  description: string;
  statements: readonly string[];
}

/**
 * The migrations of one part of the schema (a toolset), versioned on their own (the embedded
 * engine's _meta `schema_version.<name>`, PostgreSQL's ap_meta): toolsets evolve independently,
 * and a ledger that a newer build gave extra parts still opens in an older one.
 */
export interface SchemaStream {
  name: string;
  migrations: readonly Migration[];
}

/**
 * `CREATE TABLE name (columns)` in the dialect's SQL. Each column is `name TYPE constraints`
 * (or a table constraint such as `PRIMARY KEY (a, b)`), with SQLite's types: TEXT, INTEGER, REAL.
 * withoutRowid: the table is keyed by its primary key alone on the embedded engine.
 */
export function createTable(dialect: Dialect, table: string, columns: readonly string[], options: { withoutRowid?: boolean } = {}): string {
  const rendered = columns.map((column) => {
    const [name, type, ...rest] = column.split(' ');
    if (name === 'PRIMARY' || name === 'UNIQUE' || type === undefined) return column;
    return [name, dialect.columnType(type), ...rest].join(' ');
  });
  return `CREATE TABLE ${table} (\n          ${rendered.join(',\n          ')}\n        )${options.withoutRowid ? dialect.withoutRowid : ''}`;
}
