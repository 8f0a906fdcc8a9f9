// The id a write carries from a ledger host's client down to the engine (AsyncLocalStorage): the
// engine records `<id>:<n>` for the n-th transaction of the call in `_write_results` with what it
// returned, in the same transaction, and a retried call (the client lost the host mid-call and
// asked the next one) gets that back instead of writing twice.

import { AsyncLocalStorage } from 'node:async_hooks';

export interface WriteContext {
  id: string;
  /** Transactions started so far by this call. */
  n: number;
  /** Who asked (a host's connection number): change events tell a client its own writes. */
  origin: number;
  /**
   * The call is sent for the first time (its client says so), so none of its writes can have been
   * applied before: the engine does not look its keys up in `_write_results`, only records them.
   */
  fresh?: boolean;
}

export const writeContext = new AsyncLocalStorage<WriteContext>();
