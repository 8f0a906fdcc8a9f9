// ReviewStore on the embedded engine: every SQL statement of review runs lives here. Statements
// are deterministic (ids and times come in as parameters): they are journaled and replayed by the
// other processes sharing the ledger.

import { LedgerError } from '../../errors';
import type {
  ActionStatus,
  ReviewAction,
  ReviewAgent,
  ReviewEvent,
  ReviewRun,
  ReviewThread,
  ThreadComment,
  ThreadStatus,
} from '../../review/types';
import type {
  ActionDecision,
  AgentCompletion,
  AgentStart,
  NewAction,
  NewReviewRun,
  NewThread,
  PhaseChange,
  ReviewStore,
  RunQuery,
} from '../reviewStore';
import type { ReadTx, SqliteEngine, WriteTx } from './engine';
import { parseJson } from '../rows/json';
import {
  type RunRow,
  type AgentRow,
  type ActionRow,
  type ThreadRow,
  type CommentRow,
  RUN_COLUMNS,
  AGENT_COLUMNS,
  ACTION_COLUMNS,
  THREAD_COLUMNS,
  toRun,
  toAgent,
  toAction,
  toComment,
  toThread,
  FINAL,
} from '../rows/reviewRows';

export class SqliteReviewStore implements ReviewStore {
  constructor(private readonly engine: SqliteEngine) {}

  async insertRun(run: NewReviewRun): Promise<void> {
    await this.engine.write((tx) => {
      if (tx.get('SELECT 1 AS x FROM rv_runs WHERE id = ?', [run.id])) throw new LedgerError('conflict', `A review with id ${run.id} already exists`, { retryable: true });
      tx.run('INSERT OR IGNORE INTO projects (project_id, name, created_at) VALUES (?, ?, ?)', [run.projectId, run.projectId, run.createdAt]);
      tx.run(`INSERT INTO rv_runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, NULL, ?)`, [
        run.id,
        run.projectId,
        run.definition.name,
        JSON.stringify(run.definition),
        JSON.stringify(run.context),
        run.createdAt,
        run.createdAt,
        run.createdAt,
        run.startedBy,
      ]);
      run.definition.agents.forEach((a, i) => {
        tx.run("INSERT INTO rv_agents (run_id, position, name, description, state) VALUES (?, ?, ?, ?, 'pending')", [run.id, i, a.name, a.description]);
      });
      this.event(tx, run.eventId, run.id, 'run_started', run.createdAt, { workflow: run.definition.name, by: run.startedBy });
    });
  }

  private event(tx: WriteTx, id: string, runId: string, kind: string, at: string, data: Record<string, unknown>): void {
    tx.run('INSERT INTO rv_events (id, run_id, kind, created_at, data) VALUES (?, ?, ?, ?, ?)', [id, runId, kind, at, JSON.stringify(data)]);
  }

  private touch(tx: WriteTx, runId: string, at: string): void {
    tx.run('UPDATE rv_runs SET updated_at = ? WHERE id = ? AND updated_at < ?', [at, runId, at]);
  }

  private runRow(tx: ReadTx, id: string): RunRow {
    const row = tx.get<RunRow>(`SELECT ${RUN_COLUMNS} FROM rv_runs WHERE id = ?`, [id]);
    if (!row) throw new LedgerError('not_found', `No review ${id}. Call get_workflow to see the current review and its review_id.`, { details: { review_id: id } });
    return row;
  }

  async getRun(id: string): Promise<ReviewRun | undefined> {
    return this.engine.read((tx) => {
      const row = tx.get<RunRow>(`SELECT ${RUN_COLUMNS} FROM rv_runs WHERE id = ?`, [id]);
      return row ? toRun(row) : undefined;
    });
  }

