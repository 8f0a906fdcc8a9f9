// The composition root shared by the server, the CLI and the extension: the ledger, opened on the
// first call that needs it, and the services over it. Nothing is opened at construction.

import * as path from 'node:path';
import type { Config } from './config';
import type { Logger } from './log';
import { createOpenAiProvider } from './progress/openAiSummary';
import { ProgressService } from './progress/progressService';
import { QueueService } from './queue/queueService';
import { Summariser, type SummaryProvider } from './progress/summariser';
import { openLedger, type OpenLedgerOptions } from './storage/openLedger';
import type { Ledger } from './storage/store';
import { Snapshotter } from './workflow/snapshots';
import { WorkflowService } from './workflow/workflowService';
import { ReviewService } from './review/reviewService';
import { resolveWorkspace, workflowProjectId } from './workflow/workspace';
import { resolveTraceHomes, type TraceHomes } from './traces/homes';
import { progressActivitySource, queueActivitySource, workflowActivitySource } from './traces/ledgerLink';
import { TraceService } from './traces/traceService';
import { TransferService } from './transfer/transferService';
import { DEFAULT_IDLE_MINUTES, DigestService, type DigestSettings } from './digests/digestService';

export interface ServicesOptions {
  config: Pick<Config, 'dbPath' | 'openai'> & Partial<Pick<Config, 'databaseUrl'>>;
  logger: Logger;
  /** Extra summary providers after the OpenAI-compatible one (the extension's language model). */
  summaryProviders?: readonly SummaryProvider[];
  ledger?: Omit<OpenLedgerOptions, 'file' | 'logger'>;
  /** The folder workflow snapshots look at; default AGENT_PROGRESS_WORKSPACE, else the working directory. */
  workspace?: string;
  /** Called once, when the queue service is first created (the server starts its reaper then). */
  onQueueReady?: (queue: QueueService) => void;
  /** Where agents' transcripts are read (default: resolveTraceHomes() from the environment). */
  traces?: { homes?: TraceHomes; minRefreshMs?: number };
  /** The folder whose .agent-progress/reviews/ holds review definitions; default: `workspace`. */
  reviewWorkspace?: string;
  /** The clock entries, tasks and leases are dated by (tests give explicit times; default: now). */
  clock?: () => Date;
  /** Session digests: capture settings and idle time (default: on, 10 minutes; the extension passes its settings). */
  digests?: () => Partial<DigestSettings>;
}

export class Services {
  private ledgerPromise: Promise<Ledger> | undefined;
  private progressService: ProgressService | undefined;
  private queueService: QueueService | undefined;
  private workflowService: WorkflowService | undefined;
  private reviewService: ReviewService | undefined;
  private traceService: TraceService | undefined;
  private transferService: TransferService | undefined;
  private digestService: DigestService | undefined;
  readonly summariser: Summariser;
  /** Only the endpoint the person configured: what digests of transcripts may be sent to. */
  private readonly endpointSummariser: Summariser;

  constructor(private readonly options: ServicesOptions) {
    const openai = createOpenAiProvider(options.config.openai, options.logger);
    this.summariser = new Summariser([...(openai ? [openai] : []), ...(options.summaryProviders ?? [])], options.logger);
    this.endpointSummariser = new Summariser(openai ? [openai] : [], options.logger);
  }

  get dbPath(): string {
    return this.options.config.dbPath;
  }

  get logger(): Logger {
    return this.options.logger;
  }

  get opened(): boolean {
    return this.ledgerPromise !== undefined;
  }

  /** Opens the ledger on first use; a failed open is retried by the next call. */
  ledger(): Promise<Ledger> {
    if (!this.ledgerPromise) {
      const opening = openLedger({
        file: this.options.config.dbPath,
        logger: this.options.logger,
        ...(this.options.config.databaseUrl ? { databaseUrl: this.options.config.databaseUrl } : {}),
        ...(this.options.ledger ?? {}),
      });
      this.ledgerPromise = opening;
      opening.then(
        (ledger) => {
          for (const notice of ledger.notices) this.options.logger.warn(notice);
        },
        () => {
          if (this.ledgerPromise === opening) this.ledgerPromise = undefined;
        },
      );
    }
    return this.ledgerPromise;
  }

  async progress(): Promise<ProgressService> {
    const ledger = await this.ledger();
    this.progressService ??= new ProgressService({
      store: ledger.progress,
      summariser: this.summariser,
      logger: this.options.logger,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
    });
    return this.progressService;
  }

