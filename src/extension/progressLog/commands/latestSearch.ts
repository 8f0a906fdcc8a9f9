// Search as you type: the newest value is asked for at once, even while an older search is still
// running (at most two in flight; a third value waits, and only the newest waiting one is kept),
// and an answer is handed on only if no newer value was asked for meanwhile, so a stale answer
// never overwrites a newer one. Answers are kept for the values asked (the newest `keep`), so a
// value typed again (backspace, retyping) is answered without a search until `forget()` (the
// ledger changed). No `vscode` here.

export interface LatestSearch {
  /** Marks every answer still to come as stale (a keystroke not passed on yet). */
  invalidate(): void;
  /** Asks for `value`; resolves when no search is running or waiting any more. */
  request(value: string): Promise<void>;
  /** Resolves once no search is running or waiting. */
  idle(): Promise<void>;
  /** Drops the answers kept: the next request of any value searches again. */
  forget(): void;
  /** Searches started so far. */
  readonly started: number;
}

/** Searches running at once: the stale one still answering and the newest. */
const IN_FLIGHT = 2;

export function latestSearch<T>(
  search: (value: string) => Promise<T>,
  show: { answer(value: string, result: T): void; failure(value: string, err: unknown): void; busy(busy: boolean): void },
  options: { keep?: number } = {},
): LatestSearch {
  const keep = options.keep ?? 50;
  let asked = 0;
  let waiting: { value: string; seq: number } | undefined;
  let running = 0;
  let started = 0;
  /** Answers by value, oldest first; `generation` tells answers from before a forget() apart. */
  const kept = new Map<string, T>();
  let generation = 0;
  let idleWaiters: (() => void)[] = [];
  const settle = (): void => {
    if (running > 0 || waiting) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };
  const remember = (value: string, result: T): void => {
    kept.delete(value);
    kept.set(value, result);
    if (kept.size > keep) kept.delete(kept.keys().next().value as string);
  };
  const runOne = async (value: string, seq: number): Promise<void> => {
    started++;
    running++;
    const from = generation;
    if (seq === asked) show.busy(true);
    try {
      const result = await search(value);
      if (from === generation) remember(value, result);
      if (seq === asked) show.answer(value, result);
    } catch (err) {
      if (seq === asked) show.failure(value, err);
    } finally {
      if (seq === asked) show.busy(false);
      running--;
      if (waiting && running < IN_FLIGHT) {
        const next = waiting;
        waiting = undefined;
        void runOne(next.value, next.seq);
      }
      settle();
    }
  };
  return {
    invalidate() {
      asked++;
    },
    request(value) {
      const seq = ++asked;
      const done = new Promise<void>((resolve) => idleWaiters.push(resolve));
      if (kept.has(value)) {
        // Answered before, and the ledger has not changed since: shown at once; whatever is in
        // flight or waiting is older, so stale.
        waiting = undefined;
        const result = kept.get(value) as T;
        remember(value, result);
        show.busy(false);
        show.answer(value, result);
      } else if (running < IN_FLIGHT) {
        waiting = undefined;
        void runOne(value, seq);
      } else {
        waiting = { value, seq };
      }
      settle();
      return done;
    },
    idle() {
      const done = new Promise<void>((resolve) => idleWaiters.push(resolve));
      settle();
      return done;
    },
    forget() {
      kept.clear();
      generation++;
    },
    get started() {
      return started;
    },
  };
}
