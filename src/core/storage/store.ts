// The async store interface every core service talks to. The embedded sql.js engine (sqlite/)
// and PostgreSQL (postgres/) implement it, so nothing here assumes synchronous SQL, a single
// file, or SQL at all.

import type { DigestMark, EntryPage, EntryQuery, LogEntry, NewEntry, ProjectInfo, SummarySource, TagCount } from '../progress/types';
import type { QueueStore } from './queueStore';
import type { ReviewStore } from './reviewStore';
import type { TransferStore } from './transferStore';
import type { WorkflowStore } from './workflowStore';

export interface ProgressStore {
  /** Stores an entry, creating its project on first use. Throws conflict if the id is taken. */
  insertEntry(entry: NewEntry): Promise<void>;
  /**
   * Inserts a session digest entry and its mark in one transaction. False, writing nothing, when
   * the mark or the entry id exists: that part was written before (even if archived or deleted since).
   */
  insertDigest(entry: NewEntry, mark: DigestMark): Promise<boolean>;
  /** The mark of a digest entry id, kept when the entry is archived or deleted. */
  getDigestMark(entryId: string): Promise<DigestMark | undefined>;
  getEntry(projectId: string, id: string): Promise<LogEntry | undefined>;
  /** An entry by id in any project (ids are unique across the ledger). */
  findEntry(id: string): Promise<LogEntry | undefined>;
  /** Caches a summary unless one is already cached; returns the one that is cached afterwards. */
  saveSummary(projectId: string, id: string, summary: string, source: SummarySource): Promise<{ summary: string; source: SummarySource }>;
  searchEntries(query: EntryQuery): Promise<EntryPage>;
  /** Finishes indexing entries that wait for it (done by itself when idle and before a search). */
  flushIndex(): Promise<void>;
  /**
   * Builds what ranked search reads in memory, so that the first search does not wait for it (the
   * embedded engine's term index, which the ledger host builds once the ledger is open; a
   * PostgreSQL store's index in memory, which a team server builds once it listens).
   */
  prepareSearch(): Promise<void>;
  /** A store that keeps ranked search's index in memory (PostgreSQL in a team server): what it holds and has answered. */
  memoryIndexStats?(): MemoryIndexStats | undefined;
  listProjects(): Promise<ProjectInfo[]>;
  listTags(projectId: string): Promise<TagCount[]>;
}

export interface MemoryIndexStats {
  /** Entries held (0 before the first build ends). */
  entries: number;
  /** Searches answered from it. */
  answers: number;
  /** Lexemes frequent enough for their pairs to be kept (phrases of two of them are read from those). */
  frequent: number;
  building: boolean;
  /** Builds ended (the first at start; another after entries were deleted or changed, or too many written since). */
  builds: number;
}

export interface LedgerChange {
  /** true when another process wrote the ledger. */
  foreign: boolean;
  /** true when only upkeep was written (index batches): nothing a view shows changed. */
  maintenance: boolean;
}

export interface LedgerStats {
  backend: 'sqlite' | 'postgres';
  location: string;
  generation: number;
  seq: number;
  /** Data changes ever written (upkeep such as indexing not counted); the same in every process once caught up. */
  changes: number;
  snapshotBytes: number;
  journalBytes: number;
}

/** What Ledger.recoverSetAside did with each set-aside journal tail. */
export interface TailRecovery {
  journal: string;
  files: {
    file: string;
    /** Intact records found in it. */
    records: number;
    /** Records written to the ledger again. */
    applied: number;
    /** Records that no longer apply, with why. */
    skipped: { time: string; reason: string }[];
    /** Bytes that were no part of an intact record (the damage). */
    damagedBytes: number;
    /** Where the file is now. */
    keptAs: string;
    refused?: string;
  }[];
}

export interface Ledger {
  /** Where the ledger lives (a file path for the embedded engine). */
  readonly location: string;
  readonly progress: ProgressStore;
  readonly queue: QueueStore;
  readonly workflow: WorkflowStore;
  readonly review: ReviewStore;
  /** Export, import and retention of the whole ledger. */
  readonly transfer: TransferStore;
  /** Things a person should be told, such as an unreadable file moved aside. */
  readonly notices: readonly string[];
  /**
   * Those of `notices` that stay true until someone acts (a damaged journal byte hiding writes):
   * a ledger host tells them to every client, and the other notices once.
   */
  standingNotices?(): readonly string[];
  onDidChange(listener: (change: LedgerChange) => void): () => void;
  /** Applies other processes' writes now instead of waiting for the watcher. */
  refresh(): Promise<void>;
  stats(): Promise<LedgerStats>;
  /** Writes a snapshot now (the engine also does this on its own). */
  compact(): Promise<void>;
  /**
   * Writes again the intact records of journal tails set aside as damaged (the embedded engine);
   * a PostgreSQL ledger has no journal and refuses.
   */
  recoverSetAside(): Promise<TailRecovery>;
  /** Finishes background upkeep (indexing) now instead of when idle. */
  settle(): Promise<void>;
  close(): Promise<void>;
}
