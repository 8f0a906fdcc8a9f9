// The ledger as a JSON document (export, import, the file written before retention removes
// entries): a versioned format that names its collections and their fields, independent of the
// storage backend. Every backend maps its own tables to these records; nothing here knows SQL.

import { z } from 'zod';
import { LedgerError } from '../errors';

export const LEDGER_DOCUMENT_FORMAT = 'agent-progress-ledger';
export const LEDGER_DOCUMENT_VERSION = 1;

/** s: text, n: number, j: any JSON value; a trailing ? allows null or absent. */
type FieldKind = 's' | 's?' | 'n' | 'n?' | 'j' | 'j?';

export interface CollectionSpec {
  /** The fields that identify a record across ledgers: a second record with them is a conflict. */
  key: readonly string[];
  /** Records already present are kept as they are instead of refusing the import (projects). */
  merge?: boolean;
  fields: Record<string, FieldKind>;
}

const ENTRY_FIELDS = { id: 's', projectId: 's', createdAt: 's', title: 's', tags: 'j', agentId: 's?', summary: 's?', summarySource: 's?', content: 's' } as const;

/**
 * Every collection of a ledger document, in import order (a record only refers to collections
 * before it, and within a collection to records before it).
 */
export const COLLECTIONS = {
  projects: {
    key: ['projectId'],
    merge: true,
    fields: {
      projectId: 's',
      name: 's',
      createdAt: 's',
      description: 's?',
      status: 's?',
      updatedAt: 's?',
      closedAt: 's?',
      defaultMaxRetries: 'n?',
      defaultLeaseMinutes: 'n?',
      reaperIntervalMinutes: 'n?',
    },
  },
  entries: { key: ['id'], fields: ENTRY_FIELDS },
  archivedEntries: { key: ['id'], fields: { ...ENTRY_FIELDS, archivedAt: 's' } },
  taskTypes: {
    key: ['typeId'],
    fields: { typeId: 's', projectId: 's', name: 's', template: 's?', variables: 'j', duplicateHandling: 's', maxRetries: 'n', leaseMinutes: 'n', createdAt: 's' },
  },
  tasks: {
    key: ['taskId'],
    fields: {
      taskId: 's',
      projectId: 's',
      typeId: 's',
      instructions: 's',
      variables: 'j?',
      variablesKey: 's?',
      status: 's',
      assignedTo: 's?',
      leaseExpiresAt: 's?',
      retryCount: 'n',
      maxRetries: 'n',
      leaseMinutes: 'n',
      createdAt: 's',
      assignedAt: 's?',
      completedAt: 's?',
      result: 's?',
      failureReason: 's?',
    },
  },
  taskAttempts: {
    key: ['attemptId'],
    fields: { attemptId: 's', taskId: 's', agentName: 's', startedAt: 's', completedAt: 's?', status: 's', explanation: 's?', failureReason: 's?', leaseExpiresAt: 's?' },
  },
  agents: {
    key: ['projectId', 'name'],
    fields: { projectId: 's', name: 's', keyHash: 's', status: 's', currentTaskId: 's?', connectedAt: 's', lastSeen: 's' },
  },
  queueAudit: {
    key: [],
    fields: { projectId: 's', at: 's', actor: 's', action: 's', taskId: 's?', agentName: 's?', details: 'j?' },
  },
  workflows: {
    key: ['id'],
    fields: { id: 's', projectId: 's', name: 's', description: 's?', plan: 'j', createdAt: 's', lastActivityAt: 's' },
  },
  workflowTasks: {
    key: ['id'],
    fields: {
      id: 's',
      workflowId: 's',
      parentTaskId: 's?',
      name: 's',
      goal: 's',
      areas: 'j',
      status: 's',
      startedAt: 's',
      completedAt: 's?',
      durationSeconds: 'n?',
      progress: 'n?',
      milestone: 's?',
      lastActivityAt: 's',
      outcome: 'j?',
      metadata: 'j?',
      verification: 'j?',
      commits: 'j',
      filesKnown: 'n',
      startSnapshotId: 's?',
      endSnapshotId: 's?',
      root: 's?',
    },
  },
  workflowEvents: {
    key: ['id'],
    fields: { id: 's', workflowId: 's', taskId: 's?', kind: 's', createdAt: 's', review: 'n', data: 'j' },
  },
  workflowFiles: {
    key: ['taskId', 'path'],
    fields: { taskId: 's', path: 's', change: 's', oldPath: 's?', similarity: 'n?', inScope: 'n' },
  },
  workflowSnapshots: {
    key: ['id'],
    fields: {
      id: 's',
      taskId: 's',
      role: 's',
      type: 's',
      root: 's?',
      workspace: 's?',
      head: 's?',
      branch: 's?',
      tree: 's?',
      ref: 's?',
      manifest: 's?',
      fileCount: 'n?',
      digest: 's?',
      createdAt: 's',
      tookMs: 'n',
      note: 's?',
    },
  },
  reviewRuns: {
    key: ['id'],
    fields: {
      id: 's',
      projectId: 's',
      workflow: 's',
      definition: 'j',
      phase: 's',
      context: 'j',
      createdAt: 's',
      updatedAt: 's',
      phaseChangedAt: 's',
      finishedAt: 's?',
      startedBy: 's',
    },
  },
  reviewAgents: {
    key: ['runId', 'name'],
    fields: {
      runId: 's',
      position: 'n',
      name: 's',
      description: 's?',
      state: 's',
      startedAt: 's?',
      completedAt: 's?',
      durationMs: 'n?',
      summary: 's?',
      starts: 'n',
      completions: 'n',
      anomalies: 'j',
    },
  },
  reviewThreads: {
    key: ['id'],
    fields: { id: 's', runId: 's', file: 's?', line: 'n?', endLine: 'n?', status: 's', createdAt: 's', createdBy: 's', resolvedAt: 's?', resolvedBy: 's?', actionId: 's?' },
  },
  reviewComments: {
    key: ['id'],
    fields: { id: 's', threadId: 's', author: 's', body: 's', createdAt: 's' },
  },
  reviewActions: {
    key: ['id'],
    fields: {
      id: 's',
      runId: 's',
      kind: 's',
      target: 'j',
      text: 's',
      originalText: 's?',
      status: 's',
      createdAt: 's',
      createdBy: 's?',
      editedBy: 's?',
      decidedAt: 's?',
      decidedBy: 's?',
      note: 's?',
      threadId: 's?',
    },
  },
  reviewEvents: {
    key: ['id'],
    fields: { id: 's', runId: 's', kind: 's', createdAt: 's', data: 'j' },
  },
} as const satisfies Record<string, CollectionSpec>;

