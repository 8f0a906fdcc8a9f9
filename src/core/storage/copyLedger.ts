// Copies a whole ledger from one backend to another (a local file into PostgreSQL, or back),
// through the backend-neutral document of core/transfer: exported in one read, imported in one
// transaction, then counted again per collection on the target. A target that already holds
// records is refused unless `force` (then records are added; any that already exist refuse the
// whole copy). Opens and closes both ledgers itself; no SQL here.

import * as fs from 'node:fs';
import { LedgerError, invalidArgument } from '../errors';
import type { Logger } from '../log';
import { COLLECTION_NAMES, type CollectionName } from '../transfer/document';
import { openLedger } from './openLedger';
import { isPostgresUrl, redactUrl } from './postgres/url';
import type { Ledger } from './store';

export interface CopyLedgerOptions {
  /** A ledger file path or a PostgreSQL connection string. */
  from: string;
  to: string;
  /** Copy into a target that already holds records (never overwriting one). */
  force?: boolean;
  logger?: Logger;
}

export interface CollectionCount {
  collection: CollectionName;
  /** Records in the source. */
  source: number;
  /** Records in the target before the copy. */
  before: number;
  /** Records the copy added. */
  copied: number;
  /** Records in the target after the copy (counted again). */
  after: number;
}

export interface CopyLedgerResult {
  from: string;
  to: string;
  counts: CollectionCount[];
  /** Records copied in all. */
  total: number;
}

/** A location as it may be shown: the file path, or the URL with its password redacted. */
export function describeLocation(location: string): string {
  return isPostgresUrl(location) ? redactUrl(location) : location;
}

async function open(location: string, role: 'source' | 'target', logger: Logger | undefined): Promise<Ledger> {
  if (isPostgresUrl(location)) return openLedger({ file: '', databaseUrl: location, ...(logger ? { logger } : {}) });
  // The embedded engine writes its snapshot file lazily: a young ledger may be only its journal.
  if (role === 'source' && !fs.existsSync(location) && !fs.existsSync(`${location}.journal`)) {
    throw new LedgerError(
      'not_found',
      `No ledger file at ${location}: give the path of an existing ledger file (the VS Code extension keeps its ledger in the workspace storage folder).`,
    );
  }
  return openLedger({ file: location, ...(logger ? { logger } : {}) });
}

async function countAll(ledger: Ledger): Promise<Record<CollectionName, number>> {
  const data = await ledger.transfer.exportData();
  return Object.fromEntries(COLLECTION_NAMES.map((n) => [n, data[n]?.length ?? 0])) as Record<CollectionName, number>;
}

export async function copyLedger(options: CopyLedgerOptions): Promise<CopyLedgerResult> {
  const from = options.from.trim();
  const to = options.to.trim();
  if (from === '' || to === '') throw invalidArgument('Give both ends of the copy: --from <ledger file or postgres:// URL> --to <ledger file or postgres:// URL>');
  if (from === to) throw invalidArgument(`The source and the target are the same ledger (${describeLocation(from)}): give two different ones`);
  let source: Ledger | undefined;
  let target: Ledger | undefined;
  try {
    source = await open(from, 'source', options.logger);
    target = await open(to, 'target', options.logger);
    await source.settle();
    const data = await source.transfer.exportData();
    const before = await countAll(target);
    const present = COLLECTION_NAMES.filter((n) => before[n] > 0);
    if (present.length > 0 && !options.force) {
      throw new LedgerError(
        'conflict',
        `The target ${describeLocation(to)} already holds records (${present.map((n) => `${n}: ${before[n]}`).join(', ')}). Nothing was copied. Copy into an empty ledger, or pass --force to add the records to it (a record that already exists there refuses the whole copy).`,
        { details: { target: describeLocation(to), present: Object.fromEntries(present.map((n) => [n, before[n]])) } },
      );
    }
    const imported = await target.transfer.importData(data);
    await target.settle();
    const after = await countAll(target);
    const counts: CollectionCount[] = COLLECTION_NAMES.map((n) => ({
      collection: n,
      source: data[n]?.length ?? 0,
      before: before[n],
      copied: imported.imported[n],
      after: after[n],
    }));
    const wrong = counts.filter((c) => c.copied !== c.source - imported.merged[c.collection] || c.after !== c.before + c.copied);
    if (wrong.length > 0) {
      throw new LedgerError(
        'internal',
        `Count check failed after copying into ${describeLocation(to)}: ${wrong.map((c) => `${c.collection}: source ${c.source}, copied ${c.copied}, target ${c.before} before and ${c.after} after`).join('; ')}. Check the target before using it.`,
        { details: { mismatches: wrong } },
      );
    }
    return { from: describeLocation(from), to: describeLocation(to), counts, total: counts.reduce((a, c) => a + c.copied, 0) };
  } finally {
    await source?.close().catch(() => undefined);
    await target?.close().catch(() => undefined);
  }
}
