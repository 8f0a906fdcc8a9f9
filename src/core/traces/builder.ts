// Turns a reader's event stream into a session's structure: numbered events, turns (a human prompt
// and everything after it), steps (one model call), tool calls paired with their results, and
// token totals by each provider's rule. The same class numbers events when the index is built and
// when payloads are read back later, so event indices always agree.

import { createHash } from 'node:crypto';
import { truncateText } from '../text';
import { redactText } from './redact';
import { addTokens, zeroTokens, type EventType, type ParsedEvent, type TokenCounts, type TokenUsagePayload, type ToolStatus, type TraceEvent } from './types';

export const USER_PREVIEW = 200;
const LABEL_PREVIEW = 120;
const MESSAGE_PREVIEW = 160;

export interface ToolCallInfo {
  eventIndex: number;
  resultIndex: number | null;
  turn: number;
  step: number;
  callId: string;
  name: string;
  /** Hash of the canonical (key-sorted) JSON arguments: equal calls have equal keys. */
  argsKey: string;
  /** "Read src/cart.ts": the tool and its main argument, redacted and short. */
  label: string;
  status: ToolStatus;
  exitCode: number | null;
  timestamp: string | null;
}

export interface StepInfo {
  index: number;
  key: string;
  firstEvent: number;
  timestamp: string | null;
  toolCalls: number[];
  message: string | null;
  reasoning: string | null;
  tokens: TokenCounts;
}

export interface TurnInfo {
  index: number;
  firstEvent: number;
  timestamp: string | null;
  /** A person typed the prompt (false for a preamble or a sub-agent's task prompt). */
  human: boolean;
  synthetic: boolean;
  userMessage: string | null;
  steps: StepInfo[];
  tokens: TokenCounts;
  toolCalls: number;
  failed: number;
  interrupted: boolean;
}

export type EventCounts = Record<EventType, number>;

function emptyCounts(): EventCounts {
  return { User: 0, Message: 0, Reasoning: 0, ToolCall: 0, ToolResult: 0, TokenUsage: 0, Notification: 0 };
}

/** JSON with object keys sorted at every level: the identity of a tool call's arguments. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value as Record<string, unknown>).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

const PRIMARY_ARGS = ['file_path', 'filePath', 'path', 'absolute_path', 'notebook_path', 'command', 'cmd', 'pattern', 'query', 'url', 'description', 'objective', 'prompt'];

/** A short human label for a tool call: its name and the argument that says what it touched. */
export function toolLabel(name: string, args: unknown): string {
  let detail = '';
  if (typeof args === 'string') {
    const files = [...args.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
    detail = files.length > 0 ? files.join(', ') : (args.split('\n')[0] ?? '');
  } else if (args && typeof args === 'object' && !Array.isArray(args)) {
    const o = args as Record<string, unknown>;
    for (const key of PRIMARY_ARGS) {
      const v = o[key];
      if (typeof v === 'string' && v.trim() !== '') {
        detail = v;
        break;
      }
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
        detail = (v as string[]).join(' ');
        break;
      }
    }
    if (!detail) {
      const first = Object.values(o).find((v) => typeof v === 'string' && v.trim() !== '');
      if (typeof first === 'string') detail = first;
    }
  }
  detail = detail.replace(/\s+/g, ' ').trim();
  return truncateText(redactText(detail ? `${name} ${detail}` : name), LABEL_PREVIEW);
}

export function preview(text: string, max: number): string {
  return truncateText(redactText(text).replace(/\s+/g, ' ').trim(), max);
}

function argsKey(args: unknown): string {
  return createHash('sha1').update(canonicalJson(args)).digest('base64url').slice(0, 16);
}

function tokenCounts(p: TokenUsagePayload): TokenCounts {
  return { input: p.input, output: p.output, cache_creation: p.cache_creation, cache_read: p.cache_read, reasoning: p.reasoning, total: p.total };
}

interface Keyed {
  counts: TokenCounts;
  turn: number;
  step: number | null;
}

/**
 * A parsed event numbered and placed in its turn and step. The one cast on events: ParsedEvent
 * pairs each type with its payload, which TypeScript cannot follow through a union's fields.
 */
function placed(ev: ParsedEvent, index: number, turn: number, step: number | null): TraceEvent {
  return { index, type: ev.type, timestamp: ev.timestamp, turn, step, payload: ev.payload } as TraceEvent;
}

