// The review runs as VS Code shows them: read once per ledger change (any process) and handed to
// the Review view, the status bar, the comment threads and the JSON status file. Opens the ledger
// only when something needs it: a view shown, a command, or the first write to the journal.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { Logger } from '../../core/log';
import type { ReviewState } from '../../core/review/types';
import type { LedgerConnection } from '../ledgerConnection';

/** How many runs the view lists. */
const RUNS = 10;

/** Who a person acting from the editor is, as approvals record it. */
export function editorOperator(): string {
  let user = '';
  try {
    user = os.userInfo().username;
  } catch {
    // no user name on this system
  }
  return user ? `operator:editor (${user})` : 'operator:editor';
}

export class ReviewModel extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<readonly ReviewState[]>());
  /** Fires after the runs were read again. */
  readonly onDidChange = this.changed.event;
  private loading: Promise<readonly ReviewState[]> | undefined;
  private again = false;
  private current: readonly ReviewState[] = [];
  private loadedOnce = false;
  private stopWatching: () => void = () => undefined;

  constructor(
    private readonly host: LedgerConnection,
    private readonly logger: Logger,
  ) {
    super();
    this.register(host.onDidChange(() => void this.load().catch(() => undefined)));
    this.register(() => this.stopWatching());
  }

  /** Runs newest first, as last read (empty before the first read). */
  get states(): readonly ReviewState[] {
    return this.current;
  }

  /** The run the status bar, the status file and the comment threads follow: the latest still running, else the latest. */
  get active(): ReviewState | undefined {
    return this.current.find((s) => s.run.finishedAt === null) ?? this.current[0];
  }

  get loaded(): boolean {
    return this.loadedOnce;
  }

  /** Reads the runs again (serialised: a call during a read queues one more read). */
  load(): Promise<readonly ReviewState[]> {
    if (this.loading) {
      this.again = true;
      return this.loading.then(() => this.loading ?? this.current);
    }
    this.loading = this.read().finally(() => {
      this.loading = undefined;
      if (this.again && !this.disposed) {
        this.again = false;
        void this.load();
      }
    });
    return this.loading;
  }

  private async read(): Promise<readonly ReviewState[]> {
    try {
      const service = await this.host.review();
      const runs = await service.listRuns({ limit: RUNS });
      const states: ReviewState[] = [];
      for (const run of runs) states.push(await service.state(run.id));
      this.current = states;
      this.loadedOnce = true;
      this.stopWatching();
      if (!this.disposed) this.changed.fire(states);
    } catch (err) {
      this.logger.warn(`Could not read the review runs: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    return this.current;
  }

  /**
   * Until the ledger is open, notices the first write to its journal (an agent's get_workflow in
   * another process) once a second, and then reads the runs, so the status bar appears by itself.
   */
  watchJournal(): void {
    if (this.host.opened) return;
    const journal = `${this.host.ledgerPath}.journal`;
    const onChange = (now: fs.Stats, before: fs.Stats): void => {
      if (now.mtimeMs === before.mtimeMs && now.size === before.size) return;
      this.stopWatching();
      void this.load().catch(() => undefined);
    };
    fs.watchFile(journal, { interval: 1000, persistent: false }, onChange);
    let watching = true;
    this.stopWatching = () => {
      if (!watching) return;
      watching = false;
      fs.unwatchFile(journal, onChange);
    };
  }
}
