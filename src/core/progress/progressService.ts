// The progress log's rules (Agent Progress Tracker specification, README "Tools"): validation, project auto-creation, ids,
// search filters, and summaries generated once and cached. Every transport calls this; none
// talks to the store directly.

import { nanoid } from 'nanoid';
import { LedgerError, notFound } from '../errors';
import type { Logger } from '../log';
import type { ProgressStore } from '../storage/store';
import { fold } from '../text';
import { parseInput, parseIsoDate } from '../validation';
import { getContextInput, LIMITS, logProgressInput, searchLogsInput, type GetContextOutput, type LogProgressInput, type LogProgressOutput, type SearchLogsOutput } from './schemas';
import type { SummaryProvider, Summariser } from './summariser';
import type { DigestMark, EntryListing, LogEntry, NewEntry, ProjectInfo, SummarySource, TagCount } from './types';

/** 12 characters of nanoid's URL-safe alphabet (short, URL-safe, 72 random bits). */
export const newEntryId = (): string => nanoid(12);

export interface ProgressServiceDeps {
  store: ProgressStore;
  summariser: Summariser;
  logger: Logger;
  clock?: () => Date;
  newId?: () => string;
}

export interface GetContextOptions {
  /** Providers to try before the configured ones, e.g. the connected client's sampling. */
  summaryProviders?: readonly SummaryProvider[];
  signal?: AbortSignal;
}

export interface SearchResult extends SearchLogsOutput {
  /** The same entries with everything a listing shows (agent, summary flag). */
  listings: EntryListing[];
}