export class SessionBuilder {
  readonly turns: TurnInfo[] = [];
  readonly toolCalls: ToolCallInfo[] = [];
  readonly counts: EventCounts = emptyCounts();
  readonly tokens: TokenCounts = zeroTokens();
  eventCount = 0;
  firstTimestamp: string | null = null;
  lastTimestamp: string | null = null;
  interruptions = 0;
  compactions = 0;
  private readonly byCallId = new Map<string, number>();
  private readonly keyed = new Map<string, Keyed>();
  private lastCumulative: TokenCounts | null = null;
  private currentStep: StepInfo | null = null;

  /** Numbers one event and folds it into the structure; returns it with its place. */
  add(ev: ParsedEvent): TraceEvent {
    const index = this.eventCount++;
    this.counts[ev.type] += 1;
    if (ev.timestamp) {
      if (this.firstTimestamp === null || ev.timestamp < this.firstTimestamp) this.firstTimestamp = ev.timestamp;
      if (this.lastTimestamp === null || ev.timestamp > this.lastTimestamp) this.lastTimestamp = ev.timestamp;
    }
    if (ev.type === 'User') return this.addUser(ev, index);
    const turn = this.turns.at(-1) ?? this.newTurn(index, ev.timestamp, false);
    let step: StepInfo | null;
    if (ev.type === 'ToolResult') {
      const call = this.byCallId.get(ev.payload.call_id);
      const info = call === undefined ? undefined : this.toolCalls[call];
      step = info ? (this.turns[info.turn]?.steps[info.step] ?? this.currentStep) : this.currentStep;
      if (info) {
        info.resultIndex = index;
        info.status = ev.payload.status;
        info.exitCode = ev.payload.exit_code ?? null;
        const owner = this.turns[info.turn];
        if (owner && ev.payload.status === 'error') owner.failed += 1;
      }
      return placed(ev, index, info?.turn ?? turn.index, step?.index ?? null);
    }
    step = this.stepFor(turn, ev.step, index, ev.timestamp);
    switch (ev.type) {
      case 'Message':
        if (step && step.message === null && ev.payload.text.trim() !== '') step.message = preview(ev.payload.text, MESSAGE_PREVIEW);
        break;
      case 'Reasoning':
        if (step && step.reasoning === null && ev.payload.text.trim() !== '') step.reasoning = preview(ev.payload.text, USER_PREVIEW);
        break;
      case 'ToolCall': {
        const info: ToolCallInfo = {
          eventIndex: index,
          resultIndex: null,
          turn: turn.index,
          step: step?.index ?? 0,
          callId: ev.payload.call_id,
          name: ev.payload.name,
          argsKey: argsKey(ev.payload.arguments),
          label: toolLabel(ev.payload.name, ev.payload.arguments),
          status: 'pending',
          exitCode: null,
          timestamp: ev.timestamp,
        };
        if (!step) {
          step = this.stepFor(turn, `call:${index}`, index, ev.timestamp);
          info.step = step!.index;
        }
        this.byCallId.set(ev.payload.call_id, this.toolCalls.length);
        step!.toolCalls.push(this.toolCalls.length);
        this.toolCalls.push(info);
        turn.toolCalls += 1;
        break;
      }
      case 'TokenUsage':
        this.addTokensFor(ev.payload, turn, step);
        break;
      case 'Notification':
        if (ev.payload.kind === 'interrupted') {
          this.interruptions += 1;
          turn.interrupted = true;
        } else if (ev.payload.kind === 'compaction') {
          this.compactions += 1;
        } else if (ev.payload.kind === 'tool_failed') {
          const callId = ev.payload.call_id;
          const call = callId === undefined ? undefined : this.byCallId.get(callId);
          const info = call === undefined ? undefined : this.toolCalls[call];
          if (info && info.status !== 'error') {
            info.status = 'error';
            const owner = this.turns[info.turn];
            if (owner) owner.failed += 1;
          }
        }
        break;
    }
    return placed(ev, index, turn.index, step?.index ?? null);
  }