  async workflow(): Promise<WorkflowService> {
    const ledger = await this.ledger();
    if (!this.workflowService) {
      const workspace = this.options.workspace ?? resolveWorkspace(process.env, process.cwd());
      const dbPath = this.options.config.dbPath;
      this.workflowService = new WorkflowService({
        store: ledger.workflow,
        // Checksum manifests sit beside the ledger; the ledger's own folder is never snapshotted.
        snapshotter: new Snapshotter({ workspace, manifestDir: `${dbPath}.snapshots`, excludePaths: [path.dirname(dbPath)] }),
        logger: this.options.logger,
        defaultProjectId: () => workflowProjectId(process.env, workspace),
      });
    }
    return this.workflowService;
  }

  async review(): Promise<ReviewService> {
    const ledger = await this.ledger();
    if (!this.reviewService) {
      const workspace = this.options.reviewWorkspace ?? this.options.workspace ?? resolveWorkspace(process.env, process.cwd());
      this.reviewService = new ReviewService({
        store: ledger.review,
        logger: this.options.logger,
        workspace: () => workspace,
        projectId: () => workflowProjectId(process.env, workspace),
      });
    }
    return this.reviewService;
  }

  async queue(): Promise<QueueService> {
    const ledger = await this.ledger();
    if (!this.queueService) {
      this.queueService = new QueueService({
        store: ledger.queue,
        logger: this.options.logger,
        onLedgerChange: (listener) => ledger.onDidChange(listener),
        ...(this.options.clock ? { clock: this.options.clock } : {}),
      });
      this.options.onQueueReady?.(this.queueService);
    }
    return this.queueService;
  }

  /** Export, import and retention of the whole ledger. */
  async transfer(): Promise<TransferService> {
    const ledger = await this.ledger();
    // On PostgreSQL the location is a URL: exports go beside the local ledger path instead.
    this.transferService ??= new TransferService({
      store: ledger.transfer,
      ledgerLocation: this.options.config.databaseUrl ? this.options.config.dbPath : ledger.location,
      logger: this.options.logger,
    });
    return this.transferService;
  }

  /**
   * The transcripts of agent sessions on this machine. Needs no ledger: the index lives in memory;
   * the ledger opens only when a caller asks for the activity logged during a session.
   */
  async traces(): Promise<TraceService> {
    this.traceService ??= new TraceService({
      homes: this.options.traces?.homes ?? resolveTraceHomes(),
      logger: this.options.logger,
      ledgerSources: async () => [progressActivitySource(() => this.progress()), workflowActivitySource(() => this.workflow()), queueActivitySource(() => this.queue())],
      ...(this.options.traces?.minRefreshMs !== undefined ? { minRefreshMs: this.options.traces.minRefreshMs } : {}),
    });
    return this.traceService;
  }

  /**
   * Digests of this workspace's agent sessions into the progress log. With `overrides` (the CLI's
   * options, a hook's folder) a separate service for that workspace and those settings.
   */
  async digests(overrides?: { workspace?: string; settings?: Partial<DigestSettings>; traces?: () => Promise<TraceService> }): Promise<DigestService> {
    if (this.digestService && !overrides) return this.digestService;
    const workspace = overrides?.workspace ?? this.options.workspace ?? resolveWorkspace(process.env, process.cwd());
    const service = new DigestService({
      traces: overrides?.traces ?? (() => this.traces()),
      progress: () => this.progress(),
      summariser: this.endpointSummariser,
      logger: this.options.logger,
      workspace,
      projectId: () => workflowProjectId(process.env, workspace),
      settings: () => {
        const given = { ...(this.options.digests?.() ?? {}), ...(overrides?.settings ?? {}) };
        return {
          enabled: given.enabled ?? true,
          idleMinutes: given.idleMinutes ?? DEFAULT_IDLE_MINUTES,
          excludeProviders: given.excludeProviders ?? [],
          excludeFolders: given.excludeFolders ?? [],
        };
      },
      ...(this.options.clock ? { now: () => this.options.clock!().getTime() } : {}),
    });
    if (!overrides) this.digestService = service;
    return service;
  }

  async close(): Promise<void> {
    const pending = this.ledgerPromise;
    this.ledgerPromise = undefined;
    this.progressService = undefined;
    this.queueService = undefined;
    this.workflowService = undefined;
    this.reviewService = undefined;
    this.transferService = undefined;
    this.digestService = undefined;
    if (!pending) return;
    try {
      await (await pending).close();
    } catch {
      // it never opened; nothing to close
    }
  }
}
