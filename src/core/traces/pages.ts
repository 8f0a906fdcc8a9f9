// What every traces tool page shares: the context a tool runs in (the index and the service's
// session lookups), the whole-result budgets per tool and level, input parsing into the specification's
// invalid_parameter, and the size note hints end with. Measuring and cutting are the shared
// response budget's (core/responseBudget.ts).

import { isLedgerError } from '../errors';
import type { Logger } from '../log';
import { kb, RESPONSE_CAP, resultBytes } from '../responseBudget';
import { parseInput } from '../validation';
import type { Analysis } from './analysis';
import { TraceError } from './errors';
import type { TraceHomes } from './homes';
import type { LedgerActivity, LedgerActivitySource } from './ledgerLink';
import type { SessionListing } from './schemas';
import type { IndexedSession, TraceIndex } from './traceIndex';
import type { TokenCounts } from './types';

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

/** A hint names the response size from this size on. */
const SIZE_NOTE_FROM = 10_000;

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

/** What the tool functions (indexQueries, detailLevels, analyzeSession, search, eventDetails) reach through. */
export interface TraceContext {
  readonly index: TraceIndex;
  readonly deps: TraceServiceDeps;
  /** A session by id or unique prefix (rescanning once on a miss). */
  find(idOrPrefix: string): Promise<IndexedSession>;
  /** The session's analysis, cached while its events stay the same. */
  analysis(s: IndexedSession): Analysis;
  listing(s: IndexedSession): SessionOverview;
  malformedLines(s: IndexedSession): number;
  ledgerFor(s: IndexedSession, limit: number): Promise<LedgerActivity[]>;
  describeHomes(): string;
}

export function parseTraceInput<T extends Parameters<typeof parseInput>[0]>(schema: T, raw: unknown): ReturnType<typeof parseInput<T>> {
  try {
    return parseInput(schema, raw);
  } catch (err) {
    if (isLedgerError(err) && err.code === 'invalid_argument') throw new TraceError('invalid_parameter', err.message, {});
    throw err;
  }
}

function sizeNote(bytes: number): string {
  return bytes >= SIZE_NOTE_FROM ? ` This response is ${kb(bytes)} (cap ${kb(RESPONSE_CAP)}).` : '';
}

/** Adds the size to the hint once the data is final. */
export function withSize<T extends { hint: string }>(data: T): T {
  const bytes = resultBytes(data);
  if (bytes >= SIZE_NOTE_FROM) data.hint += sizeNote(bytes + 64);
  return data;
}

export function durationSeconds(start: string | null, end: string | null): number | null {
  if (!start || !end) return null;
  const d = (Date.parse(end) - Date.parse(start)) / 1000;
  return Number.isFinite(d) ? Math.round(d) : null;
}

export function tokensOut(t: TokenCounts): TokenCounts {
  return { input: t.input, output: t.output, cache_creation: t.cache_creation, cache_read: t.cache_read, reasoning: t.reasoning, total: t.total };
}

export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