  private addUser(ev: Extract<ParsedEvent, { type: 'User' }>, index: number): TraceEvent {
    const last = this.turns.at(-1);
    let turn: TurnInfo;
    if (ev.human) {
      // Events before the first prompt (injected context) belong to the first turn.
      if (last && !last.human && last.userMessage === null && this.turns.length === 1) {
        turn = last;
        turn.human = true;
        turn.timestamp = ev.timestamp ?? turn.timestamp;
      } else {
        turn = this.newTurn(index, ev.timestamp, true);
      }
      turn.userMessage = preview(ev.payload.text, USER_PREVIEW);
      turn.synthetic = ev.payload.synthetic === true;
      this.currentStep = null;
    } else {
      turn = last ?? this.newTurn(index, ev.timestamp, false);
      if (turn.userMessage === null) {
        turn.userMessage = preview(ev.payload.text, USER_PREVIEW);
        turn.synthetic = true;
      }
    }
    return placed(ev, index, turn.index, null);
  }

  private newTurn(firstEvent: number, timestamp: string | null, human: boolean): TurnInfo {
    const turn: TurnInfo = {
      index: this.turns.length,
      firstEvent,
      timestamp,
      human,
      synthetic: false,
      userMessage: null,
      steps: [],
      tokens: zeroTokens(),
      toolCalls: 0,
      failed: 0,
      interrupted: false,
    };
    this.turns.push(turn);
    this.currentStep = null;
    return turn;
  }

  private stepFor(turn: TurnInfo, key: string | undefined, index: number, timestamp: string | null): StepInfo | null {
    if (key === undefined) return this.currentStep && turn.steps.at(-1) === this.currentStep ? this.currentStep : null;
    if (this.currentStep && this.currentStep.key === key && turn.steps.at(-1) === this.currentStep) return this.currentStep;
    const step: StepInfo = { index: turn.steps.length, key, firstEvent: index, timestamp, toolCalls: [], message: null, reasoning: null, tokens: zeroTokens() };
    turn.steps.push(step);
    this.currentStep = step;
    return step;
  }

  private addTokensFor(p: TokenUsagePayload, turn: TurnInfo, step: StepInfo | null): void {
    const counts = tokenCounts(p);
    const apply = (t: TurnInfo | undefined, s: StepInfo | null | undefined, c: TokenCounts, sign: number): void => {
      addTokens(this.tokens, c, sign);
      if (t) addTokens(t.tokens, c, sign);
      if (s) addTokens(s.tokens, c, sign);
    };
    if (p.mode === 'keyed' && p.key) {
      const prev = this.keyed.get(p.key);
      if (!prev) {
        this.keyed.set(p.key, { counts, turn: turn.index, step: step?.index ?? null });
        apply(turn, step, counts, 1);
      } else if (counts.total > prev.counts.total) {
        // One API message written over several lines: the line with the largest usage is final.
        const t = this.turns[prev.turn];
        const s = prev.step === null ? null : t?.steps[prev.step];
        apply(t, s, prev.counts, -1);
        apply(t, s, counts, 1);
        prev.counts = counts;
      }
      return;
    }
    if (p.mode === 'cumulative') {
      const last = this.lastCumulative;
      let delta: TokenCounts;
      if (!last || counts.total < last.total) {
        delta = counts;
      } else {
        delta = {
          input: Math.max(0, counts.input - last.input),
          output: Math.max(0, counts.output - last.output),
          cache_creation: Math.max(0, counts.cache_creation - last.cache_creation),
          cache_read: Math.max(0, counts.cache_read - last.cache_read),
          reasoning: Math.max(0, counts.reasoning - last.reasoning),
          total: Math.max(0, counts.total - last.total),
        };
      }
      // A counter that went back started a new run (a resumed process): its totals count from zero.
      this.lastCumulative = counts;
      apply(turn, step, delta, 1);
      return;
    }
    apply(turn, step, counts, 1);
  }

  /** Human prompts (the specification's total_turns). */
  get humanTurns(): number {
    return this.turns.filter((t) => t.human).length;
  }

  get failedCalls(): number {
    return this.toolCalls.filter((c) => c.status === 'error').length;
  }

  /** Calls not flagged as errors whose shell exit code was non-zero (Gemini keeps these "success"). */
  get nonZeroExits(): number {
    return this.toolCalls.filter((c) => c.status !== 'error' && c.exitCode !== null && c.exitCode !== 0).length;
  }
}
