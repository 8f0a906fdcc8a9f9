// The normalised model of an agent transcript, shared by the four providers' readers, the index,
// the analysis and every view: sessions, turns (a human prompt and what followed), steps (one
// model call) and events. Plain data; no I/O here.

export const PROVIDERS = ['claude_code', 'codex', 'gemini', 'vscode_copilot'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PROVIDER_LABELS: Record<Provider, string> = {
  claude_code: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  vscode_copilot: 'VS Code Copilot Chat',
};

export const EVENT_TYPES = ['User', 'Message', 'Reasoning', 'ToolCall', 'ToolResult', 'TokenUsage', 'Notification'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Token counts in one shape for every provider (see tokenTotals in builder.ts for the mapping). */
export interface TokenCounts {
  /** Prompt tokens as the provider counts them (Claude: uncached input; Codex, Gemini: including cached). */
  input: number;
  output: number;
  /** Claude's cache_creation_input_tokens. */
  cache_creation: number;
  /** Claude cache_read_input_tokens, Codex cached_input_tokens, Gemini cached. */
  cache_read: number;
  /** Codex reasoning_output_tokens (inside output), Gemini thoughts (outside output). */
  reasoning: number;
  total: number;
}

export function zeroTokens(): TokenCounts {
  return { input: 0, output: 0, cache_creation: 0, cache_read: 0, reasoning: 0, total: 0 };
}

export function addTokens(into: TokenCounts, add: TokenCounts, sign = 1): void {
  into.input += sign * add.input;
  into.output += sign * add.output;
  into.cache_creation += sign * add.cache_creation;
  into.cache_read += sign * add.cache_read;
  into.reasoning += sign * add.reasoning;
  into.total += sign * add.total;
}

export type ToolStatus = 'ok' | 'error' | 'cancelled' | 'pending';

export interface UserPayload {
  text: string;
  /** Not typed by a person: a sub-agent's task prompt, a review prompt. */
  synthetic?: boolean;
}
export interface MessagePayload {
  text: string;
  model?: string;
}
export interface ReasoningPayload {
  text: string;
}
export interface ToolCallPayload {
  call_id: string;
  name: string;
  arguments: unknown;
}
export interface ToolResultPayload {
  call_id: string;
  name: string;
  output: unknown;
  is_error: boolean;
  status: ToolStatus;
  exit_code?: number;
}
export interface TokenUsagePayload extends TokenCounts {
  /**
   * How the counts add up: `delta` (sum them), `keyed` (one API message written over several
   * lines: keep the largest per key), `cumulative` (running totals: take differences).
   */
  mode: 'delta' | 'keyed' | 'cumulative';
  key?: string;
  model?: string;
}
export interface NotificationPayload {
  kind: string;
  text: string;
  /** For kind tool_failed: the call a later record reported as failed. */
  call_id?: string;
}

/** An event as a reader produces it, before the index numbers it. */
export type ParsedEvent =
  | { type: 'User'; timestamp: string | null; payload: UserPayload; human: boolean }
  | { type: 'Message'; timestamp: string | null; payload: MessagePayload; step?: string }
  | { type: 'Reasoning'; timestamp: string | null; payload: ReasoningPayload; step?: string }
  | { type: 'ToolCall'; timestamp: string | null; payload: ToolCallPayload; step?: string }
  | { type: 'ToolResult'; timestamp: string | null; payload: ToolResultPayload }
  | { type: 'TokenUsage'; timestamp: string | null; payload: TokenUsagePayload; step?: string }
  | { type: 'Notification'; timestamp: string | null; payload: NotificationPayload; step?: string };

/** Each event type's payload: ParsedEvent and TraceEvent pair them. */
export interface PayloadOf {
  User: UserPayload;
  Message: MessagePayload;
  Reasoning: ReasoningPayload;
  ToolCall: ToolCallPayload;
  ToolResult: ToolResultPayload;
  TokenUsage: TokenUsagePayload;
  Notification: NotificationPayload;
}

/** An event of one type with its place in the session. */
export interface TraceEventOf<T extends EventType> {
  index: number;
  type: T;
  timestamp: string | null;
  /** The turn it belongs to; events before the first prompt belong to turn 0. */
  turn: number;
  /** The step (model call) inside that turn, or null for the prompt itself. */
  step: number | null;
  payload: PayloadOf[T];
}

/**
 * An event with its place in the session: what get_event_details returns (before redaction). A
 * union on `type`, so a switch on it gives the payload's own type.
 */
export type TraceEvent = { [T in EventType]: TraceEventOf<T> }[EventType];

/** What a reader learns about a session besides its events. */
export interface SessionMeta {
  id: string;
  provider: Provider;
  /** main, or what kind of child: subagent, review, ... */
  kind: string;
  /** The working folder the session ran in, when the transcript (or its folder) says. */
  cwd: string | null;
  /** Gemini's projectHash (sha256 of the project root), when the file carries one. */
  projectHash: string | null;
  title: string | null;
  gitBranch: string | null;
  version: string | null;
  /** Start as the format defines it (Codex session_meta, Gemini startTime, VS Code creationDate). */
  declaredStart: string | null;
  /** A declared end (Gemini lastUpdated). */
  declaredEnd: string | null;
  /** Parent session id when the transcript names it. */
  parentId: string | null;
  /** Hints for linking children to parents by time (Codex review mode) or by id (agent ids). */
  childLinks: { reviewAt: string[]; agentIds: string[] };
  models: string[];
}

export function emptyMeta(provider: Provider, id: string): SessionMeta {
  return {
    id,
    provider,
    kind: 'main',
    cwd: null,
    projectHash: null,
    title: null,
    gitBranch: null,
    version: null,
    declaredStart: null,
    declaredEnd: null,
    parentId: null,
    childLinks: { reviewAt: [], agentIds: [] },
    models: [],
  };
}

/** A tool call in a turn's step, as a session's page shows it. */
export interface SessionToolCall {
  eventIndex: number;
  /** The event of its result, when it has one. */
  resultEventIndex: number | null;
  name: string;
  /** "Bash npm test": the tool and its main argument. */
  label: string;
  status: 'ok' | 'error' | 'cancelled' | 'pending';
  exitCode: number | null;
}

/** What the agent said, thought and called between two prompts' answers. */
export interface SessionStep {
  index: number;
  timestamp: string | null;
  message: string | null;
  reasoning: string | null;
  tools: SessionToolCall[];
}

/** One prompt and what followed it. */
export interface SessionTurn {
  index: number;
  timestamp: string | null;
  /** The prompt; null when the session has none (a sub-agent's preamble). */
  userMessage: string | null;
  human: boolean;
  tokens: number;
  toolCalls: number;
  failed: number;
  outcome: 'success' | 'partial' | 'failed';
  steps: SessionStep[];
}

/** A record an agent wrote in the ledger, as a session links it (progress, queue, workflow). */
export interface LedgerActivity {
  /** Which toolset wrote it: progress, queue, workflow. */
  toolset: string;
  id: string;
  projectId: string;
  title: string;
  at: string;
  agentId: string | null;
}
