// The store interface for moving a whole ledger in and out (export, import) and for retention
// (archive or delete old progress entries). Backend-neutral: records are the document's
// (core/transfer/document.ts), not rows; each backend maps its own tables to them.

import type { ImportCounts, LedgerData } from '../transfer/collections';

export interface RetentionScope {
  /** Entries created strictly before this ISO time. */
  before: string;
  /** Only this project's entries (default: every project). */
  projectId?: string;
}

export interface TransferStore {
  /**
   * Every collection of the ledger, in one consistent read. With `entriesBefore`, only the
   * progress entries that a retention run with that scope would remove, and their projects.
   */
  exportData(options?: { entriesBefore?: RetentionScope }): Promise<LedgerData>;
  /**
   * Adds every record of `data` in one transaction: projects already present are kept (merged);
   * any other record whose key is already in the ledger (or twice in `data`) refuses the whole
   * import with a conflict error naming it, and nothing is written.
   */
  importData(data: LedgerData): Promise<ImportCounts>;
  /** How many (live, not archived) entries a retention run with this scope would remove. */
  countEntriesBefore(scope: RetentionScope): Promise<number>;
  /** Moves those entries out of every default read (search, context, views), recoverably. Returns how many. */
  archiveEntriesBefore(scope: RetentionScope, archivedAt: string): Promise<number>;
  /** Removes those entries for good. Returns how many. */
  deleteEntriesBefore(scope: RetentionScope): Promise<number>;
  /** How many entries are archived (of one project, or all). */
  countArchived(projectId?: string): Promise<number>;
  /** Brings archived entries back into the log (of one project, or all). Returns how many. */
  restoreArchived(projectId?: string): Promise<number>;
}
