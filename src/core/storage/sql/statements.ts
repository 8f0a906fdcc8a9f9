// Store code written once for both backends. A store method's transaction is a generator that
// yields the statements it wants run (`yield* get(...)`) and is handed each one's answer. The
// embedded engine drives it synchronously inside its journaled write, under the inter-process
// lock (runSync); PostgreSQL awaits each statement on a pooled connection (runAsync). What differs
// in the SQL itself comes from the backend's Dialect (dialect.ts).

import type { Dialect } from './dialect';

export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, unknown>;

export interface Statement {
  op: 'get' | 'all' | 'run';
  sql: string;
  params: SqlValue[];
}

/** A transaction's body, or a part of one: yields statements, returns T. */
export type Sql<T> = Generator<Statement, T, unknown>;

/** The first row of a query. */
export function* get<T = Row>(sql: string, params: SqlValue[] = []): Sql<T | undefined> {
  return (yield { op: 'get', sql, params }) as T | undefined;
}

/** Every row of a query. */
export function* all<T = Row>(sql: string, params: SqlValue[] = []): Sql<T[]> {
  return (yield { op: 'all', sql, params }) as T[];
}

/** A statement that changes data (journaled on the embedded engine: deterministic given its params). */
export function* run(sql: string, params: SqlValue[] = []): Sql<{ changes: number }> {
  return (yield { op: 'run', sql, params }) as { changes: number };
}

/** The engine's transaction as the runners see it: `run` only in a write. */
export interface SyncTx {
  get<T>(sql: string, params?: SqlValue[]): T | undefined;
  all<T>(sql: string, params?: SqlValue[]): T[];
  run?(sql: string, params?: SqlValue[]): { changes: number };
}

export interface AsyncTx {
  get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlValue[]): Promise<T[]>;
  run?(sql: string, params?: SqlValue[]): Promise<{ changes: number }>;
}

/** Hands a statement to the transaction: its answer, or (PostgreSQL) the promise of it. */
function ask(s: Statement, tx: SyncTx | AsyncTx): unknown {
  if (s.op === 'get') return tx.get(s.sql, s.params);
  if (s.op === 'all') return tx.all(s.sql, s.params);
  if (!tx.run) throw new Error(`A read transaction cannot change data: ${s.sql}`);
  return tx.run(s.sql, s.params);
}

/** Runs a body to its end with each statement answered at once (the embedded engine). */
export function runSync<T>(body: Sql<T>, tx: SyncTx): T {
  let step = body.next();
  while (!step.done) {
    const s = step.value;
    let answer: unknown;
    try {
      answer = ask(s, tx);
    } catch (err) {
      step = body.throw(err);
      continue;
    }
    step = body.next(answer);
  }
  return step.value;
}

/** Runs a body to its end, awaiting each statement (PostgreSQL). */
export async function runAsync<T>(body: Sql<T>, tx: AsyncTx): Promise<T> {
  let step = body.next();
  while (!step.done) {
    const s = step.value;
    let answer: unknown;
    try {
      answer = await ask(s, tx);
    } catch (err) {
      step = body.throw(err);
      continue;
    }
    step = body.next(answer);
  }
  return step.value;
}

/**
 * A backend as the shared stores see it. `write` runs its body as one transaction (the embedded
 * engine's journaled write; a PostgreSQL transaction, run again from the start on a deadlock or
 * serialization failure, so a body must do nothing but yield statements and compute).
 */
export interface SqlDb {
  readonly dialect: Dialect;
  read<T>(body: (d: Dialect) => Sql<T>): Promise<T>;
  write<T>(body: (d: Dialect) => Sql<T>, options?: { maintenance?: boolean }): Promise<T>;
}
