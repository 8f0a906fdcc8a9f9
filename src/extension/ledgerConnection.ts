// The extension's connection to the ledger: core services over the file in workspace storage,
// opened on first use through the machine's ledger host (so this window holds no copy of the
// ledger; the host pushes other processes' writes, announced debounced to the views), or directly
// when no host can be used. Reads and writes go through core, never through MCP.

import * as vscode from 'vscode';
import { Disposable } from './disposable';
import type { Logger } from '../core/log';
import type { ProgressService } from '../core/progress/progressService';
import type { SummaryProvider } from '../core/progress/summariser';
import type { Services } from '../core/services';
import type { Ledger } from '../core/storage/store';
import type { WorkflowService } from '../core/workflow/workflowService';
import type { QueueService } from '../core/queue/queueService';
import type { TransferService } from '../core/transfer/transferService';
import type { ReviewService } from '../core/review/reviewService';
import type { HostStatus } from '../core/host/protocol';
import type { DigestService, DigestSettings } from '../core/digests/digestService';
import type { TraceService } from '../core/traces/traceService';
import { loadCore } from './core';
import { readSettings } from './settings';

const DEBOUNCE_MS = 100;

export class LedgerConnection extends Disposable {
  private servicesInstance: Services | undefined;
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires after the ledger changed (any process), at most every 100 ms. */
  readonly onDidChange = this.changed.event;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly ledgerPath: string,
    private readonly logger: Logger,
    private readonly summaryProviders: readonly SummaryProvider[],
    /** The team ledger on PostgreSQL (agentProgress.databaseUrl), used instead of the file; views refresh through LISTEN/NOTIFY. */
    readonly databaseUrl?: string,
  ) {
    super();
    this.register(() => {
      if (this.timer) clearTimeout(this.timer);
      this.unsubscribe?.();
      this.servicesInstance?.close().catch((err: unknown) => this.logger.warn(`Closing the ledger failed: ${String(err)}`));
    });
  }

  private get services(): Services {
    this.servicesInstance ??= new (loadCore().Services)({
      config: {
        dbPath: this.ledgerPath,
        ...(this.databaseUrl ? { databaseUrl: this.databaseUrl } : {}),
        openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
      },
      logger: this.logger,
      summaryProviders: this.summaryProviders,
      // The extension host only reads and caches summaries: snapshots are the servers' job, and
      // exporting would double this process's memory for a moment.
      ledger: { watch: true, checkpoint: false },
      host: { idleMs: readSettings().ledgerHostIdleMs },
      // Review definitions are read from the workspace folder (the extension host's cwd is not it).
      ...(vscode.workspace.workspaceFolders?.[0] ? { reviewWorkspace: vscode.workspace.workspaceFolders[0].uri.fsPath } : {}),
    });
    return this.servicesInstance;
  }

  get opened(): boolean {
    return this.servicesInstance?.opened ?? false;
  }

  async ledger(): Promise<Ledger> {
    const ledger = await this.services.ledger();
    if (!this.unsubscribe && !this.disposed) {
      this.unsubscribe = ledger.onDidChange((change) => {
        if (!change.maintenance) this.announce();
      });
      for (const notice of ledger.notices) void vscode.window.showWarningMessage(`Agent Progress: ${notice}`);
    }
    return ledger;
  }

  /** One of the ledger's services, once the ledger is open (and watched for other writers). */
  private async service<K extends 'progress' | 'queue' | 'workflow' | 'transfer' | 'review'>(name: K): Promise<Awaited<ReturnType<Services[K]>>> {
    await this.ledger();
    return (await this.services[name]()) as Awaited<ReturnType<Services[K]>>;
  }

  readonly progress = (): Promise<ProgressService> => this.service('progress');
  readonly queue = (): Promise<QueueService> => this.service('queue');
  readonly workflow = (): Promise<WorkflowService> => this.service('workflow');
  /** Export, import and retention of the whole ledger. */
  readonly transfer = (): Promise<TransferService> => this.service('transfer');
  readonly review = (): Promise<ReviewService> => this.service('review');

  /** One line about the ledger host serving this window (Show Logs): pid, version, clients, ledger size. */
  async hostLine(): Promise<string> {
    const name = this.databaseUrl ? 'the PostgreSQL ledger' : `the ledger ${this.ledgerPath}`;
    if (!this.opened) return `Ledger host: not connected yet (${name} opens on first use)`;
    const ledger = (await this.ledger()) as Ledger & { host?: { status(): Promise<HostStatus> } };
    if (!ledger.host) return `Ledger host: none; this window opened ${name} directly`;
    const s = await ledger.host.status();
    const mb = (n: number): string => `${(n / (1 << 20)).toFixed(1)} MB`;
    const held = s.searchIndex ? `search index of ${s.searchIndex.entries} entries` : `ledger ${mb(s.ledgerBytes + s.journalBytes)}`;
    return `Ledger host: pid ${s.pid}, version ${s.version}, ${s.clients} client${s.clients === 1 ? '' : 's'}, ${held} (${s.ledger}), ${mb(s.rssBytes)} RSS`;
  }

  /** Session digests of `workspace`, reading transcripts through the views' trace index. */
  async digests(workspace: string, settings: DigestSettings, traces: () => Promise<TraceService>): Promise<DigestService> {
    await this.ledger();
    return this.services.digests({ workspace, settings, traces });
  }

  private announce(): void {
    if (this.timer || this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.disposed) this.changed.fire();
    }, DEBOUNCE_MS);
  }
}
