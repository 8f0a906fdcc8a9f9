// The traces toolset's rules (seed agtrace): listing, progressive disclosure of a session at four
// levels, analysis, event search and event details, each page size-capped with an opaque cursor,
// every string redacted. MCP tools and the extension both call this; neither touches the index.
// Sizes and cutting are the shared response budget's (core/responseBudget.ts).

import * as path from 'node:path';
import { isLedgerError } from '../errors';
import type { Logger } from '../log';
import { clip, clipDeep, costOf, getAt, jsonBytes, kb, RESPONSE_CAP, resultBytes, shrinkToFit } from '../responseBudget';
import { parseInput, parseIsoDate } from '../validation';
import { analyse, type Analysis } from './analysis';
import type { SessionBuilder, StepInfo, ToolCallInfo, TurnInfo } from './builder';
import { decodeCursor, encodeCursor, fingerprint } from './cursor';
import { TraceError } from './errors';
import type { TraceHomes } from './homes';
import { ledgerProjectsFor, projectMatches, window, LINK_SLACK_MS, type LedgerActivity, type LedgerActivitySource } from './ledgerLink';
import { redactText, redactValue } from './redact';
import {
  analyzeSessionInput,
  getEventDetailsInput,
  getProjectInfoInput,
  getSessionDetailsInput,
  listSessionsInput,
  searchEventPreviewsInput,
  searchEventsInput,
  type AnalyzeSessionOutput,
  type DetailLevel,
  type EventMatch,
  type GetEventDetailsOutput,
  type GetProjectInfoOutput,
  type GetSessionDetailsOutput,
  type ListSessionsOutput,
  type SearchEventPreviewsOutput,
  type SearchEventsOutput,
  type SessionListing,
} from './schemas';
import { compareSessions, TraceIndex, type IndexedSession, type RefreshStats } from './traceIndex';
import { PROVIDER_LABELS, PROVIDERS, type EventType, type Provider, type TokenCounts, type TraceEvent } from './types';

/**
 * Whole-result budgets (text and structured content together), per tool and level. What a tool
 * answers with its default arguments stays under 30 KB (list, projects, summary, analyze, search,
 * details); summary and turns keep to the specification's 15 KB and 30 KB; steps and full go up to
 * the 100 KB ceiling.
 */
export const BUDGETS = {
  list: 28_000,
  projects: 28_000,
  summary: 15_000,
  turns: 30_000,
  steps: 98_000,
  full: 98_000,
  analyze: 12_000,
  search: 28_000,
  details: 28_000,
} as const;

const STEP_TEXT = 500;
const PREVIEW_TEXT = 300;
const ARG_TEXT = 100;
const SEARCH_BUDGET_MS = 10_000;
/** A hint names the response size from this size on. */
const SIZE_NOTE_FROM = 10_000;

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

/**
 * Whether a text or number anywhere in a payload contains the (lower-case) needle. Values only:
 * field names (is_error, status, name, text, output) are the same in every event of a type, so
 * matching them would find every event.
 */
export function valueContains(value: unknown, needle: string, depth = 0): boolean {
  if (typeof value === 'string') return value.toLowerCase().includes(needle);
  if (typeof value === 'number') return String(value).includes(needle);
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.some((v) => valueContains(v, needle, depth + 1));
  return Object.values(value as Record<string, unknown>).some((v) => valueContains(v, needle, depth + 1));
}

function sizeNote(bytes: number): string {
  return bytes >= SIZE_NOTE_FROM ? ` This response is ${kb(bytes)} (cap ${kb(RESPONSE_CAP)}).` : '';
}

/** Adds the size to the hint once the data is final. */
function withSize<T extends { hint: string }>(data: T): T {
  const bytes = resultBytes(data);
  if (bytes >= SIZE_NOTE_FROM) data.hint += sizeNote(bytes + 64);
  return data;
}

function durationSeconds(start: string | null, end: string | null): number | null {
  if (!start || !end) return null;
  const d = (Date.parse(end) - Date.parse(start)) / 1000;
  return Number.isFinite(d) ? Math.round(d) : null;
}

function tokensOut(t: TokenCounts): TokenCounts {
  return { input: t.input, output: t.output, cache_creation: t.cache_creation, cache_read: t.cache_read, reasoning: t.reasoning, total: t.total };
}

/** The redacted preview search results show for an event (seed: ~300 characters by type). */
export function previewOf(ev: TraceEvent): Record<string, unknown> {
  const p = redactValue(ev.payload) as unknown as Record<string, unknown>;
  switch (ev.type) {
    case 'ToolCall':
      return { tool: p.name, arguments: clipDeep(p.arguments, ARG_TEXT) };
    case 'ToolResult':
      return {
        tool: p.name,
        preview: clip(textOf(p.output), PREVIEW_TEXT),
        is_error: p.is_error,
        status: p.status,
        ...(typeof p.exit_code === 'number' ? { exit_code: p.exit_code } : {}),
      };
    case 'TokenUsage':
      return { input: p.input, output: p.output, total: p.total };
    case 'Notification':
      return { kind: p.kind, text: clip(textOf(p.text), PREVIEW_TEXT) };
    default:
      return { text: clip(textOf(p.text), PREVIEW_TEXT) };
  }
}

