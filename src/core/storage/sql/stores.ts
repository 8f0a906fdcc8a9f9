// The stores written once for both backends (queue, workflow, review, transfer), built over one
// backend's SqlDb: a new written-once store is added here and both ledgers have it.

import type { Ledger } from '../store';
import { SqlQueueStore } from './queueRepo';
import { SqlReviewStore } from './reviewRepo';
import type { SqlDb } from './statements';
import { SqlTransferStore, type EntryWriter } from './transferRepo';
import { SqlWorkflowStore } from './workflowRepo';

/** writeEntry: how this backend stores an imported progress entry (progress is written per backend). */
export function sqlStores(db: SqlDb, writeEntry: EntryWriter): Pick<Ledger, 'queue' | 'workflow' | 'review' | 'transfer'> {
  return {
    queue: new SqlQueueStore(db),
    workflow: new SqlWorkflowStore(db),
    review: new SqlReviewStore(db),
    transfer: new SqlTransferStore(db, writeEntry),
  };
}
