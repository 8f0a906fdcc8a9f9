// The composition root shared by the server, the CLI and the extension: the ledger, opened on the
// first call that needs it, and the services over it. Nothing is opened at construction.

import type { Config } from './config';
import type { Logger } from './log';
import { createOpenAiProvider } from './progress/openAiSummary';
import { ProgressService } from './progress/progressService';
import { Summariser, type SummaryProvider } from './progress/summariser';
import { openLedger, type OpenLedgerOptions } from './storage/openLedger';
import type { Ledger } from './storage/store';

export interface ServicesOptions {
  config: Pick<Config, 'dbPath' | 'openai'>;
  logger: Logger;
  /** Extra summary providers after the OpenAI-compatible one (the extension's language model). */
  summaryProviders?: readonly SummaryProvider[];
  ledger?: Omit<OpenLedgerOptions, 'file' | 'logger'>;
}

export class Services {
  private ledgerPromise: Promise<Ledger> | undefined;
  private progressService: ProgressService | undefined;
  readonly summariser: Summariser;

  constructor(private readonly options: ServicesOptions) {
    const openai = createOpenAiProvider(options.config.openai, options.logger);
    this.summariser = new Summariser([...(openai ? [openai] : []), ...(options.summaryProviders ?? [])], options.logger);
  }

  get dbPath(): string {
    return this.options.config.dbPath;
  }

  get opened(): boolean {
    return this.ledgerPromise !== undefined;
  }

  /** Opens the ledger on first use; a failed open is retried by the next call. */
  ledger(): Promise<Ledger> {
    if (!this.ledgerPromise) {
      const opening = openLedger({ file: this.options.config.dbPath, logger: this.options.logger, ...(this.options.ledger ?? {}) });
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
    this.progressService ??= new ProgressService({ store: ledger.progress, summariser: this.summariser, logger: this.options.logger });
    return this.progressService;
  }

  async close(): Promise<void> {
    const pending = this.ledgerPromise;
    this.ledgerPromise = undefined;
    this.progressService = undefined;
    if (!pending) return;
    try {
      await (await pending).close();
    } catch {
      // it never opened; nothing to close
    }
  }
}
