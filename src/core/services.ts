// The composition root shared by the server, the CLI and the extension: the ledger, opened on the
// first call that needs it, and the services over it. Nothing is opened at construction.

import * as path from 'node:path';
import type { Config } from './config';
import type { Logger } from './log';
import { createOpenAiProvider } from './progress/openAiSummary';
import { ProgressService } from './progress/progressService';
import { QueueService } from './queue/queueService';
import { Summariser, type SummaryProvider } from './progress/summariser';
import type { OpenLedgerOptions } from './storage/openLedger';
import type * as OpenLedgerModule from './storage/openLedger';
import type { Ledger } from './storage/store';
import { openHostLedger } from './host/client';
import { refuseForeignLedgerPaths } from './storage/ledgerFiles';
import type { HostCommand } from './host/start';
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
  /**
   * The ledger host (one process per ledger file that every client shares): false opens the file
   * directly. Default: through the host unless AGENT_PROGRESS_LEDGER_HOST=off; idle time from
   * AGENT_PROGRESS_HOST_IDLE_MS. Not used for PostgreSQL.
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
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first direct open only (a bundle keeps it unevaluated until then)
      (require('./storage/openLedger') as typeof OpenLedgerModule).openLedger({
        file: this.options.config.dbPath,
        logger: this.options.logger,
        ...(this.options.config.databaseUrl ? { databaseUrl: this.options.config.databaseUrl } : {}),
        ...(this.options.ledger ?? {}),
      });
    const host = this.options.host;
    if (this.options.config.databaseUrl || host === false) return direct();
    if (process.env.AGENT_PROGRESS_LEDGER_HOST === 'off') {
      noteDirect(this.options.logger, 'AGENT_PROGRESS_LEDGER_HOST=off');
      return direct();
    }
    // A path the engine would refuse is refused here, before a host folder is made beside it.
    refuseForeignLedgerPaths(this.options.config.dbPath);
    try {
      const idleMs = host?.idleMs ?? hostIdleFromEnv();
      return await openHostLedger({
        file: this.options.config.dbPath,
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
