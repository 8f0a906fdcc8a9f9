// A session's health: failed tool calls, loops (the same call with the same arguments repeated),
// where the tokens went, and a 0-100 score whose every deducted point is explained by an insight.

import type { SessionBuilder, ToolCallInfo } from './builder';

export const LOOP_MIN_RUN = 4;

export type Severity = 'Critical' | 'Warning' | 'Info';
export type Lens = 'Failures' | 'Loops' | 'TokenUsage';

export interface Insight {
  turn_index: number | null;
  severity: Severity;
  lens: Lens;
  message: string;
  /** Points this finding took off the score (0 for information). */
  impact: number;
  event_index?: number;
}

export interface Loop {
  tool: string;
  label: string;
  count: number;
  turn_index: number;
  first_event_index: number;
  last_event_index: number;
}

export interface Analysis {
  score: number;
  insights: Insight[];
  loops: Loop[];
  longestRun: number;
  breakdown: { lens: Lens; points: number; reason: string }[];
}

/** The scoring rules, in points (documented in the analyze_session description). */
export const SCORING = {
  failedCall: 8,
  failedCap: 40,
  nonZeroExit: 2,
  nonZeroExitCap: 10,
  loop: 15,
  loopCap: 30,
  heavyTurn: 5,
  heavyTurnShare: 0.6,
} as const;

/** Runs of identical consecutive calls (same tool, same canonical arguments). */
export function runsOf(calls: readonly ToolCallInfo[]): { start: number; length: number }[] {
  const runs: { start: number; length: number }[] = [];
  for (let i = 0; i < calls.length; ) {
    let j = i + 1;
    while (j < calls.length && calls[j]!.name === calls[i]!.name && calls[j]!.argsKey === calls[i]!.argsKey) j++;
    runs.push({ start: i, length: j - i });
    i = j;
  }
  return runs;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function analyse(b: SessionBuilder): Analysis {
  const insights: Insight[] = [];
  const calls = b.toolCalls;

  const loops: Loop[] = [];
  let longestRun = 0;
  for (const run of runsOf(calls)) {
    longestRun = Math.max(longestRun, run.length);
    if (run.length < LOOP_MIN_RUN) continue;
    const first = calls[run.start]!;
    const last = calls[run.start + run.length - 1]!;
    loops.push({ tool: first.name, label: first.label, count: run.length, turn_index: first.turn, first_event_index: first.eventIndex, last_event_index: last.eventIndex });
  }

  // Failures: one insight per turn that had any.
  let failurePoints = 0;
  const failedByTurn = new Map<number, ToolCallInfo[]>();
  for (const c of calls) if (c.status === 'error') failedByTurn.set(c.turn, [...(failedByTurn.get(c.turn) ?? []), c]);
  for (const [turn, failed] of [...failedByTurn].sort((a, b) => a[0] - b[0])) {
    const points = Math.min(failed.length * SCORING.failedCall, SCORING.failedCap - failurePoints);
    failurePoints += points;
    const names = [...new Set(failed.map((f) => f.label))].slice(0, 2).join('; ');
    insights.push({
      turn_index: turn,
      severity: failed.length >= 3 ? 'Critical' : 'Warning',
      lens: 'Failures',
      message: `${plural(failed.length, 'tool execution')} failed (${names})`,
      impact: points,
      event_index: failed[0]!.eventIndex,
    });
  }
  let exitPoints = 0;
  const nonZero = calls.filter((c) => c.status !== 'error' && c.exitCode !== null && c.exitCode !== 0);
  if (nonZero.length > 0) {
    exitPoints = Math.min(nonZero.length * SCORING.nonZeroExit, SCORING.nonZeroExitCap);
    insights.push({
      turn_index: nonZero[0]!.turn,
      severity: 'Warning',
      lens: 'Failures',
      message: `${plural(nonZero.length, 'command')} exited non-zero without being reported as failed (${nonZero[0]!.label}: exit ${nonZero[0]!.exitCode})`,
      impact: exitPoints,
      event_index: nonZero[0]!.eventIndex,
    });
  }

  let loopPoints = 0;
  for (const loop of loops) {
    const points = Math.min(SCORING.loop, SCORING.loopCap - loopPoints);
    loopPoints += points;
    insights.push({
      turn_index: loop.turn_index,
      severity: 'Critical',
      lens: 'Loops',
      message: `${loop.label} repeated ${loop.count} times in a row with the same arguments`,
      impact: points,
      event_index: loop.first_event_index,
    });
  }

  let tokenPoints = 0;
  const total = b.tokens.total;
  if (total > 0) {
    const turns = b.turns.filter((t) => t.tokens.total > 0);
    const heaviest = turns.reduce<(typeof turns)[number] | undefined>((m, t) => (!m || t.tokens.total > m.tokens.total ? t : m), undefined);
    if (heaviest && b.turns.length >= 3 && heaviest.tokens.total / total > SCORING.heavyTurnShare) {
      tokenPoints = SCORING.heavyTurn;
      insights.push({
        turn_index: heaviest.index,
        severity: 'Warning',
        lens: 'TokenUsage',
        message: `Turn ${heaviest.index} used ${Math.round((100 * heaviest.tokens.total) / total)}% of the session's ${total.toLocaleString('en-US')} tokens`,
        impact: tokenPoints,
      });
    } else {
      insights.push({
        turn_index: heaviest?.index ?? null,
        severity: 'Info',
        lens: 'TokenUsage',
        message: `${total.toLocaleString('en-US')} tokens over ${plural(b.turns.length, 'turn')}${heaviest ? `; the heaviest, turn ${heaviest.index}, used ${heaviest.tokens.total.toLocaleString('en-US')}` : ''}`,
        impact: 0,
      });
    }
  }

  const breakdown: Analysis['breakdown'] = [];
  if (failurePoints > 0)
    breakdown.push({ lens: 'Failures', points: failurePoints, reason: `${plural(b.failedCalls, 'failed tool call')} (${SCORING.failedCall} each, at most ${SCORING.failedCap})` });
  if (exitPoints > 0)
    breakdown.push({ lens: 'Failures', points: exitPoints, reason: `${plural(nonZero.length, 'non-zero exit')} (${SCORING.nonZeroExit} each, at most ${SCORING.nonZeroExitCap})` });
  if (loopPoints > 0) breakdown.push({ lens: 'Loops', points: loopPoints, reason: `${plural(loops.length, 'loop')} (${SCORING.loop} each, at most ${SCORING.loopCap})` });
  if (tokenPoints > 0) breakdown.push({ lens: 'TokenUsage', points: tokenPoints, reason: `one turn used over ${SCORING.heavyTurnShare * 100}% of the tokens` });
  const score = Math.max(0, 100 - failurePoints - exitPoints - loopPoints - tokenPoints);
  const order: Record<Severity, number> = { Critical: 0, Warning: 1, Info: 2 };
  insights.sort((a, b) => order[a.severity] - order[b.severity] || (a.turn_index ?? -1) - (b.turn_index ?? -1));
  return { score, insights, loops, longestRun, breakdown };
}
