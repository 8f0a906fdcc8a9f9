// Timing of Search Logs stage by stage, for bench/palette.mjs --trace: when the extension host's
// environment has AGENT_PROGRESS_SEARCH_TRACE=<file>, each stage of a keystroke (value received,
// search started, answer back, items handed to the quick pick) appends one JSON line with the
// wall clock in milliseconds (fractional, comparable with the browser's performance.timeOrigin +
// performance.now()). Off, it costs one property read per stage.

import * as fs from 'node:fs';

export type SearchStage = 'change' | 'start' | 'answer' | 'items';

export function searchTracer(file = process.env.AGENT_PROGRESS_SEARCH_TRACE): ((stage: SearchStage, value: string, extra?: Record<string, number>) => void) | undefined {
  if (!file) return undefined;
  return (stage, value, extra) => {
    try {
      fs.appendFileSync(file, JSON.stringify({ t: performance.timeOrigin + performance.now(), stage, value, ...extra }) + '\n');
    } catch {
      // A trace that cannot be written is no reason to fail a search.
    }
  };
}
