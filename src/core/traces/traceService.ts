// The traces toolset's rules (AgTrace specification, README "Tools"): listing, progressive disclosure of a session at four
// levels, analysis, event search and event details, each page size-capped with an opaque cursor,
// every string redacted. MCP tools and the extension both call this; neither touches the index.
// The service owns the index and the per-session caches; each tool is a function in its own file
// (indexQueries, detailLevels, analyzeSession, search, eventDetails) that reaches them through
// TraceContext (pages.ts).

import { analyse, type Analysis } from './analysis';
import type { SessionBuilder } from './builder';
import { clipDeep } from '../responseBudget';
import { outcomeOf, getSessionDetails } from './detailLevels';
import { analyzeSession } from './analyzeSession';
import { findEvent, getEventDetails } from './eventDetails';
import { TraceError } from './errors';
import { getProjectInfo, listingOf, listSessions } from './indexQueries';
import { ledgerProjectsFor, projectMatches, window, LINK_SLACK_MS, type LedgerActivity } from './ledgerLink';
import { tokensOut, type SessionOverview, type TraceContext, type TraceServiceDeps } from './pages';
import { redactValue } from './redact';
import type {
  AnalyzeSessionOutput,
  EventMatch,
  GetEventDetailsOutput,
  GetProjectInfoOutput,
  GetSessionDetailsOutput,
  ListSessionsOutput,
  SearchEventPreviewsOutput,
  SearchEventsOutput,
} from './schemas';
import { matchOf, search, searchEventPreviews, searchEvents } from './search';
import { compareSessions, TraceIndex, type IndexedSession, type RefreshStats } from './traceIndex';
import { PROVIDER_LABELS, PROVIDERS, type EventType, type SessionTurn, type TokenCounts } from './types';

export { BUDGETS, type SessionOverview, type TraceServiceDeps } from './pages';
export { previewOf, valueContains } from './search';

export interface SessionView {
  session: SessionOverview;
  children: SessionOverview[];
  analysis: Analysis;
  tokens: TokenCounts;
  malformedLines: number;
  turns: SessionTurn[];
  truncatedTurns: number;
}

export class TraceService implements TraceContext {
  readonly index: TraceIndex;
  private readonly analyses = new WeakMap<SessionBuilder, { events: number; analysis: Analysis }>();

  constructor(readonly deps: TraceServiceDeps) {
    this.index = new TraceIndex({ homes: deps.homes, minRefreshMs: deps.minRefreshMs ?? 1000, ...(deps.now ? { now: deps.now } : {}) });
  }

  refresh(force = false): Promise<RefreshStats> {
    return this.index.refresh(force);
  }

  /**
   * A session by id or unique prefix. A miss rescans first (new and changed files only; misses at
   * the same time share one rescan), so a transcript an agent started a moment ago is found even
   * when the last refresh ran under a second before.
   */
  async find(idOrPrefix: string): Promise<IndexedSession> {
    try {
      return this.index.resolve(idOrPrefix);
    } catch (err) {
      if (!(err instanceof TraceError) || err.code !== 'session_not_found') throw err;
    }
    await this.index.rescan();
    return this.index.resolve(idOrPrefix);
  }

  analysis(s: IndexedSession): Analysis {
    const cached = this.analyses.get(s.builder);
    if (cached && cached.events === s.builder.eventCount) return cached.analysis;
    const analysis = analyse(s.builder);
    this.analyses.set(s.builder, { events: s.builder.eventCount, analysis });
    return analysis;
  }

  listing(s: IndexedSession): SessionOverview {
    return listingOf(this, s);
  }

  malformedLines(s: IndexedSession): number {
    return s.malformed + (this.index.pendingBytes(s) > 0 ? 1 : 0);
  }

  describeHomes(): string {
    const h = this.index.homesInUse;
    return PROVIDERS.map((p) => `${PROVIDER_LABELS[p]}: ${h[p].length > 0 ? h[p].join(', ') : '(off)'}`).join('; ');
  }

  // ---- the tools (one file each) ---------------------------------------------------------------

  listSessions(raw: unknown): Promise<ListSessionsOutput> {
    return listSessions(this, raw);
  }

  getProjectInfo(raw: unknown): Promise<GetProjectInfoOutput> {
    return getProjectInfo(this, raw);
  }

  getSessionDetails(raw: unknown): Promise<GetSessionDetailsOutput> {
    return getSessionDetails(this, raw);
  }

  analyzeSession(raw: unknown): Promise<AnalyzeSessionOutput> {
    return analyzeSession(this, raw);
  }

  searchEventPreviews(raw: unknown): Promise<SearchEventPreviewsOutput> {
    return searchEventPreviews(this, raw);
  }

