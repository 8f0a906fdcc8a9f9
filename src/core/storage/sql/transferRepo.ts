// TransferStore on both backends: the ledger's tables as the document's collections
// (core/transfer/document.ts), exported in one read and imported in one transaction, and
// retention of progress entries (archive into log_entries_archive, or delete). Every SQL statement
// of export, import and retention lives here, but for how an entry is written with its search
// index, which each backend gives (`EntryWriter`).

import { LedgerError } from '../../errors';
import { COLLECTION_NAMES, emptyCounts, specOf, type CollectionName, type ImportCounts, type JsonValue, type LedgerData, type LedgerRecord } from '../../transfer/document';
import type { RetentionScope, TransferStore } from '../transferStore';
import type { Dialect } from './dialect';
import { all, get, run, type Row, type Sql, type SqlDb, type SqlValue } from './statements';

/** An entry to store as ProgressStore.insertEntry does (its project created on first use). */
export interface ImportedEntry {
  id: string;
  projectId: string;
  createdAt: string;
  title: string;
  tags: string[];
  agentId: SqlValue;
  summary: SqlValue;
  summarySource: SqlValue;
  content: string;
}

/** Writes an entry with what its backend's search needs (index queue, search vector, tags). */
export type EntryWriter = (entry: ImportedEntry) => Sql<void>;

interface TableMap {
  table: string;
  /**
   * Export order, which is also import order (FIFO queue, parents before subtasks, audit order);
   * `rowid` stands for the dialect's insertion order.
   */
  orderBy: string;
  /** Document field -> column, when not the field in snake_case. */
  columns?: Record<string, string>;
}

const TABLES: Record<CollectionName, TableMap> = {
  projects: { table: 'projects', orderBy: 'created_at, project_id' },
  entries: { table: 'log_entries', orderBy: 'rowid' },
  archivedEntries: { table: 'log_entries_archive', orderBy: 'created_at, id' },
  taskTypes: { table: 'task_types', orderBy: 'created_at, type_id' },
  tasks: { table: 'tasks', orderBy: 'rowid' },
  taskAttempts: { table: 'task_attempts', orderBy: 'started_at, attempt_id' },
  agents: { table: 'agents', orderBy: 'project_id, name' },
  queueAudit: { table: 'queue_audit', orderBy: 'id' },
  workflows: { table: 'wf_workflows', orderBy: 'n' },
  workflowTasks: { table: 'wf_tasks', orderBy: 'n' },
  workflowEvents: { table: 'wf_events', orderBy: 'n' },
  workflowFiles: { table: 'wf_files', orderBy: 'task_id, path' },
  workflowSnapshots: { table: 'wf_snapshots', orderBy: 'created_at, id' },
  reviewRuns: { table: 'rv_runs', orderBy: 'n' },
  reviewAgents: { table: 'rv_agents', orderBy: 'run_id, position' },
  reviewThreads: { table: 'rv_threads', orderBy: 'n' },
  reviewComments: { table: 'rv_comments', orderBy: 'n' },
  reviewActions: { table: 'rv_actions', orderBy: 'n' },
  reviewEvents: { table: 'rv_events', orderBy: 'n' },
};

const snake = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const columnOf = (name: CollectionName, field: string): string => TABLES[name].columns?.[field] ?? snake(field);
const fieldsOf = (name: CollectionName): [string, string][] => Object.entries(specOf(name).fields);

