// Export and import of the whole ledger as a versioned JSON document, and retention: archive or
// delete progress entries older than N days, after writing the entries it removes to a JSON file
// that Import Ledger (or `agent-progress import`) brings back. Plain Node; no transport.

import * as path from 'node:path';
import { isLedgerError, LedgerError } from '../errors';
import { readRegularTextSync } from '../regularFile';
import type { Logger } from '../log';
import { ensurePrivateDir, timestampForFileName, writeFileAtomicSync } from '../storage/files';
import type { RetentionScope, TransferStore } from '../storage/transferStore';
import { makeDocument, parseLedgerDocument, type ImportCounts, type LedgerDocument } from './document';

export type RetentionAction = 'archive' | 'delete';
export const RETENTION_ACTIONS: readonly RetentionAction[] = ['archive', 'delete'];
const MAX_DAYS = 36_500;
/** An export larger than this cannot be one JSON string in V8 anyway. */
const MAX_IMPORT_BYTES = 512 << 20;

export interface RetentionPlan {
  action: RetentionAction;
  days: number;
  /** Entries created before this time are concerned. */
  before: string;
  projectId?: string;
  /** How many entries the run would archive or delete now. */
  count: number;
}

export interface RetentionResult extends RetentionPlan {
  /** How many it did archive or delete. */
  removed: number;
  /** The JSON file holding those entries, written before they were removed (none when count was 0). */
  exportFile?: string;
}

export interface TransferServiceDeps {
  store: TransferStore;
  /** Where the ledger lives, for default export paths beside it. */
  ledgerLocation: string;
  logger: Logger;
  clock?: () => Date;
}

export class TransferService {
  private readonly clock: () => Date;

  constructor(private readonly deps: TransferServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /** A file beside the ledger for an export: <ledger folder>/exports/<kind>-<time>.json. */
  defaultExportPath(kind: 'ledger' | `before-${RetentionAction}`): string {
    const base = path.dirname(this.deps.ledgerLocation);
    return path.join(base, 'exports', `agent-progress-${kind}-${timestampForFileName(this.clock())}.json`);
  }

  async exportDocument(): Promise<LedgerDocument> {
    return makeDocument(await this.deps.store.exportData(), 'full', this.clock());
  }

  /** Writes the whole ledger to `file` (atomically, readable only by this user). */
  async exportToFile(file: string): Promise<{ file: string; document: LedgerDocument; bytes: number }> {
    const document = await this.exportDocument();
    const bytes = writeDocument(file, document);
    this.deps.logger.info(`Exported the ledger to ${file} (${bytes} bytes)`);
    return { file, document, bytes };
  }

  /** Checks a document's text (see parseLedgerDocument) and imports it in one transaction. */
  async importText(text: string, source?: string): Promise<{ document: LedgerDocument; counts: ImportCounts }> {
    const document = parseLedgerDocument(text, source);
    const counts = await this.deps.store.importData(document.data);
    const total = Object.values(counts.imported).reduce((a, b) => a + b, 0);
    this.deps.logger.info(`Imported ${total} records${source ? ` from ${source}` : ''}`);
    return { document, counts };
  }

  async importFile(file: string): Promise<{ document: LedgerDocument; counts: ImportCounts }> {
    let text: string;
    try {
      text = readRegularTextSync(file, { maxBytes: MAX_IMPORT_BYTES, what: 'The file to import' });
    } catch (err) {
      if (isLedgerError(err)) throw err;
      throw new LedgerError('not_found', `Cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}). Give the path of a file written by Export Ledger.`);
    }
    return this.importText(text, path.basename(file));
  }

  /** What a retention run would do now: how many entries are older than `days` days. */
  async planRetention(options: { days: unknown; action: unknown; projectId?: string }): Promise<RetentionPlan> {
    const days = options.days;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_DAYS) {
      throw new LedgerError(
        'invalid_argument',
        `Retention days must be a whole number from 1 to ${MAX_DAYS} (got ${JSON.stringify(days)}): entries older than that many days are archived or deleted.`,
      );
    }
    if (!RETENTION_ACTIONS.includes(options.action as RetentionAction)) {
      throw new LedgerError('invalid_argument', `Retention action must be "archive" (recoverable) or "delete" (got ${JSON.stringify(options.action)}).`);
    }
    const before = new Date(this.clock().getTime() - days * 86_400_000).toISOString();
    const scope: RetentionScope = { before, ...(options.projectId !== undefined ? { projectId: options.projectId } : {}) };
    const count = await this.deps.store.countEntriesBefore(scope);
    return { action: options.action as RetentionAction, days, ...scope, count };
  }

  /**
   * Carries out a plan: writes the concerned entries (and their projects) to `exportFile`
   * (default beside the ledger) first, then archives or deletes them. Nothing is removed if the
   * file cannot be written.
   */
  async applyRetention(plan: RetentionPlan, options: { exportFile?: string } = {}): Promise<RetentionResult> {
    const scope: RetentionScope = { before: plan.before, ...(plan.projectId !== undefined ? { projectId: plan.projectId } : {}) };
    const data = await this.deps.store.exportData({ entriesBefore: scope });
    if (data.entries.length === 0) return { ...plan, count: 0, removed: 0 };
    const exportFile = options.exportFile ?? this.defaultExportPath(`before-${plan.action}`);
    try {
      writeDocument(exportFile, makeDocument(data, 'retention', this.clock()));
    } catch (err) {
      throw new LedgerError(
        'unavailable',
        `Could not write the export ${exportFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); nothing was ${plan.action}d. Choose another file.`,
      );
    }
    const removed = plan.action === 'archive' ? await this.deps.store.archiveEntriesBefore(scope, this.clock().toISOString()) : await this.deps.store.deleteEntriesBefore(scope);
    this.deps.logger.info(
      `Retention: ${plan.action}d ${removed} entries created before ${plan.before}${plan.projectId ? ` in ${plan.projectId}` : ''}; exported first to ${exportFile}`,
    );
    return { ...plan, count: data.entries.length, removed, exportFile };
  }

  countArchived(projectId?: string): Promise<number> {
    return this.deps.store.countArchived(projectId);
  }

  restoreArchived(projectId?: string): Promise<number> {
    return this.deps.store.restoreArchived(projectId);
  }
}

function writeDocument(file: string, document: LedgerDocument): number {
  ensurePrivateDir(path.dirname(file));
  const bytes = Buffer.from(JSON.stringify(document, null, 2) + '\n', 'utf8');
  writeFileAtomicSync(file, bytes);
  return bytes.length;
}
