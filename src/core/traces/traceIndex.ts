// The in-memory index of every transcript under the configured homes, built incrementally: per
// file it keeps (path, size, mtime, inode, bytes consumed) and the session's structure, never the
// payloads. A refresh stats every file; only new or grown files are read (append-only formats from
// where the last read stopped), and payloads are read back from the transcript when a view needs
// them. Transcripts are opened read-only; the index writes nothing anywhere.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as VscodeStateModule from '../storage/sqlite/vscodeState';
import { SessionBuilder } from './builder';
import { TraceError } from './errors';
import type { TraceHomes } from './homes';
import { isRecord, parseJson, readLines, readWhole } from './lines';
import { claudeReader } from './providers/claude';
import { codexReader } from './providers/codex';
import { geminiReader } from './providers/gemini';
import type { ProviderReader, TranscriptFile, TranscriptParser } from './providers/parser';
import { copilotChatReader } from './providers/copilotChat';
import type { Provider, SessionMeta, TraceEvent } from './types';

export const READERS: readonly ProviderReader[] = [claudeReader, codexReader, geminiReader, copilotChatReader];

/** A Codex review sub-session starts within this many ms of its parent's entered_review_mode. */
const REVIEW_LINK_MS = 100;
/** Sessions whose transcript is at most this big keep their parsed events in memory once read. */
const CACHE_FILE_LIMIT = 4 << 20;
const CACHE_TOTAL = 24 << 20;

interface FileEntry {
  file: TranscriptFile;
  size: number;
  mtimeMs: number;
  ino: number;
  consumedTo: number;
  pendingBytes: number;
  /** Kept between reads for append-only formats. */
  parser: TranscriptParser | null;
  meta: SessionMeta;
  builder: SessionBuilder;
  malformed: number;
  observedFirst: string | null;
  observedLast: string | null;
}

export interface IndexedSession {
  id: string;
  provider: Provider;
  /** main, subagent, review, ... */
  kind: string;
  format: string;
  file: string;
  meta: SessionMeta;
  builder: SessionBuilder;
  start: string | null;
  end: string | null;
  projectRoot: string | null;
  projectHash: string | null;
  title: string | null;
  parentId: string | null;
  children: string[];
  malformed: number;
  size: number;
}

export interface RefreshStats {
  files: number;
  /** Files read from the start (new, replaced, or formats that rewrite themselves). */
  parsed: number;
  /** Append-only files read only from where the last read stopped. */
  tailed: number;
  unchanged: number;
  removed: number;
  bytesRead: number;
  ms: number;
}

export function projectHashOf(root: string): string {
  return createHash('sha256').update(root).digest('hex');
}

function startOf(e: FileEntry): string | null {
  return e.meta.declaredStart ?? e.observedFirst ?? e.builder.firstTimestamp;
}

function endOf(e: FileEntry): string | null {
  const candidates = [e.meta.declaredEnd, e.observedLast, e.builder.lastTimestamp].filter((t): t is string => t !== null);
  return candidates.length === 0 ? null : candidates.reduce((a, b) => (a > b ? a : b));
}