function stepSummary(step: StepInfo, calls: readonly ToolCallInfo[]): string {
  if (step.toolCalls.length === 0) return step.message ?? (step.reasoning ? `(thinking) ${step.reasoning}` : '(no text)');
  const shown = step.toolCalls.slice(0, 5).map((i) => {
    const c = calls[i]!;
    const state = c.status === 'error' ? 'failed' : c.status === 'pending' ? 'no result' : c.status === 'cancelled' ? 'cancelled' : 'ok';
    return `${c.label} (${state}${c.exitCode !== null && c.exitCode !== 0 && c.status !== 'error' ? `, exit ${c.exitCode}` : ''})`;
  });
  const more = step.toolCalls.length > 5 ? `, +${step.toolCalls.length - 5} more` : '';
  return shown.join(', ') + more;
}

function outcomeOf(turn: TurnInfo): 'success' | 'partial' | 'failed' {
  if (turn.toolCalls > 0 && turn.failed >= turn.toolCalls) return 'failed';
  if (turn.failed > 0 || turn.interrupted) return 'partial';
  return 'success';
}

function keyActions(turn: TurnInfo, calls: readonly ToolCallInfo[]): string[] {
  const mine = turn.steps.flatMap((s) => s.toolCalls.map((i) => calls[i]!));
  const out: string[] = [];
  const names = [...new Set(mine.map((c) => c.name))];
  if (names.length > 0) out.push(`Used tools: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ` (+${names.length - 8})` : ''}`);
  const failed = mine.filter((c) => c.status === 'error');
  if (failed.length > 0) out.push(`${failed.length} failed: ${[...new Set(failed.map((c) => c.label))].slice(0, 3).join('; ')}`);
  if (turn.interrupted) out.push('Interrupted');
  return out;
}

export interface TraceServiceDeps {
  homes: TraceHomes;
  logger: Logger;
  /** Where agents' ledger activity comes from (progress log, queue, workflow); opened only when asked. */
  ledgerSources?: () => Promise<readonly LedgerActivitySource[]>;
  minRefreshMs?: number;
  searchBudgetMs?: number;
  now?: () => number;
}

/** One session as a tree row or webview header shows it. */
export type SessionOverview = SessionListing & { parent_id: string | null };

export interface SessionView {
  session: SessionOverview;
  children: SessionOverview[];
  analysis: Analysis;
  tokens: TokenCounts;
  malformedLines: number;
  turns: {
    index: number;
    timestamp: string | null;
    userMessage: string | null;
    human: boolean;
    tokens: number;
    toolCalls: number;
    failed: number;
    outcome: 'success' | 'partial' | 'failed';
    steps: { index: number; timestamp: string | null; message: string | null; reasoning: string | null; tools: { eventIndex: number; resultEventIndex: number | null; name: string; label: string; status: string; exitCode: number | null }[] }[];
  }[];
  truncatedTurns: number;
}

export class TraceService {
  readonly index: TraceIndex;
  private readonly analyses = new WeakMap<SessionBuilder, { events: number; analysis: Analysis }>();

