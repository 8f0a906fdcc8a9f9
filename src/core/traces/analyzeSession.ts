// analyze_session: one session's health (failures, loops, tokens, score) as the analysis found it,
// within its budget.

import { resultBytes } from '../responseBudget';
import { BUDGETS, parseTraceInput, tokensOut, withSize, type TraceContext } from './pages';
import { analyzeSessionInput, type AnalyzeSessionOutput } from './schemas';

export async function analyzeSession(ctx: TraceContext, raw: unknown): Promise<AnalyzeSessionOutput> {
  const input = parseTraceInput(analyzeSessionInput, raw);
  await ctx.index.refresh();
  const s = await ctx.find(input.session_id);
  const b = s.builder;
  const a = ctx.analysis(s);
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
      malformed_lines: ctx.malformedLines(s),
    },
    hint: `Use get_session_details(session_id, detail_level='turns') to see the turns named here, get_event_details(session_id, event_index) for a failure's full output.${!includeLoops && a.loops.length > 0 ? ' include_loops=true lists the loops.' : ''}`,
  };
  while (resultBytes(out) > BUDGETS.analyze && out.insights.length > 1) out.insights.pop();
  return withSize(out);
}
