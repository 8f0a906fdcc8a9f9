// The ledger host's protocol (JSON-RPC over vscode-jsonrpc): the store methods a client may call,
// the messages, and a hash of both that client and host compare in their handshake.

import { createHash } from 'node:crypto';
import type { MemoryIndexStats, ProgressStore } from '../storage/store';
import type { QueueStore } from '../storage/queueStore';
import type { ReviewStore } from '../storage/reviewStore';
import type { TransferStore } from '../storage/transferStore';
import type { WorkflowStore } from '../storage/workflowStore';
import type { ErrorShape } from '../errors';

declare const AGENT_PROGRESS_BUILD: string | undefined;

/** When this bundle was built (ms since 1970, from esbuild); 0 from source. The newest build's host wins. */
export const BUILD: number = typeof AGENT_PROGRESS_BUILD === 'string' ? Number(AGENT_PROGRESS_BUILD) : 0;

type Methods<T> = Record<keyof T, true>;

/** Every store method, per store: `satisfies` keeps the lists equal to the interfaces. */
export const STORE_METHODS = {
  progress: {
    insertEntry: true,
    insertDigest: true,
    getDigestMark: true,
    getEntry: true,
    findEntry: true,
    saveSummary: true,
    searchEntries: true,
    flushIndex: true,
    prepareSearch: true,
    listProjects: true,
    listTags: true,
    // memoryIndexStats: a PostgreSQL store's, read in its own process; no file ledger has one.
  } satisfies Methods<Omit<ProgressStore, 'memoryIndexStats'>>,
  queue: {
    createProject: true,
    getProject: true,
    listProjects: true,
    closeProject: true,
    createTaskType: true,
    listTaskTypes: true,
    getTaskType: true,
    addTasks: true,
    getTask: true,
    listTasks: true,
    registerAgent: true,
    agentAuth: true,
    agentByKeyHash: true,
    bindAgentSession: true,
    getAgent: true,
    requestTask: true,
    currentTask: true,
    completeTask: true,
    failTask: true,
    extendLease: true,
    requeueTask: true,
    cancelTask: true,
    reapExpired: true,
    projectStatus: true,
    taskHistory: true,
    auditLog: true,
    countsByStatus: true,
    metricsSnapshot: true,
    reaperSchedule: true,
    saveSession: true,
    getSession: true,
    deleteSession: true,
    expireSessions: true,
  } satisfies Methods<QueueStore>,
  workflow: {
    insertWorkflow: true,
    getWorkflow: true,
    listWorkflows: true,
    listWorkflowProjects: true,
    insertTask: true,
    getTask: true,
    listTasks: true,
    ancestorIds: true,
    addEvent: true,
    completeTask: true,
    listEvents: true,
    runningTasks: true,
    overlappingTasks: true,
    reviewRequests: true,
    latestEventSeq: true,
  } satisfies Methods<WorkflowStore>,
  review: {
    insertRun: true,
    getRun: true,
    listRuns: true,
    setPhase: true,
    listAgents: true,
    startAgent: true,
    completeAgent: true,
    insertAction: true,
    getAction: true,
    listActions: true,
    editAction: true,
    decideAction: true,
    insertThread: true,
    getThread: true,
    listThreads: true,
    addComment: true,
    setThreadStatus: true,
    listEvents: true,
  } satisfies Methods<ReviewStore>,
  transfer: {
    exportData: true,
    importData: true,
    countEntriesBefore: true,
    archiveEntriesBefore: true,
    deleteEntriesBefore: true,
    countArchived: true,
    restoreArchived: true,
  } satisfies Methods<TransferStore>,
} as const;

export type StoreName = keyof typeof STORE_METHODS;
export const LEDGER_OPS = ['refresh', 'stats', 'compact', 'settle', 'recoverSetAside', 'flush'] as const;
export type LedgerOp = (typeof LEDGER_OPS)[number];