export type CollectionName = keyof typeof COLLECTIONS;
/** A collection's spec, widened (for code that treats every collection alike). */
export const specOf = (name: CollectionName): CollectionSpec => COLLECTIONS[name];
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type LedgerRecord = Record<string, JsonValue>;
/** Every collection's records (a backend fills those it has; the others are empty). */
export type LedgerData = Record<CollectionName, LedgerRecord[]>;

export interface LedgerDocument {
  format: typeof LEDGER_DOCUMENT_FORMAT;
  version: typeof LEDGER_DOCUMENT_VERSION;
  exportedAt: string;
  /** full: the whole ledger; retention: the entries a retention run archived or deleted. */
  scope: 'full' | 'retention';
  /** Record counts per collection, for a person reading the file. */
  counts: Record<CollectionName, number>;
  data: LedgerData;
}

export interface ImportCounts {
  imported: Record<CollectionName, number>;
  /** Records kept as they were because they already existed (projects only). */
  merged: Record<CollectionName, number>;
}

export function emptyCounts(): Record<CollectionName, number> {
  return Object.fromEntries(COLLECTION_NAMES.map((n) => [n, 0])) as Record<CollectionName, number>;
}

export function makeDocument(data: LedgerData, scope: LedgerDocument['scope'], now: Date): LedgerDocument {
  const counts = emptyCounts();
  for (const name of COLLECTION_NAMES) counts[name] = data[name].length;
  return { format: LEDGER_DOCUMENT_FORMAT, version: LEDGER_DOCUMENT_VERSION, exportedAt: now.toISOString(), scope, counts, data };
}

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
