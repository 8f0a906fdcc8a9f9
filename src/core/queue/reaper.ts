// The reaper's timer: when to look for expired leases next. It never reaps by itself (QueueService
// gives it the work) and never sleeps past a lease it knows of or the shortest reaper interval.

import type { Logger } from '../log';
import type { ReaperSchedule } from '../storage/queueStore';

/** Never wake more often than this, even for a lease a completion holds (SKIP LOCKED) right now. */
export const REAPER_MIN_DELAY_MS = 250;
/** A lease is expired once the time is past it: wake just after. */
const PAST_LEASE_MS = 20;
/** Other processes' writes come in bursts: read the schedule once per burst. */
const REPLAN_DELAY_MS = 250;

/** How long to sleep: the shortest interval, the next lease's expiry, at most `maxMs`. */
export function reaperDelay(schedule: ReaperSchedule, nowMs: number, maxMs: number): number {
  let delay = maxMs;
  if (schedule.intervalMinutes !== undefined) delay = Math.min(delay, schedule.intervalMinutes * 60_000);
  if (schedule.nextLeaseExpiresAt !== undefined) delay = Math.min(delay, Date.parse(schedule.nextLeaseExpiresAt) - nowMs + PAST_LEASE_MS);
  return Math.max(REAPER_MIN_DELAY_MS, Math.round(delay));
}

export interface ReaperDeps {
  /** Reaps expired leases everywhere, and whatever else runs on the timer. */
  work(): Promise<void>;
  schedule(): Promise<ReaperSchedule>;
  logger: Logger;
  clock: () => Date;
  /** The longest sleep when nothing asks for less (no project, no lease). */
  maxMs: number;
}

/**
 * A one-shot timer re-armed after each run from the ledger's schedule, and brought forward when
 * something asks for it sooner: a lease or project made here (`wakeBy`), or a write by another
 * process (`replan`), so a short lease is reaped on time however idle this server is.
 */
export class Reaper {
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;
  private running = false;
  private planning = false;
  private replanAfterRun = false;
  private stopped = false;

  constructor(private readonly deps: ReaperDeps) {}

  start(): void {
    this.arm(0, true);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Runs no later than `iso` (a lease's expiry: just after it). */
  wakeBy(iso: string): void {
    this.arm(Math.max(REAPER_MIN_DELAY_MS, Date.parse(iso) - this.deps.clock().getTime() + PAST_LEASE_MS));
  }

  /** Runs within `ms` (a new project's reaper interval). */
  wakeWithin(ms: number): void {
    this.arm(Math.max(REAPER_MIN_DELAY_MS, ms));
  }

  /**
   * Reads the schedule again (another process wrote the ledger) and runs sooner if it says so.
   * Deferred and coalesced: it is called from the ledger's change event, which may fire in the
   * middle of the engine applying other processes' writes, where a read must not start.
   */
  replan(): void {
    if (this.stopped || this.planning) return;
    if (this.running) {
      this.replanAfterRun = true;
      return;
    }
    this.planning = true;
    const later = setTimeout(() => {
      void this.deps
        .schedule()
        .then((s) => this.arm(reaperDelay(s, this.deps.clock().getTime(), this.deps.maxMs)))
        .catch((err: unknown) => this.deps.logger.warn(`The reaper could not read its schedule: ${(err as Error).message}`))
        .finally(() => {
          this.planning = false;
        });
    }, REPLAN_DELAY_MS);
    later.unref();
  }

  /** Sets the timer to `delayMs` from now if that is sooner than it is set for (or always, after a run). */
  private arm(delayMs: number, force = false): void {
    if (this.stopped) return;
    const due = this.deps.clock().getTime() + delayMs;
    if (!force && (this.running || due >= this.dueAt)) {
      if (this.running) this.replanAfterRun = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = due;
    this.timer = setTimeout(() => void this.run(), delayMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.dueAt = Number.POSITIVE_INFINITY;
    this.running = true;
    this.replanAfterRun = false;
    let delay = this.deps.maxMs;
    try {
      await this.deps.work();
      delay = reaperDelay(await this.deps.schedule(), this.deps.clock().getTime(), this.deps.maxMs);
    } catch (err) {
      this.deps.logger.warn(`The reaper could not run: ${(err as Error).message}`);
    }
    this.running = false;
    this.arm(delay, true);
    if (this.replanAfterRun) this.replan();
  }
}
