// get_session_details: one session at four levels of detail (summary, turns, steps, full), each
// page filled up to its budget (BUDGETS) and continued by an opaque cursor.

import { clip, clipDeep, costOf, shrinkToFit } from '../responseBudget';
import type { StepInfo, ToolCallInfo, TurnInfo } from './builder';
import { decodeCursor, encodeCursor, fingerprint } from './cursor';
import { BUDGETS, durationSeconds, parseTraceInput, textOf, tokensOut, withSize, type TraceContext } from './pages';
import { redactText, redactValue } from './redact';
import { getSessionDetailsInput, type DetailLevel, type GetSessionDetailsOutput } from './schemas';
import type { IndexedSession } from './traceIndex';

/** Texts at the steps level are cut to this many characters. */
const STEP_TEXT = 500;

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

export function outcomeOf(turn: TurnInfo): 'success' | 'partial' | 'failed' {
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

export async function getSessionDetails(ctx: TraceContext, raw: unknown): Promise<GetSessionDetailsOutput> {
  const input = parseTraceInput(getSessionDetailsInput, raw);
  const level: DetailLevel = input.detail_level ?? 'summary';
  await ctx.index.refresh();
  const s = await ctx.find(input.session_id);
  const query = fingerprint({ id: s.id, level, r: input.include_reasoning === true, l: input.include_ledger === true });
  const pos = input.cursor ? decodeCursor(`details:${level}`, query, input.cursor) : { t: 0, st: 0 };
  const turnFrom = typeof pos.t === 'number' && pos.t >= 0 ? pos.t : 0;
  const stepFrom = typeof pos.st === 'number' && pos.st >= 0 ? pos.st : 0;
  const childFrom = typeof pos.c === 'number' && pos.c >= 0 ? pos.c : 0;
  const head = { session_id: s.id, detail_level: level, provider: s.provider, title: s.title ? clip(redactText(s.title), 200) : null, start_time: s.start, end_time: s.end };
  const cursorAt = (t: number, st = 0, c = 0): string => encodeCursor(`details:${level}`, query, c > 0 ? { t, st, c } : { t, st });
  if (level === 'summary') return summary(ctx, s, head, turnFrom, childFrom, input.cursor === undefined && input.include_ledger === true, cursorAt);
  if (level === 'turns') return turnsLevel(s, head, turnFrom, stepFrom, input.include_reasoning === true, cursorAt);
  return stepsLevel(ctx, s, head, level, turnFrom, stepFrom, cursorAt);
}

async function summary(
  ctx: TraceContext,
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
      malformed_lines: ctx.malformedLines(s),
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
      const all = await ctx.ledgerFor(s, 20);
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
      if (out.ledger.length < all.length)
        notes.push(`${out.ledger.length} of ${all.length}${all.length >= 20 ? '+' : ''} ledger records shown; the progress tools (search_logs) list them all.`);
    }
  }
  // Sub-agents before the turns, on as many pages as they need, leaving room for a few turns.
  let childCursor: string | null = null;
  if (turnFrom === 0) {
    const kids = s.children
      .map((id) => ctx.index.get(id))
      .filter((c): c is IndexedSession => c !== undefined)
      .slice(childFrom);
    if (kids.length > 0) out.children = [];
    for (const c of kids) {
      const { parent_id: _p, snippet: _s, models: _m, git_branch: _g, project_path: _pp, project_hash: _ph, provider: _pr, ...rest } = ctx.listing(c);
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

function turnsLevel(
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

async function stepsLevel(
  ctx: TraceContext,
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
  type ToolOut = {
    event_index: number;
    call: { name: string; arguments: unknown };
    result: { event_index: number; content: unknown; is_error: boolean; status: string; exit_code?: number } | null;
  };
  type StepOut = {
    step_index: number;
    timestamp: string | null;
    first_event_index: number;
    reasoning: { text: string } | null;
    messages: string[];
    tools: ToolOut[];
    notes: string[];
    tokens: { input: number; output: number };
  };
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

  await ctx.index.scanEvents(s, (ev) => {
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
      current.user_message = clip(cutText(ev.payload.text), 20_000);
      used += costOf(current.user_message);
      return undefined;
    }
    if (ev.step === null) {
      if (ev.type === 'Notification') note(current.notes, `${ev.payload.kind}: ${ev.payload.text}`);
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
    switch (ev.type) {
      case 'Reasoning': {
        const text = cutText(ev.payload.text);
        step.reasoning = step.reasoning ? { text: `${step.reasoning.text}\n${text}` } : { text };
        break;
      }
      case 'Message':
        step.messages.push(cutText(ev.payload.text));
        break;
      case 'ToolCall': {
        const p = ev.payload;
        const tool: ToolOut = { event_index: ev.index, call: { name: p.name, arguments: cut(p.arguments) }, result: null };
        step.tools.push(tool);
        calls.set(p.call_id, tool);
        break;
      }
      case 'ToolResult': {
        const p = ev.payload;
        const tool = calls.get(p.call_id);
        const result = { event_index: ev.index, content: cut(p.output), is_error: p.is_error, status: p.status, ...(p.exit_code !== undefined ? { exit_code: p.exit_code } : {}) };
        if (tool && step.tools.includes(tool)) tool.result = result;
        else note(step.notes, `result of ${p.call_id}: ${textOf(p.output)}`);
        break;
      }
      case 'Notification':
        note(step.notes, `${ev.payload.kind}: ${ev.payload.text}`);
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
