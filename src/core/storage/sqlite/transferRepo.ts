// TransferStore on the embedded engine: the ledger's tables as the document's collections
// (core/transfer/document.ts), imported in one transaction, and retention of progress entries
// (archive into log_entries_archive, or delete). Every SQL statement of export, import and
// retention lives here.

import { LedgerError } from '../../errors';
import { fold } from '../../text';
import { COLLECTION_NAMES, emptyCounts, specOf, type CollectionName, type ImportCounts, type JsonValue, type LedgerData, type LedgerRecord } from '../../transfer/collections';
import type { RetentionScope, TransferStore } from '../transferStore';
import type { ReadTx, Row, SqliteEngine, SqlValue, WriteTx } from './engine';
import { titleTrigramDoc } from './search';

interface TableMap {
  table: string;
  /** Export order, which is also import order (FIFO queue, parents before subtasks, audit order). */
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
    projects: 'project', entries: 'entry', archivedEntries: 'archived entry', taskTypes: 'task type', tasks: 'task', taskAttempts: 'task attempt',
    agents: 'agent', queueAudit: 'audit record', workflows: 'workflow', workflowTasks: 'tracked task', workflowEvents: 'workflow event',
    workflowFiles: 'file change', workflowSnapshots: 'snapshot', reviewRuns: 'review run', reviewAgents: 'review agent', reviewThreads: 'review thread',
    reviewComments: 'review comment', reviewActions: 'review action', reviewEvents: 'review event',
  };
  return `${label[name]} ${specOf(name).key.map((k) => String(record[k])).join(' / ')}`;
}

export class SqliteTransferStore implements TransferStore {
  constructor(private readonly engine: SqliteEngine) {}

  async exportData(options: { entriesBefore?: RetentionScope } = {}): Promise<LedgerData> {
    return this.engine.read((tx) => {
      const data = Object.fromEntries(COLLECTION_NAMES.map((n) => [n, [] as LedgerRecord[]])) as LedgerData;
      const scope = options.entriesBefore;
      if (scope) {
        const { where, params } = scopeWhere(scope, 'e.');
        data.entries = this.select(tx, 'entries', `FROM log_entries e WHERE ${where}`, params, 'e.');
        data.projects = this.select(tx, 'projects', `FROM projects p WHERE p.project_id IN (SELECT DISTINCT e.project_id FROM log_entries e WHERE ${where})`, params, 'p.');
        return data;
      }
      for (const name of COLLECTION_NAMES) data[name] = this.select(tx, name, `FROM ${TABLES[name].table} t`, [], 't.');
      return data;
    });
  }

  /** The records of one collection: `from` is the FROM/WHERE clause with the table aliased. */
  private select(tx: ReadTx, name: CollectionName, from: string, params: SqlValue[], alias: string): LedgerRecord[] {
    const fields = fieldsOf(name);
    const cols = fields.map(([f]) => `${alias}${columnOf(name, f)} AS "${f}"`).join(', ');
    const order = TABLES[name].orderBy.split(',').map((c) => `${alias}${c.trim()}`).join(', ');
    return tx.all<Row>(`SELECT ${cols} ${from} ORDER BY ${order}`, params).map((row) => {
      const record: LedgerRecord = {};
      for (const [field, kind] of fields) record[field] = fromColumn(kind, row[field] ?? null);
      return record;
    });
  }

  async importData(data: LedgerData): Promise<ImportCounts> {
    return this.engine.write((tx) => {
      const counts: ImportCounts = { imported: emptyCounts(), merged: emptyCounts() };
      for (const name of COLLECTION_NAMES) {
        for (const record of data[name] ?? []) {
          if (this.exists(tx, name, record)) {
            if (specOf(name).merge) {
              counts.merged[name] += 1;
              continue;
            }
            throw new LedgerError('conflict', `Import refused: ${describeKey(name, record)} already exists in this ledger (or twice in the file). Nothing was imported. Import into an empty ledger, or remove that record from the file.`, {
              details: { collection: name, key: Object.fromEntries(specOf(name).key.map((k) => [k, record[k] ?? null])) },
            });
          }
          this.insert(tx, name, record);
          counts.imported[name] += 1;
        }
      }
      return counts;
    }).catch((err: unknown) => {
      if (err instanceof LedgerError) throw err;
      // A constraint of the schema (a task of an unknown task type, a subtask before its parent).
      throw new LedgerError('invalid_argument', `Import refused: the file's records do not fit together (${(err as Error).message}). Nothing was imported.`);
    });
  }