  searchEvents(raw: unknown): Promise<SearchEventsOutput> {
    return searchEvents(this, raw);
  }

  getEventDetails(raw: unknown): Promise<GetEventDetailsOutput> {
    return getEventDetails(this, raw);
  }

  // ---- the ledger link -------------------------------------------------------------------------

  /** What agents logged in the ledger for this session's project while it ran. */
  async ledgerFor(s: IndexedSession, limit: number): Promise<LedgerActivity[]> {
    const w = window(s.start, s.end);
    if (!w || !this.deps.ledgerSources || !s.projectRoot) return [];
    const out: LedgerActivity[] = [];
    for (const source of await this.deps.ledgerSources()) {
      try {
        for (const projectId of ledgerProjectsFor(s.projectRoot, await source.projects()).slice(0, 3)) {
          out.push(...(await source.between(projectId, w.from, w.to, limit)));
        }
      } catch (err) {
        this.deps.logger.warn(`Ledger activity from ${source.toolset} unavailable: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).slice(0, limit);
  }

  /** Transcripts of a project that were running at `at` (within a few minutes), closest first. */
  async transcriptsFor(projectId: string, at: string): Promise<SessionOverview[]> {
    await this.index.refresh();
    const t = Date.parse(at);
    if (Number.isNaN(t)) return [];
    const candidates = [...this.index.allSessions].filter((s) => {
      if (!s.start || !projectMatches(projectId, s.projectRoot)) return false;
      const start = Date.parse(s.start) - LINK_SLACK_MS;
      const end = Date.parse(s.end ?? s.start) + LINK_SLACK_MS;
      return t >= start && t <= end;
    });
    const distance = (s: IndexedSession): number => {
      const start = Date.parse(s.start!);
      const end = Date.parse(s.end ?? s.start!);
      return t < start ? start - t : t > end ? t - end : 0;
    };
    return candidates.sort((a, b) => distance(a) - distance(b) || compareSessions(a, b)).map((s) => this.listing(s));
  }

  // ---- for the extension ---------------------------------------------------------------------

  /** Every top-level session, newest first, as the tree shows them. */
  async overview(): Promise<SessionOverview[]> {
    await this.index.refresh();
    return this.index.sessions.map((s) => this.listing(s));
  }

  /** A session for the webview: structure, tool calls with their status, analysis; no payloads. */
  async sessionView(idOrPrefix: string, maxTurns = 400): Promise<SessionView> {
    await this.index.refresh();
    const s = await this.find(idOrPrefix);
    const b = s.builder;
    return {
      session: this.listing(s),
      children: s.children
        .map((id) => this.index.get(id))
        .filter((c): c is IndexedSession => c !== undefined)
        .map((c) => this.listing(c)),
      analysis: this.analysis(s),
      tokens: tokensOut(b.tokens),
      malformedLines: this.malformedLines(s),
      turns: b.turns.slice(0, maxTurns).map((t) => ({
        index: t.index,
        timestamp: t.timestamp,
        userMessage: t.userMessage,
        human: t.human,
        tokens: t.tokens.total,
        toolCalls: t.toolCalls,
        failed: t.failed,
        outcome: outcomeOf(t),
        steps: t.steps.map((st) => ({
          index: st.index,
          timestamp: st.timestamp,
          message: st.message,
          reasoning: st.reasoning,
          tools: st.toolCalls.map((i) => {
            const c = b.toolCalls[i]!;
            return { eventIndex: c.eventIndex, resultEventIndex: c.resultIndex, name: c.name, label: c.label, status: c.status, exitCode: c.exitCode };
          }),
        })),
      })),
      truncatedTurns: Math.max(0, b.turns.length - maxTurns),
    };
  }

  /** One event, redacted, long texts cut to `maxChars` (the webview's detail pane). */
  async eventPreview(idOrPrefix: string, eventIndex: number, maxChars = 20_000): Promise<{ type: EventType; timestamp: string | null; payload: unknown } | undefined> {
    const s = await this.find(idOrPrefix);
    const ev = await findEvent(this.index, s, eventIndex);
    return ev ? { type: ev.type, timestamp: ev.timestamp, payload: clipDeep(redactValue(ev.payload), maxChars) } : undefined;
  }

  /** Search across every session for people (the command palette): previews, newest sessions first. */
  async quickSearch(text: string, limit = 30): Promise<EventMatch[]> {
    if (text.trim() === '') return [];
    const r = await search(this, { query: text.trim().slice(0, 500), limit }, 'quick_search', 200_000, (ev, s) => matchOf(ev, s));
    return r.matches;
  }
}
