// Event search: search_event_previews (and the deprecated search_events, and the command palette's
// quick search) scan sessions newest first for events whose values contain a text, within a page
// budget and a time limit, continued by an opaque cursor.

import { clip, clipDeep, costOf } from '../responseBudget';
import { decodeCursor, encodeCursor, fingerprint } from './cursor';
import { TraceError } from './errors';
import { BUDGETS, parseTraceInput, textOf, withSize, type TraceContext } from './pages';
import { redactValue } from './redact';
import { searchEventPreviewsInput, searchEventsInput, type EventMatch, type SearchEventPreviewsOutput, type SearchEventsOutput } from './schemas';
import { compareSessions, type IndexedSession } from './traceIndex';
import type { EventType, Provider, TraceEvent } from './types';

const PREVIEW_TEXT = 300;
const ARG_TEXT = 100;
const SEARCH_BUDGET_MS = 10_000;

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

/** The redacted preview search results show for an event (seed: ~300 characters by type). */
export function previewOf(ev: TraceEvent): Record<string, unknown> {
  switch (ev.type) {
    case 'ToolCall': {
      const p = redactValue(ev.payload);
      return { tool: p.name, arguments: clipDeep(p.arguments, ARG_TEXT) };
    }
    case 'ToolResult': {
      const p = redactValue(ev.payload);
      return {
        tool: p.name,
        preview: clip(textOf(p.output), PREVIEW_TEXT),
        is_error: p.is_error,
        status: p.status,
        ...(typeof p.exit_code === 'number' ? { exit_code: p.exit_code } : {}),
      };
    }
    case 'TokenUsage': {
      const p = redactValue(ev.payload);
      return { input: p.input, output: p.output, total: p.total };
    }
    case 'Notification': {
      const p = redactValue(ev.payload);
      return { kind: p.kind, text: clip(textOf(p.text), PREVIEW_TEXT) };
    }
    default:
      return { text: clip(textOf(redactValue(ev.payload).text), PREVIEW_TEXT) };
  }
}

export async function search(
  ctx: TraceContext,
  input: {
    query: string;
    provider?: Provider | undefined;
    event_type?: EventType | undefined;
    session_id?: string | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  },
  kind: string,
  budget: number,
  itemFor: (ev: TraceEvent, s: IndexedSession) => EventMatch & { payload?: unknown },
): Promise<{ matches: (EventMatch & { payload?: unknown })[]; next: string | null; scanned: number; total: number; timedOut: boolean }> {
  await ctx.index.refresh();
  const only = input.session_id ? await ctx.find(input.session_id) : undefined;
  const needle = input.query.toLowerCase();
  const rawFirst = !/[[\]]/.test(needle) && !'[redacted]'.includes(needle);
  const query = fingerprint({ q: needle, p: input.provider, t: input.event_type, s: only?.id });
  const pos = input.cursor ? decodeCursor(kind, query, input.cursor) : undefined;
  if (pos && ((pos.s !== null && typeof pos.s !== 'string') || typeof pos.i !== 'string' || typeof pos.e !== 'number'))
    throw new TraceError('invalid_cursor', 'Invalid cursor: it is not one this server made. Omit cursor to start over.', {});
  const after = pos ? { start: pos.s as string | null, id: pos.i as string, event: pos.e as number } : undefined;
  const limit = input.limit ?? 10;
  const sessions = (only ? [only] : [...ctx.index.allSessions].sort(compareSessions)).filter((s) => !input.provider || s.provider === input.provider);
  const todo = after ? sessions.filter((s) => compareSessions(s, after) >= 0) : sessions;
  const deadline = (ctx.deps.now ?? Date.now)() + (ctx.deps.searchBudgetMs ?? SEARCH_BUDGET_MS);
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
    await ctx.index.scanEvents(s, (ev) => {
      if (ev.index < fromEvent) return undefined;
      if (++seen % 256 === 0 && (ctx.deps.now ?? Date.now)() > deadline) {
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
    if ((ctx.deps.now ?? Date.now)() > deadline && scanned < todo.length) {
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
      `Search stopped after ${Math.round((ctx.deps.searchBudgetMs ?? SEARCH_BUDGET_MS) / 1000)} s with no match in ${scanned} of ${todo.length} sessions. Call again with the cursor in details to continue, or narrow with session_id, provider or event_type.`,
      { scanned_sessions: scanned, total_sessions: todo.length, cursor: encodeCursor(kind, query, position) },
      true,
    );
  }
  return { matches, next: position ? encodeCursor(kind, query, position) : null, scanned, total: todo.length, timedOut };
}

export function matchOf(ev: TraceEvent, s: IndexedSession): EventMatch {
  return { session_id: s.id, event_index: ev.index, timestamp: ev.timestamp, event_type: ev.type, turn_index: ev.turn, provider: s.provider, preview: previewOf(ev) };
}

export async function searchEventPreviews(ctx: TraceContext, raw: unknown): Promise<SearchEventPreviewsOutput> {
  const input = parseTraceInput(searchEventPreviewsInput, raw);
  const r = await search(ctx, input, 'search_event_previews', BUDGETS.search, (ev, s) => matchOf(ev, s));
  let hint = r.matches.length > 0 ? "Use get_event_details(session_id, event_index) to retrieve an event's full payload." : `No events match "${clip(input.query, 60)}".`;
  if (r.timedOut) hint += ` The search stopped at its time limit after ${r.scanned} of ${r.total} sessions; call again with cursor=next_cursor to search the rest.`;
  else if (r.next) hint += ' More matches: call again with cursor=next_cursor.';
  return withSize({ data: { matches: r.matches }, pagination: { total_in_page: r.matches.length, next_cursor: r.next, has_more: r.next !== null }, hint });
}

export async function searchEvents(ctx: TraceContext, raw: unknown): Promise<SearchEventsOutput> {
  const input = parseTraceInput(searchEventsInput, raw);
  const r = await search(ctx, { ...input, query: input.pattern }, 'search_events', BUDGETS.search, (ev, s) => ({
    ...matchOf(ev, s),
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