  private exists(tx: ReadTx, name: CollectionName, record: LedgerRecord): boolean {
    const key = specOf(name).key;
    if (key.length === 0) return false;
    const params = key.map((k) => toColumn('s', record[k]));
    const where = key.map((k) => `${columnOf(name, k)} = ?`).join(' AND ');
    if (name === 'entries' || name === 'archivedEntries') {
      // An entry id is unique across the log and its archive.
      return !!tx.get('SELECT 1 AS x FROM log_entries WHERE id = ? UNION ALL SELECT 1 FROM log_entries_archive WHERE id = ?', [params[0]!, params[0]!]);
    }
    return !!tx.get(`SELECT 1 AS x FROM ${TABLES[name].table} WHERE ${where}`, params);
  }

  private insert(tx: WriteTx, name: CollectionName, record: LedgerRecord): void {
    if (name === 'entries') return insertEntry(tx, record);
    const fields = fieldsOf(name).filter(([f]) => record[f] !== undefined);
    const cols = fields.map(([f]) => columnOf(name, f));
    tx.run(`INSERT INTO ${TABLES[name].table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, fields.map(([f, kind]) => toColumn(kind, record[f])));
  }

  async countEntriesBefore(scope: RetentionScope): Promise<number> {
    const { where, params } = scopeWhere(scope);
    return this.engine.read((tx) => Number(tx.get<{ n: number }>(`SELECT count(*) AS n FROM log_entries WHERE ${where}`, params)?.n ?? 0));
  }

  async archiveEntriesBefore(scope: RetentionScope, archivedAt: string): Promise<number> {
    const { where, params } = scopeWhere(scope);
    return this.engine.write((tx) => {
      tx.run(
        `INSERT INTO log_entries_archive (id, project_id, created_at, title, tags, agent_id, summary, summary_source, content, archived_at)
           SELECT id, project_id, created_at, title, tags, agent_id, summary, summary_source, content, ? FROM log_entries WHERE ${where} ORDER BY rowid`,
        [archivedAt, ...params],
      );
      return tx.run(`DELETE FROM log_entries WHERE ${where}`, params).changes;
    });
  }

  async deleteEntriesBefore(scope: RetentionScope): Promise<number> {
    const { where, params } = scopeWhere(scope);
    return this.engine.write((tx) => tx.run(`DELETE FROM log_entries WHERE ${where}`, params).changes);
  }

  async countArchived(projectId?: string): Promise<number> {
    return this.engine.read((tx) =>
      Number(tx.get<{ n: number }>(`SELECT count(*) AS n FROM log_entries_archive${projectId === undefined ? '' : ' WHERE project_id = ?'}`, projectId === undefined ? [] : [projectId])?.n ?? 0),
    );
  }

  async restoreArchived(projectId?: string): Promise<number> {
    return this.engine.write((tx) => {
      const filter = projectId === undefined ? '' : ' WHERE project_id = ?';
      const params: SqlValue[] = projectId === undefined ? [] : [projectId];
      const rows = this.select(tx, 'archivedEntries', `FROM log_entries_archive t${filter.replace('project_id', 't.project_id')}`, params, 't.');
      for (const row of rows) insertEntry(tx, row);
      tx.run(`DELETE FROM log_entries_archive${filter}`, params);
      return rows.length;
    });
  }
}

/** An entry as ProgressStore.insertEntry stores it: the row, its tags, and a place in the index queue. */
function insertEntry(tx: WriteTx, record: LedgerRecord): void {
  const id = String(record.id);
  const title = String(record.title);
  const tags = Array.isArray(record.tags) ? record.tags.filter((t): t is string => typeof t === 'string') : [];
  const titleFold = fold(title);
  tx.run('INSERT OR IGNORE INTO projects (project_id, name, created_at) VALUES (?, ?, ?)', [String(record.projectId), String(record.projectId), String(record.createdAt)]);
  tx.run(
    'INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, summary, summary_source, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [id, String(record.projectId), String(record.createdAt), title, titleFold, JSON.stringify(tags), toColumn('s', record.agentId), toColumn('s', record.summary), toColumn('s', record.summarySource), String(record.content)],
  );
  tx.run('INSERT INTO fts_pending (entry_rowid, tri) SELECT rowid, ? FROM log_entries WHERE id = ?', [titleTrigramDoc(titleFold), id]);
  for (const tag of tags) {
    tx.run(
      'INSERT OR IGNORE INTO entry_tags (tag_fold, project_id, created_at, entry_rowid, tag) SELECT ?, project_id, created_at, rowid, ? FROM log_entries WHERE id = ?',
      [fold(tag), tag, id],
    );
  }
}
