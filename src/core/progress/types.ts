// Domain types of the progress log (Agent Progress Tracker specification, README "Tools"), as every layer sees them.

export type SummarySource = 'sampling' | 'openai' | 'language-model' | 'fallback';

export interface LogEntry {
  id: string;
  projectId: string;
  title: string;
  content: string;
  summary: string | null;
  /** Who wrote the cached summary; null while none is cached. */
  summarySource: SummarySource | null;
  createdAt: string;
  tags: string[];
  agentId: string | null;
}

/** An entry without its content or summary, as listings and search_logs show it. */
export interface EntryListing {
  id: string;
  projectId: string;
  title: string;
  createdAt: string;
  tags: string[];
  agentId: string | null;
  hasSummary: boolean;
  /** For full-text results: the words around the match, from title or content. */
  snippet?: string;
}

export interface NewEntry {
  id: string;
  projectId: string;
  title: string;
  content: string;
  createdAt: string;
  tags: string[];
  agentId: string | null;
}

/**
 * What a session digest entry covered, kept apart from the entry (digest_marks) so that archiving or
 * deleting the entry does not make the session part look undigested.
 */
export interface DigestMark {
  /** The session's event count the part covered up to (exclusive). */
  coveredTo: number;
  /** The latest event time the part covered (follow-ups of replayed transcripts start after it). */
  coveredUntil: string | null;
}

export interface EntryQuery {
  /** The project to search; undefined searches every project (the editor's search, not the tools). */
  projectId: string | undefined;
  /** Case-insensitive substring of the title. */
  query?: string;
  /** Full-text terms over title and content; results ranked by relevance. */
  text?: string;
  /** Entries must carry every one of these tags (case-insensitive). */
  tags?: string[];
  /** Inclusive bounds, ISO 8601 in UTC. */
  startDate?: string;
  endDate?: string;
  limit: number;
  offset?: number;
}

export interface EntryPage {
  entries: EntryListing[];
  /** Matching entries before limit and offset. */
  total: number;
}

export interface ProjectInfo {
  projectId: string;
  name: string;
  createdAt: string;
  entryCount: number;
  lastEntryAt: string | null;
}

export interface TagCount {
  tag: string;
  count: number;
}
