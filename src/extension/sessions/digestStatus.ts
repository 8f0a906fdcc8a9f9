// The digest tick's pure parts: how often it runs and what the status bar says (unit-tested).

import type { DigestRun } from '../../core/digests/digestService';

/** How often the tick runs: half the idle time, between 1 s and a minute. */
export function tickInterval(idleMinutes: number): number {
  return Math.min(60_000, Math.max(1_000, idleMinutes * 30_000));
}

/** The status bar's text for the sessions not yet digested, or undefined to hide it. */
export function pendingStatus(run: Pick<DigestRun, 'pending'>): { text: string; tooltip: string } | undefined {
  const n = run.pending.length;
  if (n === 0) return undefined;
  const soonest = Math.min(...run.pending.map((p) => p.dueInMinutes));
  return {
    text: `$(history) ${n}`,
    tooltip: `${n} agent session${n === 1 ? '' : 's'} of this workspace not yet digested into the progress log${soonest > 0 ? ` (the next in about ${soonest} min, once idle)` : ''}. Click to digest now.`,
  };
}