  constructor(private readonly deps: TraceServiceDeps) {
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

  private parse<T extends Parameters<typeof parseInput>[0]>(schema: T, raw: unknown): ReturnType<typeof parseInput<T>> {
    try {
      return parseInput(schema, raw);
    } catch (err) {
      if (isLedgerError(err) && err.code === 'invalid_argument') throw new TraceError('invalid_parameter', err.message, {});
      throw err;
    }
  }

  listing(s: IndexedSession): SessionOverview {
    const b = s.builder;
    const first = b.turns.find((t) => t.userMessage !== null);
    return {
      id: s.id,
      provider: s.provider,
      kind: s.kind,
      project_hash: s.projectHash,
      project_path: s.projectRoot,
      title: s.title ? clip(redactText(s.title), 200) : null,
      snippet: first?.userMessage ?? '',
      start_time: s.start,
      end_time: s.end,
      duration_seconds: durationSeconds(s.start, s.end),
      turn_count: b.humanTurns,
      tool_calls: b.toolCalls.length,
      failed_tool_calls: b.failedCalls,
      total_tokens: b.tokens.total,
      score: this.analysis(s).score,
      models: s.meta.models,
      git_branch: s.meta.gitBranch,
      subagents: s.children.length,
      parent_id: s.parentId,
    };
  }

  private malformedLines(s: IndexedSession): number {
    return s.malformed + (this.index.pendingBytes(s) > 0 ? 1 : 0);
  }

  // ---- list_sessions -------------------------------------------------------------------------

  async listSessions(raw: unknown): Promise<ListSessionsOutput> {
    const input = this.parse(listSessionsInput, raw);
    const hash = input.project_hash?.trim().toLowerCase() || undefined;
    if (hash !== undefined && !/^[0-9a-f]{4,64}$/.test(hash)) throw new TraceError('invalid_parameter', 'project_hash must be 4 to 64 hexadecimal characters, as get_project_info reports it', { project_hash: input.project_hash });
    const since = input.since ? parseIsoDate(input.since) : undefined;
    const untilParsed = input.until ? parseIsoDate(input.until) : undefined;
    const until = untilParsed ? (untilParsed.dateOnly ? new Date(Date.parse(untilParsed.iso) + 86_400_000 - 1).toISOString() : untilParsed.iso) : undefined;
    const query = fingerprint({ provider: input.provider, hash, since: since?.iso, until });
    const after = input.cursor ? this.sessionPosition(decodeCursor('list_sessions', query, input.cursor)) : undefined;
    await this.index.refresh();
    const limit = input.limit ?? 10;
    const matching = this.index.sessions.filter(
      (s) =>
        (!input.provider || s.provider === input.provider) &&
        (!hash || (s.projectHash ?? '').startsWith(hash)) &&
        (!since || (s.end ?? s.start ?? '') >= since.iso) &&
        (!until || (s.start ?? '') <= until) &&
        (!after || compareSessions(s, after) > 0),
    );
    const sessions: SessionListing[] = [];
    let used = costOf({ sessions: [], total_in_page: 0, has_more: true, next_cursor: 'x'.repeat(200), hint: 'x'.repeat(400) });
    for (const s of matching) {
      if (sessions.length >= limit) break;
      const { parent_id: _parent, ...item } = this.listing(s);
      const cost = costOf(item);
      if (sessions.length > 0 && used + cost > BUDGETS.list) break;
      used += cost;
      sessions.push(item);
    }
    const hasMore = matching.length > sessions.length;
    const last = sessions.at(-1);
    const next = hasMore && last ? encodeCursor('list_sessions', query, { s: last.start_time, i: last.id }) : null;
    let hint = sessions.length === 0 ? 'No sessions match. Use get_project_info to see the indexed projects, or drop filters.' : 'Use get_session_details(session_id, detail_level=\'summary\') for a session\'s turns, analyze_session for its health.';
    if (next) hint += ' More sessions: call again with cursor=next_cursor.';
    return withSize({ sessions, total_in_page: sessions.length, has_more: hasMore, next_cursor: next, hint });
  }

  private sessionPosition(p: Record<string, unknown>): { start: string | null; id: string } {
    if ((p.s !== null && typeof p.s !== 'string') || typeof p.i !== 'string') throw new TraceError('invalid_cursor', 'Invalid cursor: it is not one this server made. Omit cursor to start over.', {});
    return { start: p.s as string | null, id: p.i };
  }

  // ---- get_project_info ----------------------------------------------------------------------

  async getProjectInfo(raw: unknown): Promise<GetProjectInfoOutput> {
    const input = this.parse(getProjectInfoInput, raw);
    const after = input.cursor ? decodeCursor('get_project_info', 'all', input.cursor) : undefined;
    await this.index.refresh();
    const groups = new Map<string, { hash: string; root_path: string | null; session_count: number; last_activity: string | null; providers: Record<string, number> }>();
    for (const s of this.index.sessions) {
      // Sessions with no project folder (an empty-window chat) are grouped under 'none'.
      const hash = s.projectHash ?? 'none';
      const g = groups.get(hash) ?? { hash, root_path: s.projectRoot, session_count: 0, last_activity: null, providers: {} };
      g.session_count++;
      const last = s.end ?? s.start;
      if (last && (g.last_activity === null || last > g.last_activity)) g.last_activity = last;
      g.providers[s.provider] = (g.providers[s.provider] ?? 0) + 1;
      if (!g.root_path && s.projectRoot) g.root_path = s.projectRoot;
      groups.set(hash, g);
    }
    const key = (g: { last_activity: string | null; hash: string }): string => `${g.last_activity ?? ''}\u0000${g.hash}`;
    const sorted = [...groups.values()].sort((a, b) => (key(a) > key(b) ? -1 : key(a) < key(b) ? 1 : 0));
    const afterKey = after && typeof after.k === 'string' ? after.k : undefined;
    const remaining = afterKey === undefined ? sorted : sorted.filter((g) => key(g) < afterKey);
    const projects: GetProjectInfoOutput['projects'] = [];
    let used = costOf({ projects: [], total_in_page: 0, has_more: true, next_cursor: 'x'.repeat(200), hint: 'x'.repeat(300) });
    for (const g of remaining) {
      const item = { ...g, name: g.root_path ? path.basename(g.root_path) : g.hash === 'none' ? '(no project folder)' : `project ${g.hash.slice(0, 8)}` };
      const cost = costOf(item);
      if (projects.length >= 100 || (projects.length > 0 && used + cost > BUDGETS.projects)) break;
      used += cost;
      projects.push(item);
    }
    const hasMore = remaining.length > projects.length;
    const last = projects.at(-1);
    const next = hasMore && last ? encodeCursor('get_project_info', 'all', { k: key(last) }) : null;
    return withSize({
      projects,
      total_in_page: projects.length,
      has_more: hasMore,
      next_cursor: next,
      hint: projects.length === 0 ? `No transcripts found under ${this.describeHomes()}.` : `Use list_sessions(project_hash=...) to list a project's sessions.${next ? ' More projects: call again with cursor=next_cursor.' : ''}`,
    });
  }

  describeHomes(): string {
    const h = this.index.homesInUse;
    return PROVIDERS.map((p) => `${PROVIDER_LABELS[p]}: ${h[p].length > 0 ? h[p].join(', ') : '(off)'}`).join('; ');
  }

  // ---- get_session_details ---------------------------------------------------------------------

  async getSessionDetails(raw: unknown): Promise<GetSessionDetailsOutput> {
    const input = this.parse(getSessionDetailsInput, raw);
    const level: DetailLevel = input.detail_level ?? 'summary';
    await this.index.refresh();
    const s = await this.find(input.session_id);
    const query = fingerprint({ id: s.id, level, r: input.include_reasoning === true, l: input.include_ledger === true });
    const pos = input.cursor ? decodeCursor(`details:${level}`, query, input.cursor) : { t: 0, st: 0 };
    const turnFrom = typeof pos.t === 'number' && pos.t >= 0 ? pos.t : 0;
    const stepFrom = typeof pos.st === 'number' && pos.st >= 0 ? pos.st : 0;
    const childFrom = typeof pos.c === 'number' && pos.c >= 0 ? pos.c : 0;
    const head = { session_id: s.id, detail_level: level, provider: s.provider, title: s.title ? clip(redactText(s.title), 200) : null, start_time: s.start, end_time: s.end };
    const cursorAt = (t: number, st = 0, c = 0): string => encodeCursor(`details:${level}`, query, c > 0 ? { t, st, c } : { t, st });
    if (level === 'summary') return this.summary(s, head, turnFrom, childFrom, input.cursor === undefined && input.include_ledger === true, cursorAt);
    if (level === 'turns') return this.turnsLevel(s, head, turnFrom, stepFrom, input.include_reasoning === true, cursorAt);
    return this.stepsLevel(s, head, level, turnFrom, stepFrom, cursorAt);
  }

  private async summary(
    s: IndexedSession,
    head: Omit<GetSessionDetailsOutput, 'turns' | 'next_cursor' | 'hint'>,
    turnFrom: number,
    childFrom: number,
    withLedger: boolean,
    cursorAt: (t: number, st?: number, c?: number) => string,
  ): Promise<GetSessionDetailsOutput> {
    const b = s.builder;
    // Built in the order a reader wants the keys: header, stats, children, turns, cursor, hint.
    const out = { ...head } as GetSessionDetailsOutput;
    const budget = BUDGETS.summary;
    // Room for the cursor, the hint and its size note, each twice (structured and text).
    let used = costOf(out) + 1500;
    const notes: string[] = [];
    if (turnFrom === 0 && childFrom === 0) {
      out.stats = {
        total_turns: b.humanTurns,
        total_tokens: b.tokens.total,
        duration_seconds: durationSeconds(s.start, s.end),
        tokens: tokensOut(b.tokens),
        tool_calls: b.toolCalls.length,
        failed_tool_calls: b.failedCalls,
        events: b.eventCount,
        malformed_lines: this.malformedLines(s),
        models: s.meta.models,
        git_branch: s.meta.gitBranch,
        version: s.meta.version,
        kind: s.kind,
        parent_id: s.parentId,
        project_path: s.projectRoot,
        project_hash: s.projectHash,
        subagents: s.children.length,
      };
      used += costOf(out.stats);
      if (withLedger) {
        // At most a quarter of the page; the rest is in the ledger's own tools.
        const all = await this.ledgerFor(s, 20);
        out.ledger = [];
        let room = budget / 4;
        for (const a of all) {
          const item = { ...a, title: clip(redactText(a.title), 200) };
          const cost = costOf(item);
          if (cost > room) break;
          room -= cost;
          used += cost;
          out.ledger.push(item);
        }
        if (out.ledger.length < all.length) notes.push(`${out.ledger.length} of ${all.length}${all.length >= 20 ? '+' : ''} ledger records shown; the progress tools (search_logs) list them all.`);
      }
    }
    // Sub-agents before the turns, on as many pages as they need, leaving room for a few turns.
    let childCursor: string | null = null;
    if (turnFrom === 0) {
      const kids = s.children.map((id) => this.index.get(id)).filter((c): c is IndexedSession => c !== undefined).slice(childFrom);
      if (kids.length > 0) out.children = [];
      for (const c of kids) {
        const { parent_id: _p, snippet: _s, models: _m, git_branch: _g, project_path: _pp, project_hash: _ph, provider: _pr, ...rest } = this.listing(c);
        const cost = costOf(rest);
        if (out.children!.length > 0 && used + cost > budget - 2_500) {
          childCursor = cursorAt(0, 0, childFrom + out.children!.length);
          notes.push(`Sub-agents ${childFrom + 1}-${childFrom + out.children!.length} of ${s.children.length} shown; the next page has the rest, then the turns.`);
          break;
        }
        used += cost;
        out.children!.push(rest);
      }
    }
    if (childCursor) {
      out.turns = [];
      out.next_cursor = childCursor;
      out.hint = `${notes.join(' ')} Call again with cursor=next_cursor.`;
      return withSize(out);
    }
    out.turns = [];
    out.next_cursor = null;
    out.hint = '';
    const turns = b.turns.slice(turnFrom);
    for (const t of turns) {
      const item = {
        id: `turn-${t.index}`,
        turn_index: t.index,
        timestamp: t.timestamp,
        user_message: t.userMessage,
        ...(t.human ? {} : { prompted_by: t.userMessage === null ? 'none' : 'agent' }),
        step_count: t.steps.length,
        tool_calls: t.toolCalls,
        failed_tools: t.failed,
        stats: { input_tokens: t.tokens.input, output_tokens: t.tokens.output, total_tokens: t.tokens.total },
      };
      const cost = costOf(item);
      if (out.turns.length > 0 && used + cost > budget) {
        out.next_cursor = cursorAt(t.index);
        break;
      }
      used += cost;
      out.turns.push(item);
    }
    out.hint = `${notes.length > 0 ? `${notes.join(' ')} ` : ''}Use detail_level='turns' to see tool execution summaries, analyze_session for failures and loops.${out.next_cursor ? ' More turns: call again with cursor=next_cursor.' : ''}`;
    return withSize(out);
  }

  private turnsLevel(
    s: IndexedSession,
    head: Omit<GetSessionDetailsOutput, 'turns' | 'next_cursor' | 'hint'>,
    turnFrom: number,
    stepFrom: number,
    reasoning: boolean,
    cursorAt: (t: number, st?: number) => string,
  ): GetSessionDetailsOutput {
    const b = s.builder;
    const out: GetSessionDetailsOutput = { ...head, turns: [], next_cursor: null, hint: '' };
    // Room for the cursor, the hint and its size note, each twice (structured and text).
    let used = costOf(out) + 1500;
    const stepOut = (st: StepInfo) => {
      const failed = st.toolCalls.filter((i) => b.toolCalls[i]!.status === 'error').length;
      return {
        step_index: st.index,
        timestamp: st.timestamp,
        summary: stepSummary(st, b.toolCalls),
        tool_calls: st.toolCalls.length,
        failed_tools: failed,
        tokens: { input: st.tokens.input, output: st.tokens.output },
        ...(reasoning && st.reasoning ? { reasoning: st.reasoning } : {}),
        first_event_index: st.firstEvent,
      };
    };
    outer: for (const t of b.turns.slice(turnFrom)) {
      const first = t.index === turnFrom ? stepFrom : 0;
      const steps = t.steps.slice(first).map(stepOut);
      const item = { turn_index: t.index, timestamp: t.timestamp, user_message: t.userMessage, steps, outcome: outcomeOf(t), key_actions: keyActions(t, b.toolCalls) };
      const cost = costOf(item);
      if (used + cost <= BUDGETS.turns) {
        used += cost;
        out.turns.push(item);
        continue;
      }
      if (out.turns.length > 0) {
        out.next_cursor = cursorAt(t.index);
        break;
      }
      // One turn larger than a page: as many of its steps as fit, the rest on the next page.
      const partial = { ...item, steps: [] as typeof steps };
      used += costOf(partial);
      for (const st of steps) {
        const c = costOf(st);
        if (partial.steps.length > 0 && used + c > BUDGETS.turns) {
          out.turns.push(partial);
          out.next_cursor = cursorAt(t.index, st.step_index);
          break outer;
        }
        used += c;
        partial.steps.push(st);
      }
      out.turns.push(partial);
    }
    out.hint = `Use detail_level='steps' for messages and payloads (cut to ${STEP_TEXT} characters), get_event_details(session_id, event_index) for one event.${out.next_cursor ? ' More turns: call again with cursor=next_cursor.' : ''}`;
    return withSize(out);
  }

  private async stepsLevel(
    s: IndexedSession,
    head: Omit<GetSessionDetailsOutput, 'turns' | 'next_cursor' | 'hint'>,
    level: 'steps' | 'full',
    turnFrom: number,
    stepFrom: number,
    cursorAt: (t: number, st?: number) => string,
  ): Promise<GetSessionDetailsOutput> {
    const limit = level === 'steps' ? STEP_TEXT : Number.POSITIVE_INFINITY;
    const budget = level === 'steps' ? BUDGETS.steps : BUDGETS.full;
    const cut = (v: unknown): unknown => (limit === Number.POSITIVE_INFINITY ? redactValue(v) : clipDeep(redactValue(v), limit));
    const cutText = (v: string): string => (limit === Number.POSITIVE_INFINITY ? redactText(v) : clip(redactText(v), limit));
    type ToolOut = { event_index: number; call: { name: string; arguments: unknown }; result: { event_index: number; content: unknown; is_error: boolean; status: string; exit_code?: number } | null };
    type StepOut = { step_index: number; timestamp: string | null; first_event_index: number; reasoning: { text: string } | null; messages: string[]; tools: ToolOut[]; notes: string[]; tokens: { input: number; output: number } };
    type TurnOut = { turn_index: number; timestamp: string | null; user_message: string | null; steps: StepOut[]; notes: string[] };
    const out: GetSessionDetailsOutput = { ...head, turns: [], next_cursor: null, hint: '' };
    let used = costOf(out) + 800;
    let current: TurnOut | undefined;
    let step: StepOut | undefined;
    const calls = new Map<string, ToolOut>();
    let pageSteps = 0;
    let full = false;
    let nextAt: { t: number; st: number } | undefined;
    const b = s.builder;
    const note = (list: string[], text: string): void => {
      if (list.length < 20) list.push(clip(redactText(text), STEP_TEXT));
    };

    /** Closes the open step: it stays on the page if it fits, else the page ends before it. */
    const closeStep = (): void => {
      if (!current || !step) return;
      const c = costOf(step);
      if (used + c > budget) {
        if (pageSteps === 0) {
          // A single step larger than a page: its longest texts are cut to fit.
          shrinkToFit(step, budget - used - 300);
          used += costOf(step);
          current.steps.push(step);
          pageSteps++;
          nextAt = { t: current.turn_index, st: step.step_index + 1 };
        } else {
          nextAt = { t: current.turn_index, st: step.step_index };
        }
        full = true;
      } else {
        used += c;
        current.steps.push(step);
        pageSteps++;
      }
      step = undefined;
    };
    const closeTurn = (): void => {
      closeStep();
      if (current && (!full || current.steps.length > 0)) out.turns.push(current);
      current = undefined;
    };

    await this.index.scanEvents(s, (ev) => {
      if (ev.turn < turnFrom) return undefined;
      if (ev.turn === turnFrom && stepFrom > 0 && (ev.step === null || ev.step < stepFrom)) return undefined;
      if (!current || current.turn_index !== ev.turn) {
        closeTurn();
        if (full) return false;
        const info = b.turns[ev.turn];
        current = { turn_index: ev.turn, timestamp: info?.timestamp ?? ev.timestamp, user_message: null, steps: [], notes: [] };
        used += costOf(current);
      }
      if (ev.type === 'User') {
        current.user_message = clip(cutText((ev.payload as { text: string }).text), 20_000);
        used += costOf(current.user_message);
        return undefined;
      }
      if (ev.step === null) {
        if (ev.type === 'Notification') note(current.notes, `${(ev.payload as { kind: string }).kind}: ${(ev.payload as { text: string }).text}`);
        return undefined;
      }
      if (!step || step.step_index !== ev.step) {
        closeStep();
        if (full) return false;
        const info = b.turns[ev.turn]?.steps[ev.step];
        step = {
          step_index: ev.step,
          timestamp: info?.timestamp ?? ev.timestamp,
          first_event_index: ev.index,
          reasoning: null,
          messages: [],
          tools: [],
          notes: [],
          tokens: { input: info?.tokens.input ?? 0, output: info?.tokens.output ?? 0 },
        };
      }
      switch (ev.type as EventType) {
        case 'Reasoning': {
          const text = cutText((ev.payload as { text: string }).text);
          step.reasoning = step.reasoning ? { text: `${step.reasoning.text}\n${text}` } : { text };
          break;
        }
        case 'Message':
          step.messages.push(cutText((ev.payload as { text: string }).text));
          break;
        case 'ToolCall': {
          const p = ev.payload as { call_id: string; name: string; arguments: unknown };
          const tool: ToolOut = { event_index: ev.index, call: { name: p.name, arguments: cut(p.arguments) }, result: null };
          step.tools.push(tool);
          calls.set(p.call_id, tool);
          break;
        }
        case 'ToolResult': {
          const p = ev.payload as { call_id: string; output: unknown; is_error: boolean; status: string; exit_code?: number };
          const tool = calls.get(p.call_id);
          const result = { event_index: ev.index, content: cut(p.output), is_error: p.is_error, status: p.status, ...(p.exit_code !== undefined ? { exit_code: p.exit_code } : {}) };
          if (tool && step.tools.includes(tool)) tool.result = result;
          else note(step.notes, `result of ${p.call_id}: ${textOf(p.output)}`);
          break;
        }
        case 'Notification':
          note(step.notes, `${(ev.payload as { kind: string }).kind}: ${(ev.payload as { text: string }).text}`);
          break;
        default:
          break;
      }
      return undefined;
    });
    closeTurn();
    if (nextAt) out.next_cursor = cursorAt(nextAt.t, nextAt.st);
    out.hint =
      level === 'steps'
        ? `Payloads are cut to ${STEP_TEXT} characters. Use search_event_previews(query, session_id) to find specific content, get_event_details(session_id, event_index) for one event in full, or detail_level='full'.`
        : 'Payloads are uncut except where one step alone would pass the page cap. Use get_event_details(session_id, event_index) to read one event whole, search_event_previews to find events.';
    if (out.next_cursor) out.hint += ' More: call again with cursor=next_cursor.';
    return withSize(out);
  }

  // ---- analyze_session -----------------------------------------------------------------------

  async analyzeSession(raw: unknown): Promise<AnalyzeSessionOutput> {
    const input = this.parse(analyzeSessionInput, raw);
    await this.index.refresh();
    const s = await this.find(input.session_id);
    const b = s.builder;
    const a = this.analysis(s);
    const includeFailures = input.include_failures !== false;
    const includeLoops = input.include_loops === true;
    const insights = a.insights.filter((i) => (i.lens !== 'Failures' || includeFailures) && (i.lens !== 'Loops' || includeLoops)).slice(0, 25);
    const out: AnalyzeSessionOutput = {
      session_id: s.id,
      score: a.score,
      insights,
      score_breakdown: a.breakdown,
      summary: {
        event_counts: {
          user_messages: b.counts.User,
          assistant_messages: b.counts.Message,
          reasoning: b.counts.Reasoning,
          tool_calls: b.counts.ToolCall,
          tool_results: b.counts.ToolResult,
          token_usage: b.counts.TokenUsage,
          notifications: b.counts.Notification,
        },
        turns: b.humanTurns,
        tool_calls: b.toolCalls.length,
        failed_tool_calls: b.failedCalls,
        nonzero_exits: b.nonZeroExits,
        longest_identical_run: a.longestRun,
        loop_count: a.loops.length,
        ...(includeLoops ? { loops: a.loops.slice(0, 10) } : {}),
        interruptions: b.interruptions,
        compactions: b.compactions,
        tokens: tokensOut(b.tokens),
        malformed_lines: this.malformedLines(s),
      },
      hint: `Use get_session_details(session_id, detail_level='turns') to see the turns named here, get_event_details(session_id, event_index) for a failure's full output.${!includeLoops && a.loops.length > 0 ? ' include_loops=true lists the loops.' : ''}`,
    };
    while (resultBytes(out) > BUDGETS.analyze && out.insights.length > 1) out.insights.pop();
    return withSize(out);
  }

  // ---- search ----------------------------------------------------------------------------------

  private async search(
    input: { query: string; provider?: Provider | undefined; event_type?: EventType | undefined; session_id?: string | undefined; cursor?: string | undefined; limit?: number | undefined },
    kind: string,
    budget: number,
    itemFor: (ev: TraceEvent, s: IndexedSession) => EventMatch & { payload?: unknown },
  ): Promise<{ matches: (EventMatch & { payload?: unknown })[]; next: string | null; scanned: number; total: number; timedOut: boolean }> {
    await this.index.refresh();
    const only = input.session_id ? await this.find(input.session_id) : undefined;
    const needle = input.query.toLowerCase();
    const rawFirst = !/[[\]]/.test(needle) && !'[redacted]'.includes(needle);
    const query = fingerprint({ q: needle, p: input.provider, t: input.event_type, s: only?.id });
    const pos = input.cursor ? decodeCursor(kind, query, input.cursor) : undefined;
    if (pos && ((pos.s !== null && typeof pos.s !== 'string') || typeof pos.i !== 'string' || typeof pos.e !== 'number')) throw new TraceError('invalid_cursor', 'Invalid cursor: it is not one this server made. Omit cursor to start over.', {});
    const after = pos ? { start: pos.s as string | null, id: pos.i as string, event: pos.e as number } : undefined;
    const limit = input.limit ?? 10;
    const sessions = (only ? [only] : [...this.index.allSessions].sort(compareSessions)).filter((s) => !input.provider || s.provider === input.provider);
    const todo = after ? sessions.filter((s) => compareSessions(s, after) >= 0) : sessions;
    const deadline = (this.deps.now ?? Date.now)() + (this.deps.searchBudgetMs ?? SEARCH_BUDGET_MS);
    const matches: (EventMatch & { payload?: unknown })[] = [];
    let used = 1500;
    let next: { s: string | null; i: string; e: number } | null = null;
    let scanned = 0;
    let timedOut = false;
    let seen = 0;
    for (const s of todo) {
      const fromEvent = after && s.id === after.id ? after.event + 1 : 0;
      if (fromEvent >= s.builder.eventCount && s.builder.eventCount > 0) {
        scanned++;
        continue;
      }
      let stop = false;
      await this.index.scanEvents(s, (ev) => {
        if (ev.index < fromEvent) return undefined;
        if (++seen % 256 === 0 && (this.deps.now ?? Date.now)() > deadline) {
          timedOut = true;
          next = { s: s.start, i: s.id, e: ev.index - 1 };
          stop = true;
          return false;
        }
        if (input.event_type && ev.type !== input.event_type) return undefined;
        // Cheap test on the raw payload first: redaction only puts "[REDACTED]" in place of
        // secrets, so unless the needle could overlap that marker, no raw match means no match.
        if (rawFirst && !valueContains(ev.payload, needle)) return undefined;
        if (!valueContains(redactValue(ev.payload), needle)) return undefined;
        if (matches.length >= limit) {
          next = { s: s.start, i: s.id, e: ev.index - 1 };
          stop = true;
          return false;
        }
        const item = itemFor(ev, s);
        const cost = costOf(item);
        if (matches.length > 0 && used + cost > budget) {
          next = { s: s.start, i: s.id, e: ev.index - 1 };
          stop = true;
          return false;
        }
        used += cost;
        matches.push(item);
        return undefined;
      });
      if (stop) break;
      scanned++;
      if ((this.deps.now ?? Date.now)() > deadline && scanned < todo.length) {
        timedOut = true;
        const following = todo[scanned]!;
        next = { s: following.start, i: following.id, e: -1 };
        break;
      }
    }
    const position = next as { s: string | null; i: string; e: number } | null;
    if (timedOut && matches.length === 0 && position) {
      throw new TraceError(
        'search_timeout',
        `Search stopped after ${Math.round((this.deps.searchBudgetMs ?? SEARCH_BUDGET_MS) / 1000)} s with no match in ${scanned} of ${todo.length} sessions. Call again with the cursor in details to continue, or narrow with session_id, provider or event_type.`,
        { scanned_sessions: scanned, total_sessions: todo.length, cursor: encodeCursor(kind, query, position) },
        true,
      );
    }
    return { matches, next: position ? encodeCursor(kind, query, position) : null, scanned, total: todo.length, timedOut };
  }

  private matchOf(ev: TraceEvent, s: IndexedSession): EventMatch {
    return { session_id: s.id, event_index: ev.index, timestamp: ev.timestamp, event_type: ev.type, turn_index: ev.turn, provider: s.provider, preview: previewOf(ev) };
  }

  async searchEventPreviews(raw: unknown): Promise<SearchEventPreviewsOutput> {
    const input = this.parse(searchEventPreviewsInput, raw);
    const r = await this.search(input, 'search_event_previews', BUDGETS.search, (ev, s) => this.matchOf(ev, s));
    let hint = r.matches.length > 0 ? 'Use get_event_details(session_id, event_index) to retrieve an event\'s full payload.' : `No events match "${clip(input.query, 60)}".`;
    if (r.timedOut) hint += ` The search stopped at its time limit after ${r.scanned} of ${r.total} sessions; call again with cursor=next_cursor to search the rest.`;
    else if (r.next) hint += ' More matches: call again with cursor=next_cursor.';
    return withSize({ data: { matches: r.matches }, pagination: { total_in_page: r.matches.length, next_cursor: r.next, has_more: r.next !== null }, hint });
  }

  async searchEvents(raw: unknown): Promise<SearchEventsOutput> {
    const input = this.parse(searchEventsInput, raw);
    const r = await this.search({ ...input, query: input.pattern }, 'search_events', BUDGETS.search, (ev, s) => ({
      ...this.matchOf(ev, s),
      ...(input.include_full_payload ? { payload: clipDeep(redactValue(ev.payload), 2000) } : {}),
    }));
    return withSize({
      matches: r.matches,
      has_more: r.next !== null,
      next_cursor: r.next,
      deprecated: true as const,
      hint: 'Deprecated: use search_event_previews(query) to find events, then get_event_details(session_id, event_index) for a full payload.',
    });
  }

  // ---- get_event_details ---------------------------------------------------------------------

  async getEventDetails(raw: unknown): Promise<GetEventDetailsOutput> {
    const input = this.parse(getEventDetailsInput, raw);
    await this.index.refresh();
    const s = await this.find(input.session_id);
    const count = s.builder.eventCount;
    if (input.event_index >= count) {
      throw new TraceError('invalid_event_index', `Event index ${input.event_index} out of bounds for session ${s.id} (max: ${count - 1})`, {
        session_id: s.id,
        requested_index: input.event_index,
        max_index: count - 1,
      });
    }
    let found: TraceEvent | undefined;
    await this.index.scanEvents(s, (ev) => {
      if (ev.index === input.event_index) {
        found = ev;
        return false;
      }
      return undefined;
    });
    const ev = found as TraceEvent | undefined;
    if (!ev) throw new TraceError('invalid_event_index', `Event ${input.event_index} of session ${s.id} is no longer in its transcript (the file changed); list the session again.`, { session_id: s.id, requested_index: input.event_index, max_index: count - 1 }, true);
    const payload = redactValue(ev.payload) as unknown;
    const base = { session_id: s.id, event_index: ev.index, timestamp: ev.timestamp, event_type: ev.type, turn_index: ev.turn, step_index: ev.step };
    const query = fingerprint({ id: s.id, e: ev.index });
    if (input.cursor) return this.eventChunk(base, payload, decodeCursor('get_event_details', query, input.cursor), query);
    const cutPayload = structuredClone(payload);
    const truncated = shrinkToFit(cutPayload, BUDGETS.details - costOf({ ...base, next_cursor: 'x'.repeat(400), hint: 'x'.repeat(500), truncated: [{ path: 'x'.repeat(40), shown: 0, total: 0 }] }));
    if (truncated.length === 0) {
      return withSize({ ...base, payload, next_cursor: null, hint: 'This is the whole event. Use search_event_previews to find related events.' });
    }
    const fields = truncated.map((t) => [t.path, t.shown] as const);
    return withSize({
      ...base,
      payload: cutPayload,
      truncated,
      next_cursor: encodeCursor('get_event_details', query, { f: fields, i: 0, o: truncated[0]!.shown }),
      hint: `The payload is larger than one response (${kb(jsonBytes(payload))}); its longest texts are cut. Call again with cursor=next_cursor to read the rest of ${truncated.map((t) => t.path).join(', ')}.`,
    });
  }

  /** The next part of a payload's cut texts: the cursor lists the cut fields and where to go on. */
  private eventChunk(
    base: Omit<GetEventDetailsOutput, 'next_cursor' | 'hint'>,
    payload: unknown,
    pos: Record<string, unknown>,
    query: string,
  ): GetEventDetailsOutput {
    const fields = Array.isArray(pos.f) ? (pos.f as unknown[]).filter((f): f is [string, number] => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number') : [];
    const i = typeof pos.i === 'number' ? pos.i : -1;
    const offset = typeof pos.o === 'number' ? pos.o : -1;
    const field = fields[i];
    const original = field ? getAt(payload, field[0]) : undefined;
    if (!field || typeof original !== 'string' || offset < 0 || offset > original.length) {
      throw new TraceError('invalid_cursor', 'Invalid cursor: it does not point into this event\'s payload. Omit cursor to read the event again.', { session_id: base.session_id, event_index: base.event_index });
    }
    const room = BUDGETS.details - 2_500;
    let end = Math.min(original.length, offset + Math.floor(room / 2));
    let text = original.slice(offset, end);
    // Escaping can double a character's cost (or more, for control characters): shrink until it fits.
    while (costOf(text) > room && end > offset + 1) {
      end = offset + Math.floor(((end - offset) * room) / costOf(text)) - 1;
      text = original.slice(offset, end);
    }
    const next = end < original.length ? { f: fields, i, o: end } : i + 1 < fields.length ? { f: fields, i: i + 1, o: fields[i + 1]![1] } : null;
    return withSize({
      ...base,
      chunk: { path: field[0], offset, total: original.length, text },
      next_cursor: next ? encodeCursor('get_event_details', query, next) : null,
      hint: next ? 'More of this payload: call again with cursor=next_cursor.' : 'This is the end of the payload.',
    });
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
      children: s.children.map((id) => this.index.get(id)).filter((c): c is IndexedSession => c !== undefined).map((c) => this.listing(c)),
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
    let found: TraceEvent | undefined;
    await this.index.scanEvents(s, (ev) => {
      if (ev.index !== eventIndex) return undefined;
      found = ev;
      return false;
    });
    const ev = found as TraceEvent | undefined;
    return ev ? { type: ev.type, timestamp: ev.timestamp, payload: clipDeep(redactValue(ev.payload), maxChars) } : undefined;
  }

  /** Search across every session for people (the command palette): previews, newest sessions first. */
  async quickSearch(text: string, limit = 30): Promise<EventMatch[]> {
    if (text.trim() === '') return [];
    const r = await this.search({ query: text.trim().slice(0, 500), limit }, 'quick_search', 200_000, (ev, s) => this.matchOf(ev, s));
    return r.matches;
  }
}
