// Search as you type, one search at a time: while one runs, only the newest value waits for its
// turn (values typed in between are skipped), and an answer is handed on only if no newer value was
// asked for meanwhile, so a stale answer never overwrites a newer one. No `vscode` here.

export interface LatestSearch {
  /** Marks every answer still to come as stale (a keystroke the debounce has not passed on yet). */
  invalidate(): void;
  /** Asks for `value`; resolves when no search is running or waiting any more. */
  request(value: string): Promise<void>;
  /** Resolves once no search is running or waiting. */
  idle(): Promise<void>;
  /** Searches started so far. */
  readonly started: number;
}

export function latestSearch<T>(
  search: (value: string) => Promise<T>,
  show: { answer(value: string, result: T): void; failure(value: string, err: unknown): void; busy(busy: boolean): void },
): LatestSearch {
  let asked = 0;
  let waiting: { value: string; seq: number } | undefined;
  let running: Promise<void> | undefined;
  let started = 0;
  const runOne = async (value: string, seq: number): Promise<void> => {
    started++;
    show.busy(true);
    try {
      const result = await search(value);
      if (seq === asked) show.answer(value, result);
    } catch (err) {
      if (seq === asked) show.failure(value, err);
    } finally {
      if (seq === asked) show.busy(false);
    }
  };
  const drain = async (): Promise<void> => {
    while (waiting) {
      const next = waiting;
      waiting = undefined;
      await runOne(next.value, next.seq);
    }
    running = undefined;
  };
  return {
    invalidate() {
      asked++;
    },
    request(value) {
      waiting = { value, seq: ++asked };
      running ??= drain();
      return running;
    },
    idle() {
      return running ?? Promise.resolve();
    },
    get started() {
      return started;
    },
  };
}