/** Newest first; ties by id. The order every listing and cursor uses. */
export function compareSessions(a: { start: string | null; id: string }, b: { start: string | null; id: string }): number {
  const sa = a.start ?? '';
  const sb = b.start ?? '';
  if (sa !== sb) return sa > sb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

export interface TraceIndexOptions {
  homes: TraceHomes;
  /** A refresh within this many ms of the last one is skipped (0: always refresh). */
  minRefreshMs?: number;
  now?: () => number;
}

export class TraceIndex {
  private readonly files = new Map<string, FileEntry>();
  private sessionsById = new Map<string, IndexedSession>();
  private topLevel: IndexedSession[] = [];
  private refreshing: Promise<RefreshStats> | undefined;
  private lastRefresh = -Infinity;
  private readonly titleCache = new Map<string, { mtimeMs: number; titles: Map<string, string> }>();
  private readonly eventCache = new Map<string, { key: string; events: TraceEvent[]; bytes: number }>();
  private cachedBytes = 0;
  /** Bumped whenever the set of sessions or any session changes. */
  generation = 0;
  lastStats: RefreshStats | undefined;
  private homes: TraceHomes;

  constructor(private readonly options: TraceIndexOptions) {
    this.homes = options.homes;
  }

  /** Points the index at other folders (a settings change); the next refresh reindexes. */
  setHomes(homes: TraceHomes): void {
    this.homes = homes;
    this.lastRefresh = -Infinity;
  }

  get homesInUse(): TraceHomes {
    return this.homes;
  }

  /** Brings the index up to date with the disk (coalesced; throttled by minRefreshMs unless forced). */
  refresh(force = false): Promise<RefreshStats> {
    const now = (this.options.now ?? Date.now)();
    if (!force && this.lastStats && this.refreshing === undefined && now - this.lastRefresh < (this.options.minRefreshMs ?? 1000)) {
      return Promise.resolve(this.lastStats);
    }
    if (this.refreshing) return this.refreshing;
    const run = this.doRefresh().finally(() => {
      this.refreshing = undefined;
      this.lastRefresh = (this.options.now ?? Date.now)();
    });
    this.refreshing = run;
    return run;
  }

  /**
   * A refresh that starts after this call: waits for one already running (it may have listed the
   * folders before a file appeared), then starts one, or joins one another caller started since.
   */
  async rescan(): Promise<RefreshStats> {
    if (this.refreshing) await this.refreshing.catch(() => undefined);
    return this.refresh(true);
  }

  private async doRefresh(): Promise<RefreshStats> {
    const started = performance.now();
    const stats: RefreshStats = { files: 0, parsed: 0, tailed: 0, unchanged: 0, removed: 0, bytesRead: 0, ms: 0 };
    const discovered = (await Promise.all(READERS.map((r) => r.discover(this.homes[r.provider])))).flat();
    stats.files = discovered.length;
    const present = new Set<string>();
    let changed = false;
    await mapLimit(discovered, 8, async (file) => {
      present.add(file.path);
      let st: fs.Stats;
      try {
        st = await fs.promises.stat(file.path);
      } catch {
        return;
      }
      if (!st.isFile()) return;
      const entry = this.files.get(file.path);
      if (entry && entry.size === st.size && entry.mtimeMs === st.mtimeMs && entry.ino === st.ino) {
        stats.unchanged++;
        return;
      }
      changed = true;
      try {
        if (entry && entry.parser && file.mode === 'append' && entry.ino === st.ino && st.size > entry.size && entry.consumedTo <= st.size) {
          // (Not `stats.bytesRead += await ...`: that reads the total before the await, and the
          // reads run eight at a time.)
          const read = await this.tail(entry, st);
          stats.bytesRead += read;
          stats.tailed++;
        } else {
          const fresh = await this.parseFile(file, st);
          stats.bytesRead += fresh.read;
          this.files.set(file.path, fresh.entry);
          stats.parsed++;
        }
        this.dropCached(file.path);
      } catch {
        // Vanished or unreadable between listing and reading: the next refresh tries again.
        this.files.delete(file.path);
      }
    });
    for (const key of [...this.files.keys()]) {
      if (!present.has(key)) {
        this.files.delete(key);
        this.dropCached(key);
        stats.removed++;
        changed = true;
      }
    }
    if (changed || this.generation === 0) {
      await this.relink();
      this.generation++;
    }
    stats.ms = performance.now() - started;
    this.lastStats = stats;
    return stats;
  }

  private async tail(entry: FileEntry, st: fs.Stats): Promise<number> {
    const parser = entry.parser!;
    const read = await readLines(entry.file.path, entry.consumedTo, st.size, (text, offset) => {
      for (const ev of parser.line(text, offset)) entry.builder.add(ev);
    });
    entry.consumedTo = read.consumedTo;
    entry.pendingBytes = read.pendingBytes;
    entry.size = st.size;
    entry.mtimeMs = st.mtimeMs;
    this.syncFromParser(entry, parser);
    return read.bytesRead;
  }

  private syncFromParser(entry: FileEntry, parser: TranscriptParser): void {
    entry.malformed = parser.malformed;
    entry.observedFirst = parser.observedFirst;
    entry.observedLast = parser.observedLast;
  }

  /** Reads a file from the start: its structure, and (when wanted) every event with its place. */
  private async parseFile(
    file: TranscriptFile,
    st: { size: number; mtimeMs: number; ino: number },
    visit?: (ev: TraceEvent) => boolean | void,
  ): Promise<{ entry: FileEntry; read: number }> {
    const reader = READERS.find((r) => r.provider === file.provider)!;
    const parser = reader.createParser(file);
    const builder = new SessionBuilder();
    let stopped = false;
    const feed = (events: ReturnType<TranscriptParser['finish']>): void => {
      for (const ev of events) {
        const numbered = builder.add(ev);
        if (visit && !stopped && visit(numbered) === false) stopped = true;
      }
    };
    let consumedTo = 0;
    let pendingBytes = 0;
    let read = 0;
    if (file.mode === 'whole') {
      const whole = await readWhole(file.path, st.size);
      read = whole.bytesRead;
      parser.whole!(whole.text);
      feed(parser.finish());
      consumedTo = whole.bytesRead;
    } else {
      const lines = await readLines(file.path, 0, st.size, (text, offset) => {
        const events = parser.line(text, offset);
        if (file.mode === 'append') feed(events);
        // Streaming readers stop reading once the visitor has what it needs.
        return !(stopped && file.mode === 'append');
      });
      read = lines.bytesRead;
      consumedTo = lines.consumedTo;
      pendingBytes = lines.pendingBytes;
      if (file.mode === 'replay') feed(parser.finish());
    }
    const entry: FileEntry = {
      file,
      size: st.size,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      consumedTo,
      pendingBytes,
      parser: file.mode === 'append' ? parser : null,
      meta: parser.meta,
      builder,
      malformed: 0,
      observedFirst: null,
      observedLast: null,
    };
    this.syncFromParser(entry, parser);
    return { entry, read };
  }

  /** Recomputes what depends on several files: duplicates, parents and children, projects, titles. */
  private async relink(): Promise<void> {
    const best = new Map<string, FileEntry>();
    for (const entry of this.files.values()) {
      // Nothing readable yet (an empty file, garbage, a first line still being written): not a session.
      if (entry.builder.eventCount === 0 && startOf(entry) === null) continue;
      const id = entry.meta.id;
      const other = best.get(id);
      if (!other || entry.file.rank > other.file.rank || (entry.file.rank === other.file.rank && entry.size > other.size)) best.set(id, entry);
    }
    const sessions = new Map<string, IndexedSession>();
    for (const [id, e] of best) {
      sessions.set(id, {
        id,
        provider: e.file.provider,
        kind: e.meta.kind,
        format: e.file.format,
        file: e.file.path,
        meta: e.meta,
        builder: e.builder,
        start: startOf(e),
        end: endOf(e),
        projectRoot: e.meta.cwd,
        projectHash: null,
        title: e.meta.title,
        parentId: e.meta.parentId,
        children: [],
        malformed: e.malformed,
        size: e.size,
      });
    }
    // Codex review sub-sessions name no parent: the session that entered review mode just before.
    const reviewers = [...sessions.values()].filter((s) => s.provider === 'codex' && s.meta.childLinks.reviewAt.length > 0);
    for (const s of sessions.values()) {
      if (s.provider !== 'codex' || s.parentId !== null || s.kind === 'main' || !s.start) continue;
      const at = Date.parse(s.start);
      let bestParent: { id: string; gap: number } | undefined;
      for (const r of reviewers) {
        if (r.id === s.id) continue;
        for (const mark of r.meta.childLinks.reviewAt) {
          const gap = Math.abs(Date.parse(mark) - at);
          if (gap <= REVIEW_LINK_MS && (!bestParent || gap < bestParent.gap)) bestParent = { id: r.id, gap };
        }
      }
      if (bestParent) s.parentId = bestParent.id;
    }
    // Gemini sessions in a legacy hash folder: the project whose sha256 is that hash.
    const roots = new Map<string, string>();
    for (const s of sessions.values()) if (s.projectRoot) roots.set(projectHashOf(s.projectRoot), s.projectRoot);
    for (const s of sessions.values()) {
      if (s.parentId && sessions.has(s.parentId)) sessions.get(s.parentId)!.children.push(s.id);
      if (!s.projectRoot && s.meta.projectHash) s.projectRoot = roots.get(s.meta.projectHash.toLowerCase()) ?? null;
    }
    for (const s of sessions.values()) {
      if (!s.projectRoot && s.parentId) s.projectRoot = sessions.get(s.parentId)?.projectRoot ?? null;
      s.projectHash = s.projectRoot ? projectHashOf(s.projectRoot) : (s.meta.projectHash?.toLowerCase() ?? null);
      s.children.sort((a, b) => compareSessions(sessions.get(b)!, sessions.get(a)!));
    }
    await this.vscodeTitles(sessions);
    this.sessionsById = sessions;
    this.topLevel = [...sessions.values()].filter((s) => s.parentId === null || !sessions.has(s.parentId)).sort(compareSessions);
  }

  private async vscodeTitles(sessions: Map<string, IndexedSession>): Promise<void> {
    const byWorkspace = new Map<string, IndexedSession[]>();
    for (const s of sessions.values()) {
      const dir = this.files.get(s.file)?.file.hints.workspaceDir;
      if (s.provider !== 'vscode_copilot' || s.title || !dir) continue;
      byWorkspace.set(dir, [...(byWorkspace.get(dir) ?? []), s]);
    }
    for (const [dir, list] of byWorkspace) {
      const db = path.join(dir, 'state.vscdb');
      let mtimeMs: number;
      try {
        mtimeMs = (await fs.promises.stat(db)).mtimeMs;
      } catch {
        continue;
      }
      let cached = this.titleCache.get(db);
      if (!cached || cached.mtimeMs !== mtimeMs) {
        const titles = new Map<string, string>();
        // sql.js loads only here, for a VS Code state database: never for the ledger of a host's client.
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (a bundle keeps it unevaluated until then)
        const { readStateValue } = require('../storage/sqlite/vscodeState') as typeof VscodeStateModule;
        const parsed = parseJson((await readStateValue(db, 'chat.ChatSessionStore.index')) ?? '');
        const entries = isRecord(parsed) && isRecord(parsed.entries) ? parsed.entries : {};
        for (const [id, v] of Object.entries(entries)) if (isRecord(v) && typeof v.title === 'string' && v.title.trim() !== '') titles.set(id, v.title);
        cached = { mtimeMs, titles };
        this.titleCache.set(db, cached);
      }
      for (const s of list) s.title = cached.titles.get(s.id) ?? null;
    }
  }

  /** Top-level sessions (children are reached through their parent), newest first. */
  get sessions(): readonly IndexedSession[] {
    return this.topLevel;
  }

  get allSessions(): IterableIterator<IndexedSession> {
    return this.sessionsById.values();
  }

  get(id: string): IndexedSession | undefined {
    return this.sessionsById.get(id);
  }

  /** A session by full id or unique prefix (case-insensitive); the specification's errors otherwise. */
  resolve(idOrPrefix: string): IndexedSession {
    const wanted = idOrPrefix.trim();
    const exact = this.sessionsById.get(wanted);
    if (exact) return exact;
    const lower = wanted.toLowerCase();
    const matches = [...this.sessionsById.values()].filter((s) => s.id.toLowerCase().startsWith(lower)).sort(compareSessions);
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) {
      throw new TraceError('session_not_found', `Session not found: ${wanted}. Use list_sessions to find session ids.`, { session_id: wanted });
    }
    const shown = matches.slice(0, 20).map((s) => s.id);
    throw new TraceError('ambiguous_session_prefix', `Session ID prefix '${wanted}' matches ${matches.length} sessions. Provide more characters.`, {
      prefix: wanted,
      matches: shown,
      ...(matches.length > shown.length ? { more: matches.length - shown.length } : {}),
    });
  }

  /**
   * Reads a session's events back from its transcript, in order, with their places. visit may
   * return false to stop early (append-only transcripts then stop reading the file there).
   */
  async scanEvents(session: IndexedSession, visit: (ev: TraceEvent) => boolean | void): Promise<void> {
    const entry = this.files.get(session.file);
    if (!entry) throw new TraceError('session_not_found', `The transcript of session ${session.id} is gone (${session.file}).`, { session_id: session.id });
    const key = `${entry.consumedTo}:${entry.mtimeMs}`;
    const cached = this.eventCache.get(session.file);
    if (cached && cached.key === key) {
      // Least recently used goes first: re-insert.
      this.eventCache.delete(session.file);
      this.eventCache.set(session.file, cached);
      for (const ev of cached.events) if (visit(ev) === false) return;
      return;
    }
    const keep = entry.size <= CACHE_FILE_LIMIT;
    const collected: TraceEvent[] = [];
    let stoppedEarly = false;
    const end = entry.file.mode === 'append' ? entry.consumedTo : entry.size;
    try {
      await this.parseFile(entry.file, { size: end, mtimeMs: entry.mtimeMs, ino: entry.ino }, (ev) => {
        if (keep) collected.push(ev);
        if (!stoppedEarly && visit(ev) === false) {
          stoppedEarly = true;
          return keep ? undefined : false;
        }
        return undefined;
      });
    } catch (err) {
      throw new TraceError('session_not_found', `The transcript of session ${session.id} could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)}).`, {
        session_id: session.id,
        file: session.file,
      });
    }
    if (keep) this.remember(session.file, key, collected, entry.size);
  }

  private remember(file: string, key: string, events: TraceEvent[], bytes: number): void {
    this.dropCached(file);
    this.eventCache.set(file, { key, events, bytes });
    this.cachedBytes += bytes;
    for (const [k, v] of this.eventCache) {
      if (this.cachedBytes <= CACHE_TOTAL) break;
      this.eventCache.delete(k);
      this.cachedBytes -= v.bytes;
    }
  }

  private dropCached(file: string): void {
    const old = this.eventCache.get(file);
    if (old) {
      this.eventCache.delete(file);
      this.cachedBytes -= old.bytes;
    }
  }

  /** Bytes seen but not yet indexed (a line still being written), for diagnostics. */
  pendingBytes(session: IndexedSession): number {
    return this.files.get(session.file)?.pendingBytes ?? 0;
  }
}
