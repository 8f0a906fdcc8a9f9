// The traces tools that query the index: list_sessions (sessions newest first, filtered and paged
// by an opaque cursor) and get_project_info (the folders sessions ran in); and a session's listing
// row, which the tree view and the other tools show too.

import * as path from 'node:path';
import { parseIsoDate } from '../validation';
import { clip, costOf } from '../responseBudget';
import { decodeCursor, encodeCursor, fingerprint } from './cursor';
import { TraceError } from './errors';
import { BUDGETS, durationSeconds, parseTraceInput, withSize, type SessionOverview, type TraceContext } from './pages';
import { redactText } from './redact';
import { getProjectInfoInput, listSessionsInput, type GetProjectInfoOutput, type ListSessionsOutput, type SessionListing } from './schemas';
import { compareSessions, type IndexedSession } from './traceIndex';

export function listingOf(ctx: TraceContext, s: IndexedSession): SessionOverview {
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
    score: ctx.analysis(s).score,
    models: s.meta.models,
    git_branch: s.meta.gitBranch,
    subagents: s.children.length,
    parent_id: s.parentId,
  };
}

export async function listSessions(ctx: TraceContext, raw: unknown): Promise<ListSessionsOutput> {
  const input = parseTraceInput(listSessionsInput, raw);
  const hash = input.project_hash?.trim().toLowerCase() || undefined;
  if (hash !== undefined && !/^[0-9a-f]{4,64}$/.test(hash))
    throw new TraceError('invalid_parameter', 'project_hash must be 4 to 64 hexadecimal characters, as get_project_info reports it', { project_hash: input.project_hash });
  const since = input.since ? parseIsoDate(input.since) : undefined;
  const untilParsed = input.until ? parseIsoDate(input.until) : undefined;
  const until = untilParsed ? (untilParsed.dateOnly ? new Date(Date.parse(untilParsed.iso) + 86_400_000 - 1).toISOString() : untilParsed.iso) : undefined;
  const query = fingerprint({ provider: input.provider, hash, since: since?.iso, until });
  const after = input.cursor ? sessionPosition(decodeCursor('list_sessions', query, input.cursor)) : undefined;
  await ctx.index.refresh();
  const limit = input.limit ?? 10;
  const matching = ctx.index.sessions.filter(
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
    const { parent_id: _parent, ...item } = ctx.listing(s);
    const cost = costOf(item);
    if (sessions.length > 0 && used + cost > BUDGETS.list) break;
    used += cost;
    sessions.push(item);
  }
  const hasMore = matching.length > sessions.length;
  const last = sessions.at(-1);
  const next = hasMore && last ? encodeCursor('list_sessions', query, { s: last.start_time, i: last.id }) : null;
  let hint =
    sessions.length === 0
      ? 'No sessions match. Use get_project_info to see the indexed projects, or drop filters.'
      : "Use get_session_details(session_id, detail_level='summary') for a session's turns, analyze_session for its health.";
  if (next) hint += ' More sessions: call again with cursor=next_cursor.';
  return withSize({ sessions, total_in_page: sessions.length, has_more: hasMore, next_cursor: next, hint });
}

function sessionPosition(p: Record<string, unknown>): { start: string | null; id: string } {
  if ((p.s !== null && typeof p.s !== 'string') || typeof p.i !== 'string')
    throw new TraceError('invalid_cursor', 'Invalid cursor: it is not one this server made. Omit cursor to start over.', {});
  return { start: p.s as string | null, id: p.i };
}

export async function getProjectInfo(ctx: TraceContext, raw: unknown): Promise<GetProjectInfoOutput> {
  const input = parseTraceInput(getProjectInfoInput, raw);
  const after = input.cursor ? decodeCursor('get_project_info', 'all', input.cursor) : undefined;
  await ctx.index.refresh();
  const groups = new Map<string, { hash: string; root_path: string | null; session_count: number; last_activity: string | null; providers: Record<string, number> }>();
  for (const s of ctx.index.sessions) {
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
    hint:
      projects.length === 0
        ? `No transcripts found under ${ctx.describeHomes()}.`
        : `Use list_sessions(project_hash=...) to list a project's sessions.${next ? ' More projects: call again with cursor=next_cursor.' : ''}`,
  });
}