  async listRuns(q: RunQuery): Promise<ReviewRun[]> {
    return this.engine.read((tx) => {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (q.projectId !== undefined) {
        where.push('project_id = ?');
        params.push(q.projectId);
      }
      if (q.active) where.push('finished_at IS NULL');
      if (q.workflow !== undefined) {
        where.push('workflow = ?');
        params.push(q.workflow);
      }
      // What a run reviews is in its context (JSON): the same filter on both backends.
      if (q.branch !== undefined) {
        where.push(`json_extract(context, '$.branch') = ?`);
        params.push(q.branch);
      }
      if (q.mergeRequest !== undefined) {
        where.push(`json_extract(context, '$.merge_request') = ?`);
        params.push(q.mergeRequest);
      }
      return tx
        .all<RunRow>(`SELECT ${RUN_COLUMNS} FROM rv_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY n DESC LIMIT ?`, [...params, q.limit])
        .map(toRun);
    });
  }

  async setPhase(c: PhaseChange): Promise<ReviewRun> {
    return this.engine.write((tx) => {
      const row = this.runRow(tx, c.runId);
      if (row.phase !== c.from) {
        throw new LedgerError('conflict', `Review ${c.runId} moved to phase ${row.phase} meanwhile; call get_workflow and decide again.`, { retryable: true, details: { phase: row.phase } });
      }
      const finished = FINAL.includes(c.to) ? c.at : null;
      tx.run('UPDATE rv_runs SET phase = ?, phase_changed_at = ?, finished_at = ?, updated_at = ? WHERE id = ?', [c.to, c.at, finished, c.at, c.runId]);
      this.event(tx, c.eventId, c.runId, 'phase_changed', c.at, { from: c.from, to: c.to, forced: c.forced, ...(c.note ? { note: c.note } : {}) });
      return toRun(this.runRow(tx, c.runId));
    });
  }

  async listAgents(runId: string): Promise<ReviewAgent[]> {
    return this.engine.read((tx) => tx.all<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? ORDER BY position`, [runId]).map(toAgent));
  }

  private agentRow(tx: ReadTx, runId: string, name: string): AgentRow {
    this.runRow(tx, runId);
    const row = tx.get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? AND name = ?`, [runId, name]);
    if (!row) {
      const names = tx.all<{ name: string }>('SELECT name FROM rv_agents WHERE run_id = ? ORDER BY position', [runId]).map((r) => r.name);
      throw new LedgerError('not_found', `Agent "${name}" is not in this review's list (${names.join(', ')}). Use a name from get_workflow's agents.`, { details: { agent: name, agents: names } });
    }
    return row;
  }

