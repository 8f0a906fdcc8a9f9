// Reading a ledger document from a file: validated against the collections' fields with zod,
// every problem named with its place. The format itself is in collections.ts.

import * as z from 'zod';
import { LedgerError } from '../errors';
import {
  COLLECTION_NAMES,
  COLLECTIONS,
  emptyCounts,
  LEDGER_DOCUMENT_FORMAT,
  LEDGER_DOCUMENT_VERSION,
  type CollectionName,
  type CollectionSpec,
  type FieldKind,
  type JsonValue,
  type LedgerDocument,
  type LedgerRecord,
} from './collections';

export * from './collections';

const jsonValue: z.ZodType<JsonValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]));

function fieldSchema(kind: FieldKind): z.ZodType {
  switch (kind) {
    case 's':
      return z.string();
    case 's?':
      return z.string().nullable().optional();
    case 'n':
      return z.number().finite();
    case 'n?':
      return z.number().finite().nullable().optional();
    case 'j':
      return jsonValue;
    case 'j?':
      return jsonValue.nullable().optional();
  }
}

const collectionSchemas = Object.fromEntries(
  COLLECTION_NAMES.map((name) => {
    const spec: CollectionSpec = COLLECTIONS[name];
    const shape = Object.fromEntries(Object.entries(spec.fields).map(([field, kind]) => [field, fieldSchema(kind)]));
    return [name, z.array(z.object(shape).strict()).optional().default([])];
  }),
) as unknown as Record<CollectionName, z.ZodType<LedgerRecord[]>>;

const documentSchema = z.object({
  format: z.literal(LEDGER_DOCUMENT_FORMAT),
  version: z.literal(LEDGER_DOCUMENT_VERSION),
  exportedAt: z.string(),
  scope: z.enum(['full', 'retention']).optional().default('full'),
  counts: z.record(z.string(), z.number()).optional(),
  data: z.object(collectionSchemas).strict(),
});

/** Where a zod issue points, as a person reads it: data.entries[3].title. */
function issuePath(pathParts: readonly PropertyKey[]): string {
  return pathParts.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/**
 * Parses and checks a ledger document. A file that is not JSON, not a ledger export, of another
 * version, or with a malformed record is refused with a message saying which and what to do.
 */
export function parseLedgerDocument(text: string, source = 'the file'): LedgerDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new LedgerError(
      'invalid_argument',
      `${source} is not JSON (${(err as Error).message}). Choose a file written by Agent Progress: Export Ledger or \`agent-progress export\`.`,
    );
  }
  const head = raw as { format?: unknown; version?: unknown } | null;
  if (!head || typeof head !== 'object' || head.format !== LEDGER_DOCUMENT_FORMAT) {
    throw new LedgerError(
      'invalid_argument',
      `${source} is not an Agent Progress ledger export (no "format": "${LEDGER_DOCUMENT_FORMAT}"). Choose a file written by Export Ledger or \`agent-progress export\`.`,
    );
  }
  if (head.version !== LEDGER_DOCUMENT_VERSION) {
    const newer = typeof head.version === 'number' && head.version > LEDGER_DOCUMENT_VERSION;
    throw new LedgerError(
      'invalid_argument',
      `${source} is a version ${JSON.stringify(head.version)} ledger export; this Agent Progress reads version ${LEDGER_DOCUMENT_VERSION}. ${newer ? 'Update Agent Progress to import it.' : 'Export it again with this version.'} Nothing was imported.`,
    );
  }
  const parsed = documentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new LedgerError('invalid_argument', `${source} has an invalid record at ${issuePath(issue.path)}: ${issue.message}. Nothing was imported.`);
  }
  const doc = parsed.data as LedgerDocument;
  const counts = emptyCounts();
  for (const name of COLLECTION_NAMES) counts[name] = doc.data[name].length;
  return { ...doc, counts };
}