function fromColumn(kind: string, value: SqlValue): JsonValue {
  if (value === null || value === undefined) return null;
  if (kind.startsWith('j') && typeof value === 'string') {
    try {
      return JSON.parse(value) as JsonValue;
    } catch {
      return value;
    }
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value as JsonValue;
}

function toColumn(kind: string, value: JsonValue | undefined): SqlValue {
  if (value === undefined || value === null) return null;
  if (kind.startsWith('j')) return JSON.stringify(value);
  return value as SqlValue;
}

function scopeWhere(scope: RetentionScope, alias = ''): { where: string; params: SqlValue[] } {
  const where = [`${alias}created_at < ?`];
  const params: SqlValue[] = [scope.before];
  if (scope.projectId !== undefined) {
    where.push(`${alias}project_id = ?`);
    params.push(scope.projectId);
  }
  return { where: where.join(' AND '), params };
}

function describeKey(name: CollectionName, record: LedgerRecord): string {
  const label: Record<CollectionName, string> = {
    projects: 'project',
    entries: 'entry',
    archivedEntries: 'archived entry',
    taskTypes: 'task type',
    tasks: 'task',
    taskAttempts: 'task attempt',
    agents: 'agent',
    queueAudit: 'audit record',
    workflows: 'workflow',
    workflowTasks: 'tracked task',
    workflowEvents: 'workflow event',
    workflowFiles: 'file change',
    workflowSnapshots: 'snapshot',
    reviewRuns: 'review run',
    reviewAgents: 'review agent',
    reviewThreads: 'review thread',
    reviewComments: 'review comment',
    reviewActions: 'review action',
    reviewEvents: 'review event',
  };
  return `${label[name]} ${specOf(name)
    .key.map((k) => String(record[k]))
    .join(' / ')}`;
}

/** The records of one collection: `from` is the FROM/WHERE clause with the table aliased. */
function* select(d: Dialect, name: CollectionName, from: string, params: SqlValue[], alias: string): Sql<LedgerRecord[]> {
  const fields = fieldsOf(name);
  const cols = fields.map(([f]) => `${alias}${columnOf(name, f)} AS "${f}"`).join(', ');
  const order = TABLES[name].orderBy
    .split(',')
    .map((c) => `${alias}${c.trim() === 'rowid' ? d.rowOrder : c.trim()}`)
    .join(', ');
  return (yield* all<Row>(`SELECT ${cols} ${from} ORDER BY ${order}`, params)).map((row) => {
    const record: LedgerRecord = {};
    for (const [field, kind] of fields) record[field] = fromColumn(kind, (row[field] ?? null) as SqlValue);
    return record;
  });
}

function* exists(name: CollectionName, record: LedgerRecord): Sql<boolean> {
  const key = specOf(name).key;
  if (key.length === 0) return false;
  const params = key.map((k) => toColumn('s', record[k]));
  const where = key.map((k) => `${columnOf(name, k)} = ?`).join(' AND ');
  if (name === 'entries' || name === 'archivedEntries') {
    // An entry id is unique across the log and its archive.
    return !!(yield* get('SELECT 1 AS x FROM log_entries WHERE id = ? UNION ALL SELECT 1 FROM log_entries_archive WHERE id = ?', [params[0]!, params[0]!]));
  }
  return !!(yield* get(`SELECT 1 AS x FROM ${TABLES[name].table} WHERE ${where}`, params));
}

/** A document entry (live or archived) as the backend's EntryWriter takes it. */
function importedEntry(record: LedgerRecord): ImportedEntry {
  return {
    id: String(record.id),
    projectId: String(record.projectId),
    createdAt: String(record.createdAt),
    title: String(record.title),
    tags: Array.isArray(record.tags) ? record.tags.filter((t): t is string => typeof t === 'string') : [],
    agentId: toColumn('s', record.agentId),
    summary: toColumn('s', record.summary),
    summarySource: toColumn('s', record.summarySource),
    content: String(record.content),
  };
}

/** PostgreSQL's constraint errors reach here as the engine's `internal` errors with this prefix. */
const SERVER_ERROR = /^PostgreSQL error \w+: /;

export class SqlTransferStore implements TransferStore {
  constructor(
    private readonly db: SqlDb,
    private readonly writeEntry: EntryWriter,
  ) {}

  async exportData(options: { entriesBefore?: RetentionScope } = {}): Promise<LedgerData> {
    return this.db.read(function* (d) {
      const data = Object.fromEntries(COLLECTION_NAMES.map((n) => [n, [] as LedgerRecord[]])) as LedgerData;
      const scope = options.entriesBefore;
      if (scope) {
        const { where, params } = scopeWhere(scope, 'e.');
        data.entries = yield* select(d, 'entries', `FROM log_entries e WHERE ${where}`, params, 'e.');
        data.projects = yield* select(d, 'projects', `FROM projects p WHERE p.project_id IN (SELECT DISTINCT e.project_id FROM log_entries e WHERE ${where})`, params, 'p.');
        return data;
      }
      for (const name of COLLECTION_NAMES) data[name] = yield* select(d, name, `FROM ${TABLES[name].table} t`, [], 't.');
      return data;
    });
  }

  async importData(data: LedgerData): Promise<ImportCounts> {
    const writeEntry = this.writeEntry;
    return this.db
      .write(function* () {
        const counts: ImportCounts = { imported: emptyCounts(), merged: emptyCounts() };
        for (const name of COLLECTION_NAMES) {
          for (const record of data[name] ?? []) {
            if (yield* exists(name, record)) {
              if (specOf(name).merge) {
                counts.merged[name] += 1;
                continue;
              }
              throw new LedgerError(
                'conflict',
                `Import refused: ${describeKey(name, record)} already exists in this ledger (or twice in the file). Nothing was imported. Import into an empty ledger, or remove that record from the file.`,
                {
                  details: { collection: name, key: Object.fromEntries(specOf(name).key.map((k) => [k, record[k] ?? null])) },
                },
              );
            }
            if (name === 'entries') {
              yield* writeEntry(importedEntry(record));
            } else {
              const fields = fieldsOf(name).filter(([f]) => record[f] !== undefined);
              const cols = fields.map(([f]) => columnOf(name, f));
              yield* run(
                `INSERT INTO ${TABLES[name].table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
                fields.map(([f, kind]) => toColumn(kind, record[f])),
              );
            }
            counts.imported[name] += 1;
          }
        }
        return counts;
      })
      .catch((err: unknown) => {
        if (err instanceof LedgerError && !(err.code === 'internal' && SERVER_ERROR.test(err.message))) throw err;
        // A constraint of the schema (a task of an unknown task type, a subtask before its parent).
        throw new LedgerError(
          'invalid_argument',
          `Import refused: the file's records do not fit together (${(err as Error).message.replace(SERVER_ERROR, '')}). Nothing was imported.`,
        );
      });
  }

  async countEntriesBefore(scope: RetentionScope): Promise<number> {
    const { where, params } = scopeWhere(scope);
    return this.db.read(function* () {
      return Number((yield* get<{ n: number }>(`SELECT count(*) AS n FROM log_entries WHERE ${where}`, params))?.n ?? 0);
    });
  }

  async archiveEntriesBefore(scope: RetentionScope, archivedAt: string): Promise<number> {
    const { where, params } = scopeWhere(scope);
    return this.db.write(function* (d) {
      yield* run(
        `INSERT INTO log_entries_archive (id, project_id, created_at, title, tags, agent_id, summary, summary_source, content, archived_at)
           SELECT id, project_id, created_at, title, tags, agent_id, summary, summary_source, content, ? FROM log_entries WHERE ${where} ORDER BY ${d.rowOrder}`,
        [archivedAt, ...params],
      );
      return (yield* run(`DELETE FROM log_entries WHERE ${where}`, params)).changes;
    });
  }

  async deleteEntriesBefore(scope: RetentionScope): Promise<number> {
    const { where, params } = scopeWhere(scope);
    return this.db.write(function* () {
      return (yield* run(`DELETE FROM log_entries WHERE ${where}`, params)).changes;
    });
  }

  async countArchived(projectId?: string): Promise<number> {
    return this.db.read(function* () {
      return Number(
        (yield* get<{ n: number }>(
          `SELECT count(*) AS n FROM log_entries_archive${projectId === undefined ? '' : ' WHERE project_id = ?'}`,
          projectId === undefined ? [] : [projectId],
        ))?.n ?? 0,
      );
    });
  }

  async restoreArchived(projectId?: string): Promise<number> {
    const writeEntry = this.writeEntry;
    return this.db.write(function* (d) {
      const filter = projectId === undefined ? '' : ' WHERE project_id = ?';
      const params: SqlValue[] = projectId === undefined ? [] : [projectId];
      const rows = yield* select(d, 'archivedEntries', `FROM log_entries_archive t${filter.replace('project_id', 't.project_id')}`, params, 't.');
      for (const row of rows) yield* writeEntry(importedEntry(row));
      yield* run(`DELETE FROM log_entries_archive${filter}`, params);
      return rows.length;
    });
  }
}
