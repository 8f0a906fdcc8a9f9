// Notifications when an agent asks for a person: an issue logged with requires_human_review, or
// a task completed with manual_review_needed. Each comes with an Open button that shows the task
// in its workflow. Only requests made since the window opened are announced, each once.
//
// The ledger opens lazily; so that a request is noticed even when no view has opened it, a cheap
// stat poll of the journal (no core loaded) opens it on the first write of any process.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { Logger } from '../../core/log';
import type { ReviewRequest } from '../../core/workflow/types';
import { CommandIds } from '../commandIds';
import type { LedgerHost } from '../ledgerHost';
import type { WorkflowRef } from './workflowItems';
import { reviewMessage } from './workflowText';

export const OPEN_ACTION = 'Open';
/** How far back the first look goes, in events, for requests made since activation. */
const FIRST_LOOK = 500;
const MAX_SEPARATE = 3;

export interface ShownNotification {
  message: string;
  requests: ReviewRequest[];
}

type Show = (message: string, ...actions: string[]) => Thenable<string | undefined>;

export class ReviewNotifier extends Disposable {
  /** Every notification shown, in order (tests read it). */
  readonly shown: ShownNotification[] = [];
  private lastSeq: number | undefined;
  private readonly announced = new Set<string>();
  private readonly activatedAt: number;
  private checking: Promise<void> = Promise.resolve();
  private polling = false;

  constructor(
    private readonly host: LedgerHost,
    private readonly logger: Logger,
    private readonly show: Show = (message, ...actions) => vscode.window.showWarningMessage(message, ...actions),
    private readonly isEnabled: () => boolean = () => true,
  ) {
    super();
    this.activatedAt = Date.now();
    this.register(host.onDidChange(() => void this.check()));
    this.register(() => this.stopPolling());
  }

  /** Starts noticing writes before anything opened the ledger; `opened` runs after the first. */
  watchJournal(opened?: () => void): void {
    if (this.host.opened || this.polling) return;
    const journal = `${this.host.ledgerPath}.journal`;
    this.polling = true;
    const onChange = (now: fs.Stats, before: fs.Stats): void => {
      if (now.mtimeMs === before.mtimeMs && now.size === before.size) return;
      this.stopPolling();
      if (this.isEnabled()) void this.check().then(() => opened?.());
    };
    fs.watchFile(journal, { interval: 1000, persistent: false }, onChange);
    this.stopPolling = () => {
      if (!this.polling) return;
      this.polling = false;
      fs.unwatchFile(journal, onChange);
    };
  }

  private stopPolling: () => void = () => undefined;

  /** Looks for new requests and announces them; calls are serialised. */
  check(): Promise<void> {
    this.checking = this.checking.then(() => this.look()).catch((err: unknown) => this.logger.warn(`Could not check for review requests: ${String(err)}`));
    return this.checking;
  }

  private async look(): Promise<void> {
    if (this.disposed || !this.isEnabled()) return;
    const service = await this.host.workflow();
    let requests: ReviewRequest[];
    if (this.lastSeq === undefined) {
      const latest = await service.latestEventSeq();
      // Requests made after the window opened, even if they are why the ledger was opened now.
      requests = (await service.reviewRequests(Math.max(0, latest - FIRST_LOOK), FIRST_LOOK)).filter((r) => Date.parse(r.createdAt) >= this.activatedAt - 5_000);
      this.lastSeq = latest;
    } else {
      requests = await service.reviewRequests(this.lastSeq, 200);
    }
    for (const r of requests) this.lastSeq = Math.max(this.lastSeq, r.seq);
    const fresh = requests.filter((r) => !this.announced.has(r.eventId));
    for (const r of fresh) this.announced.add(r.eventId);
    if (fresh.length === 0 || this.disposed) return;
    if (fresh.length > MAX_SEPARATE) {
      const message = `Agent Progress: agents ask for ${fresh.length} reviews (${fresh
        .map((r) => `"${r.taskName}"`)
        .slice(0, 3)
        .join(', ')}…).`;
      this.present(message, fresh, { workflowId: fresh[0]!.workflowId, taskId: fresh[0]!.taskId });
      return;
    }
    for (const r of fresh) this.present(reviewMessage(r), [r], { workflowId: r.workflowId, taskId: r.taskId });
  }

  private present(message: string, requests: ReviewRequest[], target: WorkflowRef): void {
    this.shown.push({ message, requests });
    this.logger.info(message);
    void Promise.resolve(this.show(message, OPEN_ACTION)).then((choice) => {
      if (choice === OPEN_ACTION) void vscode.commands.executeCommand(CommandIds.openWorkflow, target);
    });
  }
}
