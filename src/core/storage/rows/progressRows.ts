// The progress log's rows as both backends read them: column lists, row types, and their mapping
// to the core's types (tags kept as JSON text; `has_summary` a 0/1 integer on the embedded engine,
// a boolean on PostgreSQL).

import type { EntryListing, LogEntry, SummarySource } from '../../progress/types';

export interface EntryRow {
  id: string;
  project_id: string;
  title: string;
  content: string;
  summary: string | null;
  summary_source: string | null;
  created_at: string;
  tags: string;
  agent_id: string | null;
}

export interface ListingRow {
  id: string;
  project_id: string;
  title: string;
  created_at: string;
  tags: string;
  agent_id: string | null;
  has_summary: number | boolean;
  snippet?: string | null;
}

export const ENTRY_COLUMNS = 'id, project_id, title, content, summary, summary_source, created_at, tags, agent_id';
export const LISTING_COLUMNS = 'e.id, e.project_id, e.title, e.created_at, e.tags, e.agent_id, e.summary IS NOT NULL AS has_summary';

function parseTags(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

export function toEntry(row: EntryRow): LogEntry {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    content: row.content,
    summary: row.summary,
    summarySource: (row.summary_source as SummarySource | null) ?? null,
    createdAt: row.created_at,
    tags: parseTags(row.tags),
    agentId: row.agent_id,
  };
}

export function toListing(row: ListingRow): EntryListing {
  const listing: EntryListing = {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    createdAt: row.created_at,
    tags: parseTags(row.tags),
    agentId: row.agent_id,
    hasSummary: row.has_summary === 1 || row.has_summary === true,
  };
  if (typeof row.snippet === 'string') listing.snippet = row.snippet.replace(/\s+/g, ' ').trim();
  return listing;
}

/** A date bound as text that sorts like the ISO times stored (years beyond 9999 or before 0). */
export function textBound(iso: string): string {
  if (iso.startsWith('+')) return '9999-12-31T23:59:59.999Z';
  if (iso.startsWith('-')) return '0000-01-01T00:00:00.000Z';
  return iso;
}
