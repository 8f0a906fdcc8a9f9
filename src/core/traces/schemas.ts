// Inputs and outputs of the traces toolset (AgTrace specification, README "Tools"): the specification's names (snake_case), defaults
// and limits. The descriptions are written for the model: they are product copy.

import * as z from 'zod';
import { boundedInt, flag, isoDate, optionalText, requiredText } from '../validation';
import { EVENT_TYPES, PROVIDERS } from './types';

export const DETAIL_LEVELS = ['summary', 'turns', 'steps', 'full'] as const;
export type DetailLevel = (typeof DETAIL_LEVELS)[number];

export const LIMITS = {
  sessionId: 200,
  cursor: 4000,
  query: 500,
  pageDefault: 10,
  pageMax: 50,
} as const;

function oneOf<const T extends readonly string[]>(name: string, values: T) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be one of ${values.join(', ')}`) })
    .superRefine((value, ctx) => {
      if (!(values as readonly string[]).includes(value)) ctx.addIssue({ code: 'custom', message: `${name} must be one of ${values.join(', ')}` });
    })
    .transform((value) => value as T[number])
    .meta({ enum: [...values] })
    .optional();
}

const sessionId = () =>
  requiredText('session_id', LIMITS.sessionId, { identifier: true }).describe(
    'The session: its full id, or a unique prefix of it (8 characters are usually enough). Ids come from list_sessions or search_event_previews.',
  );
const cursor = () =>
  optionalText('cursor', LIMITS.cursor, { identifier: true }).describe("Opaque token from the previous page's next_cursor, passed back unchanged. Omit for the first page.");
const provider = () =>
  oneOf('provider', PROVIDERS).describe('Only this agent: claude_code (Claude Code), codex (OpenAI Codex CLI), gemini (Gemini CLI) or vscode_copilot (VS Code Copilot Chat).');
const pageLimit = () => boundedInt('limit', 1, LIMITS.pageMax, LIMITS.pageDefault).describe('At most this many items, 1-50 (default 10). Pages may hold fewer to stay small.');

export const listSessionsInput = z
  .object({
    limit: pageLimit(),
    cursor: cursor(),
    provider: provider(),
    project_hash: optionalText('project_hash', 64, { identifier: true }).describe(
      'Only sessions of this project: its hash from get_project_info (a prefix of 4 or more characters works).',
    ),
    since: isoDate('since').describe('ISO 8601 date or date-time: only sessions still active at or after it.'),
    until: isoDate('until').describe('ISO 8601 date or date-time: only sessions started at or before it (a date alone includes that day).'),
  })
  .strict();

export const getProjectInfoInput = z.object({ cursor: cursor() }).strict();

export const getSessionDetailsInput = z
  .object({
    session_id: sessionId(),
    detail_level: oneOf('detail_level', DETAIL_LEVELS).describe(
      "summary (default, ~5-15 KB): stats and one line per turn. turns: each step's tool calls and outcome. steps: messages, reasoning and tool calls with payloads cut to 500 characters. full: payloads uncut. Every level pages with next_cursor.",
    ),
    include_reasoning: flag('include_reasoning').describe("turns level only: also show each step's reasoning, cut to 200 characters. Default false."),
    include_ledger: flag('include_ledger').describe(
      'summary level only: also list what agents recorded in the shared ledger for this project while the session ran: progress log entries, workflows, queue task events. Default false.',
    ),
    cursor: cursor(),
  })
  .strict();

export const analyzeSessionInput = z
  .object({
    session_id: sessionId(),
    include_failures: flag('include_failures').describe('List the failed tool calls per turn (default true).'),
    include_loops: flag('include_loops').describe('List loops: the same tool with the same arguments 4 or more times in a row (default false; they always count in the score).'),
  })
  .strict();

export const searchEventPreviewsInput = z
  .object({
    query: requiredText('query', LIMITS.query).describe(
      "Text to find (case-insensitive substring) in the events' values: tool names, arguments, outputs, messages; not field names.",
    ),
    limit: pageLimit(),
    cursor: cursor(),
    provider: provider(),
    event_type: oneOf('event_type', EVENT_TYPES).describe('Only this kind of event: ToolCall, ToolResult, Message, User, Reasoning, TokenUsage or Notification.'),
    session_id: optionalText('session_id', LIMITS.sessionId, { identifier: true }).describe('Only this session (full id or unique prefix).'),
  })
  .strict();

export const getEventDetailsInput = z
  .object({
    session_id: sessionId(),
    event_index: z
      .number({ error: (issue) => (issue.input === undefined ? 'event_index is required' : 'event_index must be a number') })
      .superRefine((value, ctx) => {
        if (!Number.isInteger(value) || value < 0) ctx.addIssue({ code: 'custom', message: 'event_index must be a whole number, 0 or more' });
      })
      .meta({ type: 'integer', minimum: 0 })
      .describe("The event's index in its session, as search_event_previews or get_session_details report it."),
    cursor: cursor().describe('For a payload too large for one response: next_cursor from the previous call, to read the rest of its longest text.'),
  })
  .strict();

export const searchEventsInput = z
  .object({
    pattern: requiredText('pattern', LIMITS.query).describe("Text to find (case-insensitive substring) in the events' values, not field names."),
    limit: pageLimit(),
    cursor: cursor(),
    provider: provider(),
    event_type: oneOf('event_type', EVENT_TYPES).describe('Only this kind of event.'),
    session_id: optionalText('session_id', LIMITS.sessionId, { identifier: true }).describe('Only this session (full id or unique prefix).'),
    include_full_payload: flag('include_full_payload').describe("Also return each match's payload (long texts cut to 2,000 characters). Default false."),
  })
  .strict();

const nullableString = z.string().nullable();
const tokens = z.object({
  input: z.number(),
  output: z.number(),
  cache_creation: z.number(),
  cache_read: z.number(),
  reasoning: z.number(),
  total: z.number(),
});

const pagination = {
  next_cursor: nullableString.describe('Pass back as cursor for the next page; null on the last page.'),
  hint: z.string().describe('What to call next, and the response size when it is large.'),
};

export const sessionListing = z.object({
  id: z.string().describe('Full session id (a unique prefix is accepted everywhere)'),
  provider: z.enum(PROVIDERS),
  kind: z.string().describe('main, or subagent / review for child sessions'),
  project_hash: nullableString.describe('sha256 of the project folder'),
  project_path: nullableString,
  title: nullableString,
  snippet: z.string().describe('The first prompt, at most 200 characters'),
  start_time: nullableString,
  end_time: nullableString,
  duration_seconds: z.number().nullable(),
  turn_count: z.number().int().describe('Prompts typed by a person'),
  tool_calls: z.number().int(),
  failed_tool_calls: z.number().int(),
  total_tokens: z.number(),
  score: z.number().int().describe('Health 0-100 (analyze_session explains it)'),
  models: z.array(z.string()),
  git_branch: nullableString,
  subagents: z.number().int().describe('Child sessions (sub-agents, reviews); get_session_details lists them'),
});

export const listSessionsOutput = z.object({
  sessions: z.array(sessionListing),
  total_in_page: z.number().int(),
  has_more: z.boolean(),
  ...pagination,
});

export const getProjectInfoOutput = z.object({
  projects: z.array(
    z.object({
      hash: z.string(),
      root_path: nullableString,
      name: z.string(),
      session_count: z.number().int(),
      last_activity: nullableString,
      providers: z.record(z.string(), z.number()),
    }),
  ),
  total_in_page: z.number().int(),
  has_more: z.boolean(),
  ...pagination,
});

export const getSessionDetailsOutput = z.object({
  session_id: z.string(),
  detail_level: z.enum(DETAIL_LEVELS),
  provider: z.enum(PROVIDERS),
  title: nullableString,
  start_time: nullableString,
  end_time: nullableString,
  stats: z
    .looseObject({
      total_turns: z.number(),
      total_tokens: z.number(),
      duration_seconds: z.number().nullable(),
      tokens: tokens,
    })
    .optional()
    .describe('summary level'),
  children: z
    .array(z.looseObject({ id: z.string(), kind: z.string() }))
    .optional()
    .describe('summary level: sub-agent and review sessions'),
  ledger: z
    .array(z.looseObject({ toolset: z.string(), id: z.string(), title: z.string(), at: z.string() }))
    .optional()
    .describe('summary level, with include_ledger'),
  turns: z.array(z.looseObject({ turn_index: z.number().int() })),
  ...pagination,
});

const insight = z.object({
  turn_index: z.number().int().nullable(),
  severity: z.enum(['Critical', 'Warning', 'Info']),
  lens: z.enum(['Failures', 'Loops', 'TokenUsage']),
  message: z.string(),
  impact: z.number().describe('Points this took off the score'),
  event_index: z.number().int().optional(),
});

export const analyzeSessionOutput = z.object({
  session_id: z.string(),
  score: z.number().int().describe('0-100; 100 minus the impact of the insights'),
  insights: z.array(insight),
  score_breakdown: z.array(z.object({ lens: z.string(), points: z.number(), reason: z.string() })),
  summary: z.looseObject({
    event_counts: z.object({
      user_messages: z.number(),
      assistant_messages: z.number(),
      reasoning: z.number(),
      tool_calls: z.number(),
      tool_results: z.number(),
      token_usage: z.number(),
      notifications: z.number(),
    }),
  }),
  hint: z.string(),
});

const match = z.object({
  session_id: z.string(),
  event_index: z.number().int(),
  timestamp: nullableString,
  event_type: z.enum(EVENT_TYPES),
  turn_index: z.number().int(),
  provider: z.enum(PROVIDERS),
  preview: z.record(z.string(), z.unknown()),
});

export const searchEventPreviewsOutput = z.object({
  data: z.object({ matches: z.array(match) }),
  pagination: z.object({ total_in_page: z.number().int(), next_cursor: nullableString, has_more: z.boolean() }),
  hint: z.string(),
});

export const getEventDetailsOutput = z.object({
  session_id: z.string(),
  event_index: z.number().int(),
  timestamp: nullableString,
  event_type: z.enum(EVENT_TYPES),
  turn_index: z.number().int(),
  step_index: z.number().int().nullable(),
  payload: z.unknown().optional().describe('The event, secrets redacted; uncut unless the response would pass 100 KB'),
  truncated: z.array(z.object({ path: z.string(), shown: z.number(), total: z.number() })).optional(),
  chunk: z.object({ path: z.string(), offset: z.number(), total: z.number(), text: z.string() }).optional().describe('With a cursor: the next part of a cut text'),
  ...pagination,
});

export const searchEventsOutput = z.object({
  matches: z.array(match.extend({ payload: z.unknown().optional() })),
  has_more: z.boolean(),
  deprecated: z.literal(true),
  ...pagination,
});

export type ListSessionsOutput = z.output<typeof listSessionsOutput>;
export type SessionListing = z.output<typeof sessionListing>;
export type GetProjectInfoOutput = z.output<typeof getProjectInfoOutput>;
export type GetSessionDetailsOutput = z.output<typeof getSessionDetailsOutput>;
export type AnalyzeSessionOutput = z.output<typeof analyzeSessionOutput>;
export type SearchEventPreviewsOutput = z.output<typeof searchEventPreviewsOutput>;
export type EventMatch = z.output<typeof match>;
export type GetEventDetailsOutput = z.output<typeof getEventDetailsOutput>;
export type SearchEventsOutput = z.output<typeof searchEventsOutput>;