/** Tags without surrounding blanks and without case-insensitive repeats; first spelling kept. */
export function normaliseTags(tags: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags ?? []) {
    const tag = raw.trim();
    const key = fold(tag);
    if (tag.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

/** The entry log_progress input stores: tags normalised, a blank agent id none. */
function newEntry(input: LogProgressInput, id: string, createdAt: string): NewEntry {
  const agentId = input.agentId && input.agentId.trim() !== '' ? input.agentId : null;
  return { id, projectId: input.projectId, title: input.title, content: input.content, createdAt, tags: normaliseTags(input.tags), agentId };
}

/** Letters of the last word typed before quickSearch takes it as a prefix. */
const MIN_PREFIX = 3;

export class ProgressService {
  private readonly clock: () => Date;
  private readonly newId: () => string;
  /** Summaries being made, by entry: concurrent get_context calls wait for the same one. */
  private readonly summarising = new Map<string, Promise<{ summary: string; source: SummarySource }>>();

  constructor(private readonly deps: ProgressServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? newEntryId;
  }

  async logProgress(raw: unknown): Promise<LogProgressOutput> {
    const input = parseInput(logProgressInput, raw);
    const createdAt = this.clock().toISOString();
    for (let attempt = 0; ; attempt++) {
      const id = this.newId();
      try {
        await this.deps.store.insertEntry(newEntry(input, id, createdAt));
        return { id, projectId: input.projectId, title: input.title, createdAt };
      } catch (err) {
        if (err instanceof LedgerError && err.code === 'conflict' && attempt < 3) continue;
        throw err;
      }
    }
  }

  /**
   * Logs a session digest under a fixed id with its mark (what it covered), exactly once: false
   * when that part was written before, by any process, even if its entry was archived or deleted.
   */
  async logDigestOnce(raw: unknown, id: string, mark: DigestMark): Promise<LogProgressOutput | false> {
    const input = parseInput(logProgressInput, raw);
    const createdAt = this.clock().toISOString();
    if (!(await this.deps.store.insertDigest(newEntry(input, id, createdAt), mark))) return false;
    return { id, projectId: input.projectId, title: input.title, createdAt };
  }

  /** What a digest part covered, if it was written (its entry may be archived or deleted since). */
  digestMark(id: string): Promise<DigestMark | undefined> {
    return this.deps.store.getDigestMark(id);
  }

  /** Caches a summary made elsewhere (a digest's), unless one is cached already. */
  async cacheSummary(projectId: string, id: string, summary: string, source: SummarySource): Promise<void> {
    await this.deps.store.saveSummary(projectId, id, summary, source);
  }

  async getContext(raw: unknown, options: GetContextOptions = {}): Promise<GetContextOutput> {
    const input = parseInput(getContextInput, raw);
    const entry = await this.requireEntry(input.projectId, input.id);
    let summary = entry.summary;
    let source = entry.summarySource ?? undefined;
    if (summary === null) {
      // Calls arriving together for one entry share one summary, so the model is asked once (the
      // first call's providers and abort signal; an aborted one yields the fallback, not cached).
      const key = `${entry.projectId}\u0000${entry.id}`;
      let pending = this.summarising.get(key);
      if (!pending) {
        pending = (async () => {
          const made = await this.deps.summariser.summarise(entry, options.summaryProviders ?? [], options.signal);
          if (made.source === 'fallback') return made;
          // Another agent may have cached one meanwhile; theirs wins so every reader sees the same.
          return this.deps.store.saveSummary(entry.projectId, entry.id, made.summary, made.source);
        })().finally(() => this.summarising.delete(key));
        this.summarising.set(key, pending);
      }
      const kept = await pending;
      summary = kept.summary;
      source = kept.source;
    }
    const out: GetContextOutput = {
      id: entry.id,
      projectId: entry.projectId,
      title: entry.title,
      summary,
      createdAt: entry.createdAt,
      tags: entry.tags,
      agentId: entry.agentId,
    };
    if (source) out.summarySource = source;
    if (input.includeFull) out.content = entry.content;
    return out;
  }

  async searchLogs(raw: unknown): Promise<SearchResult> {
    const input = parseInput(searchLogsInput, raw);
    const start = input.startDate ? parseIsoDate(input.startDate) : undefined;
    const end = input.endDate ? parseIsoDate(input.endDate) : undefined;
    let endIso = end?.iso;
    if (end?.dateOnly) endIso = new Date(Date.parse(end.iso) + 86_400_000 - 1).toISOString();
    if (start && endIso && Date.parse(start.iso) > Date.parse(endIso)) {
      // Compared as instants (ISO text of years past 9999 does not sort); echoed trimmed, as parsed.
      throw new LedgerError('invalid_argument', `startDate (${input.startDate?.trim()}) is after endDate (${input.endDate?.trim()}); swap them or widen the range`);
    }
    const page = await this.deps.store.searchEntries({
      projectId: input.projectId,
      ...(input.query !== undefined && input.query.trim() !== '' ? { query: input.query } : {}),
      ...(input.text !== undefined && input.text.trim() !== '' ? { text: input.text } : {}),
      ...(input.tags && input.tags.length > 0 ? { tags: normaliseTags(input.tags) } : {}),
      ...(start ? { startDate: start.iso } : {}),
      ...(endIso ? { endDate: endIso } : {}),
      limit: input.limit ?? LIMITS.defaultSearchLimit,
    });
    return {
      entries: page.entries.map((e) => ({ id: e.id, title: e.title, createdAt: e.createdAt, tags: e.tags })),
      total: page.total,
      listings: page.entries,
    };
  }

  /**
   * Search as you type for people (the editor's quick pick): full text over every project or one,
   * the last word taken as a prefix once it has three letters, ranked, with snippets. Empty input
   * lists the newest entries.
   */
  async quickSearch(input: string, options: { projectId?: string; limit?: number } = {}): Promise<{ entries: EntryListing[]; total: number }> {
    const limit = Math.min(Math.max(options.limit ?? 30, 1), 200);
    let text = input.trim();
    if (text.length > LIMITS.text) text = text.slice(0, LIMITS.text);
    if (text === '') return this.deps.store.searchEntries({ projectId: options.projectId, limit });
    // A prefix from the third letter of the last word on: "t*" would expand to every word in t.
    const last = /[\p{L}\p{N}\p{M}]+$/u.exec(text)?.[0];
    if (last && Array.from(last).length >= MIN_PREFIX && !text.endsWith('"')) text += '*';
    try {
      return await this.deps.store.searchEntries({ projectId: options.projectId, text, limit });
    } catch (err) {
      if (err instanceof LedgerError && err.code === 'invalid_argument') return { entries: [], total: 0 };
      throw err;
    }
  }

  /** The whole entry, content included (CLI show, the extension's entry view). */
  async showEntry(id: string, projectId?: string): Promise<LogEntry> {
    if (projectId !== undefined) return this.requireEntry(projectId, id);
    const entry = await this.deps.store.findEntry(id);
    if (!entry) throw notFound(`Entry not found: ${id}. Use search to find ids.`);
    return entry;
  }

  /** One project's entries, newest first, for views: optional tag filter, paged. */
  listEntries(projectId: string | undefined, options: { tags?: string[]; limit: number; offset?: number }): Promise<{ entries: EntryListing[]; total: number }> {
    return this.deps.store.searchEntries({
      projectId,
      ...(options.tags && options.tags.length > 0 ? { tags: normaliseTags(options.tags) } : {}),
      limit: options.limit,
      offset: options.offset ?? 0,
    });
  }

  listProjects(): Promise<ProjectInfo[]> {
    return this.deps.store.listProjects();
  }

  listTags(projectId: string): Promise<TagCount[]> {
    return this.deps.store.listTags(projectId);
  }

  private async requireEntry(projectId: string, id: string): Promise<LogEntry> {
    const entry = await this.deps.store.getEntry(projectId, id);
    if (!entry) throw notFound(`Entry not found: ${id} in project ${projectId}. Use search_logs to find ids.`, { projectId, id });
    return entry;
  }
}