  async startAgent(s: AgentStart): Promise<ReviewAgent> {
    return this.engine.write((tx) => {
      const row = this.agentRow(tx, s.runId, s.name);
      const anomalies = parseJson<string[]>(row.anomalies, []);
      if (row.state === 'running') anomalies.push(`started twice: again at ${s.at} while running since ${row.started_at}`);
      else if (row.state !== 'pending') anomalies.push(`started again at ${s.at} after it ${row.state} at ${row.completed_at ?? 'an unknown time'}`);
      tx.run(
        "UPDATE rv_agents SET state = 'running', started_at = ?, completed_at = NULL, duration_ms = NULL, starts = starts + 1, anomalies = ? WHERE run_id = ? AND name = ?",
        [s.at, JSON.stringify(anomalies), s.runId, s.name],
      );
      this.touch(tx, s.runId, s.at);
      return toAgent(tx.get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? AND name = ?`, [s.runId, s.name])!);
    });
  }

  async completeAgent(c: AgentCompletion): Promise<ReviewAgent> {
    return this.engine.write((tx) => {
      const row = this.agentRow(tx, c.runId, c.name);
      const anomalies = parseJson<string[]>(row.anomalies, []);
      let duration: number | null = null;
      if (row.state === 'pending') anomalies.push(`completed without start_agent at ${c.at}`);
      else if (row.state !== 'running') anomalies.push(`completed twice: again at ${c.at} after it ${row.state} at ${row.completed_at ?? 'an unknown time'}`);
      if (row.state === 'running' && row.started_at) duration = Math.max(0, Date.parse(c.at) - Date.parse(row.started_at));
      else if (row.state !== 'pending' && row.duration_ms !== null) duration = Number(row.duration_ms);
      tx.run('UPDATE rv_agents SET state = ?, completed_at = ?, duration_ms = ?, summary = coalesce(?, summary), completions = completions + 1, anomalies = ? WHERE run_id = ? AND name = ?', [
        c.state,
        c.at,
        duration,
        c.summary,
        JSON.stringify(anomalies),
        c.runId,
        c.name,
      ]);
      this.touch(tx, c.runId, c.at);
      return toAgent(tx.get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? AND name = ?`, [c.runId, c.name])!);
    });
  }

  private threadRow(tx: ReadTx, id: string): ThreadRow {
    const row = tx.get<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM rv_threads WHERE id = ?`, [id]);
    if (!row) throw new LedgerError('not_found', `No review thread ${id}. Call get_threads for the open threads and their ids.`, { details: { thread_id: id } });
    return row;
  }

  private writeThread(tx: WriteTx, t: NewThread): void {
    if (tx.get('SELECT 1 AS x FROM rv_threads WHERE id = ?', [t.id])) throw new LedgerError('conflict', `A thread with id ${t.id} already exists`, { retryable: true });
    tx.run(`INSERT INTO rv_threads (${THREAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, NULL, NULL, ?)`, [t.id, t.runId, t.file, t.line, t.endLine, t.createdAt, t.createdBy, t.actionId]);
    tx.run('INSERT INTO rv_comments (id, thread_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)', [t.comment.id, t.id, t.createdBy, t.comment.body, t.createdAt]);
  }

  async insertAction(a: NewAction): Promise<void> {
    await this.engine.write((tx) => {
      this.runRow(tx, a.runId);
      if (a.threadId !== null && !a.thread) {
        const thread = this.threadRow(tx, a.threadId);
        if (thread.run_id !== a.runId) throw new LedgerError('not_found', `Thread ${a.threadId} belongs to another review. Call get_threads for this review's threads.`, { details: { thread_id: a.threadId } });
      }
      if (a.thread) this.writeThread(tx, a.thread);
      tx.run(
        'INSERT INTO rv_actions (id, run_id, kind, target, text, original_text, status, created_at, created_by, thread_id) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)',
        [a.id, a.runId, a.kind, JSON.stringify(a.target), a.text, 'pending', a.createdAt, a.createdBy, a.threadId],
      );
      this.touch(tx, a.runId, a.createdAt);
    });
  }

  async getAction(id: string): Promise<ReviewAction | undefined> {
    return this.engine.read((tx) => {
      const row = tx.get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?`, [id]);
      return row ? toAction(row) : undefined;
    });
  }

  async listActions(runId: string, status?: ActionStatus): Promise<ReviewAction[]> {
    return this.engine.read((tx) =>
      tx
        .all<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE run_id = ? ${status ? 'AND status = ?' : ''} ORDER BY n`, status ? [runId, status] : [runId])
        .map(toAction),
    );
  }

  private pendingAction(tx: ReadTx, id: string): ActionRow {
    const row = tx.get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?`, [id]);
    if (!row) throw new LedgerError('not_found', `No review action ${id}. The Review view and get_workflow list the actions.`, { details: { action_id: id } });
    if (row.status !== 'pending') {
      throw new LedgerError('conflict', `Action ${id} was already ${row.status} by ${row.decided_by ?? 'someone'} at ${row.decided_at ?? 'an unknown time'}.`, { details: { action_id: id, status: row.status } });
    }
    return row;
  }

  async editAction(actionId: string, text: string, by: string, at: string): Promise<ReviewAction> {
    return this.engine.write((tx) => {
      const row = this.pendingAction(tx, actionId);
      tx.run('UPDATE rv_actions SET text = ?, original_text = coalesce(original_text, ?), edited_by = ? WHERE id = ?', [text, row.text, by, actionId]);
      this.touch(tx, row.run_id, at);
      return toAction(tx.get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?`, [actionId])!);
    });
  }

  async decideAction(d: ActionDecision): Promise<ReviewAction> {
    return this.engine.write((tx) => {
      const row = this.pendingAction(tx, d.actionId);
      tx.run('UPDATE rv_actions SET status = ?, decided_at = ?, decided_by = ?, note = ? WHERE id = ?', [d.status, d.at, d.by, d.note, d.actionId]);
      if (d.status === 'approved' && row.thread_id) {
        const thread = tx.get<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM rv_threads WHERE id = ?`, [row.thread_id]);
        if (thread && row.kind === 'reply_thread') {
          tx.run('INSERT INTO rv_comments (id, thread_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)', [d.commentId, row.thread_id, row.created_by ?? 'agent', row.text, d.at]);
        } else if (thread && row.kind === 'resolve_thread' && thread.status !== 'resolved') {
          tx.run("UPDATE rv_threads SET status = 'resolved', resolved_at = ?, resolved_by = ? WHERE id = ?", [d.at, d.by, row.thread_id]);
        }
      }
      this.touch(tx, row.run_id, d.at);
      return toAction(tx.get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?`, [d.actionId])!);
    });
  }

  async insertThread(t: NewThread): Promise<void> {
    await this.engine.write((tx) => {
      this.runRow(tx, t.runId);
      this.writeThread(tx, t);
      this.touch(tx, t.runId, t.createdAt);
    });
  }

  private threadsWhere(tx: ReadTx, where: string, params: string[]): ReviewThread[] {
    const rows = tx.all<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM rv_threads WHERE ${where} ORDER BY n`, params);
    if (rows.length === 0) return [];
    const comments = new Map<string, ThreadComment[]>();
    for (const c of tx.all<CommentRow>(`SELECT id, thread_id, author, body, created_at FROM rv_comments WHERE thread_id IN (SELECT id FROM rv_threads WHERE ${where}) ORDER BY n`, params)) {
      const list = comments.get(c.thread_id) ?? [];
      list.push(toComment(c));
      comments.set(c.thread_id, list);
    }
    return rows.map((r) => toThread(r, comments.get(r.id) ?? []));
  }

  async getThread(id: string): Promise<ReviewThread | undefined> {
    return this.engine.read((tx) => this.threadsWhere(tx, 'id = ?', [id])[0]);
  }

  async listThreads(runId: string, status?: ThreadStatus): Promise<ReviewThread[]> {
    return this.engine.read((tx) => this.threadsWhere(tx, status ? 'run_id = ? AND status = ?' : 'run_id = ?', status ? [runId, status] : [runId]));
  }

  async addComment(c: ThreadComment): Promise<void> {
    await this.engine.write((tx) => {
      const thread = this.threadRow(tx, c.threadId);
      tx.run('INSERT INTO rv_comments (id, thread_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)', [c.id, c.threadId, c.author, c.body, c.createdAt]);
      this.touch(tx, thread.run_id, c.createdAt);
    });
  }

  async setThreadStatus(threadId: string, status: ThreadStatus, by: string, at: string): Promise<ReviewThread> {
    return this.engine.write((tx) => {
      const thread = this.threadRow(tx, threadId);
      if (status === 'resolved') tx.run("UPDATE rv_threads SET status = 'resolved', resolved_at = ?, resolved_by = ? WHERE id = ?", [at, by, threadId]);
      else tx.run("UPDATE rv_threads SET status = 'open', resolved_at = NULL, resolved_by = NULL WHERE id = ?", [threadId]);
      this.touch(tx, thread.run_id, at);
      return this.threadsWhere(tx, 'id = ?', [threadId])[0]!;
    });
  }

  async listEvents(runId: string): Promise<ReviewEvent[]> {
    return this.engine.read((tx) =>
      tx
        .all<{ n: number; run_id: string; kind: string; created_at: string; data: string }>('SELECT n, run_id, kind, created_at, data FROM rv_events WHERE run_id = ? ORDER BY n', [runId])
        .map((r) => ({ seq: Number(r.n), runId: r.run_id, kind: r.kind as ReviewEvent['kind'], createdAt: r.created_at, data: parseJson<Record<string, unknown>>(r.data, {}) })),
    );
  }
}
