// The composition root shared by the server, the CLI and the extension: the ledger, opened on the
// first call that needs it, and the services over it. Nothing is opened at construction.

import * as path from 'node:path';
import type { Config } from './config';
import type { Logger } from './log';
import { createOpenAiProvider } from './progress/openAiSummary';
import type { ProgressService } from './progress/progressService';
import type * as ProgressModule from './progress/progressService';
import type { QueueService } from './queue/queueService';
import type * as QueueModule from './queue/queueService';
import { Summariser, type SummaryProvider } from './progress/summariser';
import type { OpenLedgerOptions } from './storage/openLedger';
import type * as OpenLedgerModule from './storage/openLedger';
import type { Ledger } from './storage/store';
import { refuseForeignLedgerPaths } from './storage/ledgerFiles';
import type { HostCommand } from './host/start';
import type * as HostClientModule from './host/client';
import type { WorkflowService } from './workflow/workflowService';
import type * as WorkflowModule from './workflow/workflowService';
import type * as SnapshotsModule from './workflow/snapshots';
import type { ReviewService } from './review/reviewService';
import type * as ReviewModule from './review/reviewService';
import { resolveWorkspace, workflowProjectId } from './workflow/workspace';
import type { TraceHomes } from './traces/homes';
import type * as HomesModule from './traces/homes';
import type * as LedgerLinkModule from './traces/ledgerLink';
import type { TraceService } from './traces/traceService';
import type * as TraceModule from './traces/traceService';
import type { TransferService } from './transfer/transferService';
import type * as TransferModule from './transfer/transferService';
import type { DigestService, DigestSettings } from './digests/digestService';
import type * as DigestModule from './digests/digestService';

/**
 * The engine, the host client and each service load when first used: a process evaluates only what
 * it runs (a client of the ledger host never evaluates the engine; the CLI's search, only the progress
 * service and its schemas). ARCHITECTURE.md, "Bundles and the start path".
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use; the bundle keeps each module unevaluated until then */
const load = {
  openLedger: () => require('./storage/openLedger') as typeof OpenLedgerModule,
  hostClient: () => require('./host/client') as typeof HostClientModule,
  progress: () => require('./progress/progressService') as typeof ProgressModule,
  queue: () => require('./queue/queueService') as typeof QueueModule,
  workflow: () => require('./workflow/workflowService') as typeof WorkflowModule,
  snapshots: () => require('./workflow/snapshots') as typeof SnapshotsModule,
  review: () => require('./review/reviewService') as typeof ReviewModule,
  transfer: () => require('./transfer/transferService') as typeof TransferModule,
  traces: () => require('./traces/traceService') as typeof TraceModule,
  traceHomes: () => require('./traces/homes') as typeof HomesModule,
  ledgerLink: () => require('./traces/ledgerLink') as typeof LedgerLinkModule,
  digests: () => require('./digests/digestService') as typeof DigestModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

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
  /**
   * The ledger host (one process per ledger file, or per PostgreSQL connection string, that every
   * client of this machine shares): false opens the ledger directly. Default: through the host
   * unless AGENT_PROGRESS_LEDGER_HOST=off; idle time from AGENT_PROGRESS_HOST_IDLE_MS.
   */
  host?: false | { idleMs?: number; command?: HostCommand };
  /** Session digests: capture settings and idle time (default: on, 10 minutes; the extension passes its settings). */
  digests?: () => Partial<DigestSettings>;
}

let directNoticeGiven = false;

/** Says once per process, on stderr and in the log, that the ledger is opened without its host. */
function noteDirect(logger: Logger, reason: string): void {
  if (directNoticeGiven) return;
  directNoticeGiven = true;
  const line = `Agent Progress: opening the ledger directly (${reason})`;
  logger.info(line);
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // no stderr
  }
}

/** The host's idle time from the environment, if it names a positive number of milliseconds. */
export function hostIdleFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = Number(env.AGENT_PROGRESS_HOST_IDLE_MS);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
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

  /** The PostgreSQL connection string when the ledger lives there. */
  get databaseUrl(): string | undefined {
    return this.options.config.databaseUrl || undefined;
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
      const opening = this.open();
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

  private async open(): Promise<Ledger> {
    // The engine (sql.js) and the PostgreSQL driver load only when this process opens the ledger
    // itself: a client of the ledger host never loads them.
    const direct = async (): Promise<Ledger> =>
      load.openLedger().openLedger({
        file: this.options.config.dbPath,
        logger: this.options.logger,
        ...(this.options.config.databaseUrl ? { databaseUrl: this.options.config.databaseUrl } : {}),
        ...(this.options.ledger ?? {}),
      });
    const host = this.options.host;
    const databaseUrl = this.options.config.databaseUrl || undefined;
    // A process that keeps its own search index (a PostgreSQL team server) opens the ledger itself.
    if (host === false || this.options.ledger?.memoryIndex) return direct();
    if (process.env.AGENT_PROGRESS_LEDGER_HOST === 'off') {
      noteDirect(this.options.logger, 'AGENT_PROGRESS_LEDGER_HOST=off');
      return direct();
    }
    // A path the engine would refuse is refused here, before a host folder is made beside it.
    if (!databaseUrl) refuseForeignLedgerPaths(this.options.config.dbPath);
    try {
      const idleMs = host?.idleMs ?? hostIdleFromEnv();
      return await load.hostClient().openHostLedger({
        file: this.options.config.dbPath,
        ...(databaseUrl ? { databaseUrl } : {}),
        logger: this.options.logger,
        watch: this.options.ledger?.watch === true,
        reachTimeoutMs: 15_000,
        ...(idleMs ? { idleMs } : {}),
        ...(host?.command ? { command: host.command } : {}),
      });
    } catch (err) {
      noteDirect(this.options.logger, `the ledger host cannot be used: ${err instanceof Error ? err.message : String(err)}`);
      return direct();
    }
  }

  async progress(): Promise<ProgressService> {
    const ledger = await this.ledger();
    if (!this.progressService) {
      const { ProgressService } = load.progress();
      this.progressService = new ProgressService({
        store: ledger.progress,
        summariser: this.summariser,
        logger: this.options.logger,
        ...(this.options.clock ? { clock: this.options.clock } : {}),
      });
    }
    return this.progressService;
  }

  async workflow(): Promise<WorkflowService> {
    const ledger = await this.ledger();
    if (!this.workflowService) {
      const { WorkflowService } = load.workflow();
      const { Snapshotter } = load.snapshots();
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
      const { ReviewService } = load.review();
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
      const { QueueService } = load.queue();
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
    if (!this.transferService) {
      const { TransferService } = load.transfer();
      // On PostgreSQL the location is a URL: exports go beside the local ledger path instead.
      this.transferService = new TransferService({
        store: ledger.transfer,
        ledgerLocation: this.options.config.databaseUrl ? this.options.config.dbPath : ledger.location,
        logger: this.options.logger,
      });
    }
    return this.transferService;
  }

  /**
   * The transcripts of agent sessions on this machine. Needs no ledger: the index lives in memory;
   * the ledger opens only when a caller asks for the activity logged during a session.
   */
  async traces(): Promise<TraceService> {
    if (this.traceService) return this.traceService;
    const { TraceService } = load.traces();
    const { progressActivitySource, queueActivitySource, workflowActivitySource } = load.ledgerLink();
    this.traceService = new TraceService({
      homes: this.options.traces?.homes ?? load.traceHomes().resolveTraceHomes(),
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
    const { DigestService, DEFAULT_IDLE_MINUTES } = load.digests();
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