/** Bumped by hand when a message changes shape; the method lists count by themselves. */
const WIRE_VERSION = 1;
export const PROTOCOL: string = createHash('sha256').update(JSON.stringify({ WIRE_VERSION, STORE_METHODS, LEDGER_OPS })).digest('hex').slice(0, 16);

export interface HelloParams {
  token: string;
  protocol: string;
  version: string;
  build: number;
  pid: number;
  /** Push change events to this client. */
  watch: boolean;
  /** The host's standby (no calls; not a client for the idle time; told to leave when the host retires). */
  standby?: boolean;
}

export type HelloResult =
  | { kind: 'ok'; pid: number; version: string; build: number; notices: string[] }
  /** The client's build is newer: this host finishes what it has and exits; start a new one. */
  | { kind: 'handover'; pid: number }
  /** The client's build is older and speaks another protocol: open the ledger directly. */
  | { kind: 'incompatible'; pid: number; version: string };

export interface CallParams {
  /** Carried with the call's writes: a retried call with the same id is not applied twice. */
  id: string;
  /**
   * True on the call's first sending only (the client clears it before sending it again): none of
   * its writes can have been applied, so the host does not look for them. Absent (an older
   * client): looked for, as before.
   */
  fresh?: boolean;
  store: StoreName;
  method: string;
  /** Encoded with `toWire` (undefined kept). */
  args: unknown[];
}

/** A result: `v` absent for undefined; `w` when the call wrote to the ledger; `n`: notices the call raised (a journal tail set aside). */
export interface Wrapped {
  v?: unknown;
  w?: true;
  n?: string[];
}

export interface ChangeParams {
  foreign: boolean;
  maintenance: boolean;
}

export interface HostStatus {
  pid: number;
  version: string;
  build: number;
  protocol: string;
  ledger: string;
  socket: string;
  clients: number;
  ledgerBytes: number;
  journalBytes: number;
  startedAt: string;
  idleMs: number;
  rssBytes: number;
  /** Of that RSS: the JavaScript heap in use, and array buffers (the ledger's bytes in sql.js's file system among them). Absent from hosts before 0.1.0's host memory figures. */
  heapUsedBytes?: number;
  arrayBufferBytes?: number;
  /** The pid of the standby connected to this host, ready to take over; null without one. */
  standby: number | null;
  /** A PostgreSQL ledger's host: its ranked-search index in memory (absent for a file, and from older hosts). */
  searchIndex?: MemoryIndexStats;
}

/** JSON-RPC error code of an error the ledger raised (as opposed to a lost connection). */
export const LEDGER_ERROR_CODE = -32050;
export interface LedgerErrorData {
  ledgerError?: ErrorShape;
}

export const METHODS = {
  hello: 'ap/hello',
  call: 'ap/call',
  ledger: 'ap/ledger',
  status: 'ap/status',
  stop: 'ap/stop',
  watch: 'ap/watch',
  changed: 'ap/changed',
  leave: 'ap/leave',
} as const;

/** -1, 0, 1: how build a compares with build b (version first, then build time). */
export function compareBuilds(a: { version: string; build: number }, b: { version: string; build: number }): number {
  const pa = a.version.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.version.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(a.build - b.build);
}

/** Stands for undefined on the wire (JSON has none); ledger text never holds NUL. */
const UNDEFINED = '\u0000undefined\u0000';

/** The value with every undefined (argument, property, array item) made visible to JSON. */
export function toWire(value: unknown): unknown {
  if (value === undefined) return UNDEFINED;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toWire);
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = toWire(v);
  return out;
}

/**
 * toWire undone, in place: `value` is what JSON.parse just made of a message (nothing else holds
 * it), so only the places that stood for undefined are changed, and nothing is copied.
 */
export function fromWire(value: unknown): unknown {
  if (value === UNDEFINED) return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === UNDEFINED) value[i] = undefined;
      else if (item !== null && typeof item === 'object') fromWire(item);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (item === UNDEFINED) record[key] = undefined;
    else if (item !== null && typeof item === 'object') fromWire(item);
  }
  return value;
}
