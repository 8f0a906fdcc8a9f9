// ReviewStore on both backends: every SQL statement of review runs lives here. Statements are
// deterministic (ids and times come in as parameters): the embedded engine journals them and
// the other processes sharing the ledger replay them. The rows a write decides on (the run's
// phase, an agent, a pending action, a thread) are read with the dialect's row lock, so two
// PostgreSQL servers deciding the same action cannot both win.

import { LedgerError } from '../../errors';
import type { ActionStatus, ReviewAction, ReviewAgent, ReviewEvent, ReviewRun, ReviewThread, ThreadComment, ThreadStatus } from '../../review/types';
import type { ActionDecision, AgentCompletion, AgentStart, NewAction, NewReviewRun, NewThread, PhaseChange, ReviewStore, RunQuery } from '../reviewStore';
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
import type { Dialect } from './dialect';
import { all, get, run, type Sql, type SqlDb } from './statements';

function* event(id: string, runId: string, kind: string, at: string, data: Record<string, unknown>): Sql<void> {
  yield* run('INSERT INTO rv_events (id, run_id, kind, created_at, data) VALUES (?, ?, ?, ?, ?)', [id, runId, kind, at, JSON.stringify(data)]);
}

function* touch(runId: string, at: string): Sql<void> {
  yield* run('UPDATE rv_runs SET updated_at = ? WHERE id = ? AND updated_at < ?', [at, runId, at]);
}

function* runRow(d: Dialect, id: string): Sql<RunRow> {
  const row = yield* get<RunRow>(`SELECT ${RUN_COLUMNS} FROM rv_runs WHERE id = ?${d.forUpdate}`, [id]);
  if (!row) throw new LedgerError('not_found', `No review ${id}. Call get_workflow to see the current review and its review_id.`, { details: { review_id: id } });
  return row;
}

function* agentRow(d: Dialect, runId: string, name: string): Sql<AgentRow> {
  yield* runRow(d, runId);
  const row = yield* get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? AND name = ?${d.forUpdate}`, [runId, name]);
  if (!row) {
    const names = (yield* all<{ name: string }>('SELECT name FROM rv_agents WHERE run_id = ? ORDER BY position', [runId])).map((r) => r.name);
    throw new LedgerError('not_found', `Agent "${name}" is not in this review's list (${names.join(', ')}). Use a name from get_workflow's agents.`, {
      details: { agent: name, agents: names },
    });
  }
  return row;
}

function* agent(runId: string, name: string): Sql<ReviewAgent> {
  return toAgent((yield* get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? AND name = ?`, [runId, name]))!);
}

function* threadRow(d: Dialect, id: string): Sql<ThreadRow> {
  const row = yield* get<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM rv_threads WHERE id = ?${d.forUpdate}`, [id]);
  if (!row) throw new LedgerError('not_found', `No review thread ${id}. Call get_threads for the open threads and their ids.`, { details: { thread_id: id } });
  return row;
}

function* writeThread(t: NewThread): Sql<void> {
  if (yield* get('SELECT 1 AS x FROM rv_threads WHERE id = ?', [t.id])) throw new LedgerError('conflict', `A thread with id ${t.id} already exists`, { retryable: true });
  yield* run(`INSERT INTO rv_threads (${THREAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, NULL, NULL, ?)`, [
    t.id,
    t.runId,
    t.file,
    t.line,
    t.endLine,
    t.createdAt,
    t.createdBy,
    t.actionId,
  ]);
  yield* run('INSERT INTO rv_comments (id, thread_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)', [t.comment.id, t.id, t.createdBy, t.comment.body, t.createdAt]);
}

function* action(id: string): Sql<ReviewAction> {
  return toAction((yield* get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?`, [id]))!);
}

function* pendingAction(d: Dialect, id: string): Sql<ActionRow> {
  const row = yield* get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?${d.forUpdate}`, [id]);
  if (!row) throw new LedgerError('not_found', `No review action ${id}. The Review view and get_workflow list the actions.`, { details: { action_id: id } });
  if (row.status !== 'pending') {
    throw new LedgerError('conflict', `Action ${id} was already ${row.status} by ${row.decided_by ?? 'someone'} at ${row.decided_at ?? 'an unknown time'}.`, {
      details: { action_id: id, status: row.status },
    });
  }
  return row;
}

function* threadsWhere(where: string, params: string[]): Sql<ReviewThread[]> {
  const rows = yield* all<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM rv_threads WHERE ${where} ORDER BY n`, params);
  if (rows.length === 0) return [];
  const comments = new Map<string, ThreadComment[]>();
  for (const c of yield* all<CommentRow>(
    `SELECT id, thread_id, author, body, created_at FROM rv_comments WHERE thread_id IN (SELECT id FROM rv_threads WHERE ${where}) ORDER BY n`,
    params,
  )) {
    const list = comments.get(c.thread_id) ?? [];
    list.push(toComment(c));
    comments.set(c.thread_id, list);
  }
  return rows.map((r) => toThread(r, comments.get(r.id) ?? []));
}

export class SqlReviewStore implements ReviewStore {
  constructor(private readonly db: SqlDb) {}

  async insertRun(r: NewReviewRun): Promise<void> {
    await this.db.write(function* (d) {
      if (yield* get('SELECT 1 AS x FROM rv_runs WHERE id = ?', [r.id])) throw new LedgerError('conflict', `A review with id ${r.id} already exists`, { retryable: true });
      yield* run(d.insertOrIgnore('projects (project_id, name, created_at) VALUES (?, ?, ?)'), [r.projectId, r.projectId, r.createdAt]);
      yield* run(`INSERT INTO rv_runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, NULL, ?)`, [
        r.id,
        r.projectId,
        r.definition.name,
        JSON.stringify(r.definition),
        JSON.stringify(r.context),
        r.createdAt,
        r.createdAt,
        r.createdAt,
        r.startedBy,
      ]);
      for (const [i, a] of r.definition.agents.entries()) {
        yield* run("INSERT INTO rv_agents (run_id, position, name, description, state) VALUES (?, ?, ?, ?, 'pending')", [r.id, i, a.name, a.description]);
      }
      yield* event(r.eventId, r.id, 'run_started', r.createdAt, { workflow: r.definition.name, by: r.startedBy });
    });
  }

  async getRun(id: string): Promise<ReviewRun | undefined> {
    return this.db.read(function* () {
      const row = yield* get<RunRow>(`SELECT ${RUN_COLUMNS} FROM rv_runs WHERE id = ?`, [id]);
      return row ? toRun(row) : undefined;
    });
  }

  async listRuns(q: RunQuery): Promise<ReviewRun[]> {
    return this.db.read(function* (d) {
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
        where.push(`${d.jsonText('context', 'branch')} = ?`);
        params.push(q.branch);
      }
      if (q.mergeRequest !== undefined) {
        where.push(`${d.jsonText('context', 'merge_request')} = ?`);
        params.push(q.mergeRequest);
      }
      const rows = yield* all<RunRow>(`SELECT ${RUN_COLUMNS} FROM rv_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY n DESC LIMIT ?`, [...params, q.limit]);
      return rows.map(toRun);
    });
  }

  async setPhase(c: PhaseChange): Promise<ReviewRun> {
    return this.db.write(function* (d) {
      const row = yield* runRow(d, c.runId);
      if (row.phase !== c.from) {
        throw new LedgerError('conflict', `Review ${c.runId} moved to phase ${row.phase} meanwhile; call get_workflow and decide again.`, {
          retryable: true,
          details: { phase: row.phase },
        });
      }
      const finished = FINAL.includes(c.to) ? c.at : null;
      yield* run('UPDATE rv_runs SET phase = ?, phase_changed_at = ?, finished_at = ?, updated_at = ? WHERE id = ?', [c.to, c.at, finished, c.at, c.runId]);
      yield* event(c.eventId, c.runId, 'phase_changed', c.at, { from: c.from, to: c.to, forced: c.forced, ...(c.note ? { note: c.note } : {}) });
      return toRun(yield* runRow(d, c.runId));
    });
  }

  async listAgents(runId: string): Promise<ReviewAgent[]> {
    return this.db.read(function* () {
      return (yield* all<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM rv_agents WHERE run_id = ? ORDER BY position`, [runId])).map(toAgent);
    });
  }

  async startAgent(s: AgentStart): Promise<ReviewAgent> {
    return this.db.write(function* (d) {
      const row = yield* agentRow(d, s.runId, s.name);
      const anomalies = parseJson<string[]>(row.anomalies, []);
      if (row.state === 'running') anomalies.push(`started twice: again at ${s.at} while running since ${row.started_at}`);
      else if (row.state !== 'pending') anomalies.push(`started again at ${s.at} after it ${row.state} at ${row.completed_at ?? 'an unknown time'}`);
      yield* run(
        "UPDATE rv_agents SET state = 'running', started_at = ?, completed_at = NULL, duration_ms = NULL, starts = starts + 1, anomalies = ? WHERE run_id = ? AND name = ?",
        [s.at, JSON.stringify(anomalies), s.runId, s.name],
      );
      yield* touch(s.runId, s.at);
      return yield* agent(s.runId, s.name);
    });
  }

  async completeAgent(c: AgentCompletion): Promise<ReviewAgent> {
    return this.db.write(function* (d) {
      const row = yield* agentRow(d, c.runId, c.name);
      const anomalies = parseJson<string[]>(row.anomalies, []);
      let duration: number | null = null;
      if (row.state === 'pending') anomalies.push(`completed without start_agent at ${c.at}`);
      else if (row.state !== 'running') anomalies.push(`completed twice: again at ${c.at} after it ${row.state} at ${row.completed_at ?? 'an unknown time'}`);
      if (row.state === 'running' && row.started_at) duration = Math.max(0, Date.parse(c.at) - Date.parse(row.started_at));
      else if (row.state !== 'pending' && row.duration_ms !== null) duration = Number(row.duration_ms);
      yield* run(
        'UPDATE rv_agents SET state = ?, completed_at = ?, duration_ms = ?, summary = coalesce(?, summary), completions = completions + 1, anomalies = ? WHERE run_id = ? AND name = ?',
        [c.state, c.at, duration, c.summary, JSON.stringify(anomalies), c.runId, c.name],
      );
      yield* touch(c.runId, c.at);
      return yield* agent(c.runId, c.name);
    });
  }

  async insertAction(a: NewAction): Promise<void> {
    await this.db.write(function* (d) {
      yield* runRow(d, a.runId);
      if (a.threadId !== null && !a.thread) {
        const thread = yield* threadRow(d, a.threadId);
        if (thread.run_id !== a.runId)
          throw new LedgerError('not_found', `Thread ${a.threadId} belongs to another review. Call get_threads for this review's threads.`, { details: { thread_id: a.threadId } });
      }
      if (a.thread) yield* writeThread(a.thread);
      yield* run('INSERT INTO rv_actions (id, run_id, kind, target, text, original_text, status, created_at, created_by, thread_id) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)', [
        a.id,
        a.runId,
        a.kind,
        JSON.stringify(a.target),
        a.text,
        'pending',
        a.createdAt,
        a.createdBy,
        a.threadId,
      ]);
      yield* touch(a.runId, a.createdAt);
    });
  }

  async getAction(id: string): Promise<ReviewAction | undefined> {
    return this.db.read(function* () {
      const row = yield* get<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE id = ?`, [id]);
      return row ? toAction(row) : undefined;
    });
  }

  async listActions(runId: string, status?: ActionStatus): Promise<ReviewAction[]> {
    return this.db.read(function* () {
      return (yield* all<ActionRow>(
        `SELECT ${ACTION_COLUMNS} FROM rv_actions WHERE run_id = ? ${status ? 'AND status = ?' : ''} ORDER BY n`,
        status ? [runId, status] : [runId],
      )).map(toAction);
    });
  }

  async editAction(actionId: string, text: string, by: string, at: string): Promise<ReviewAction> {
    return this.db.write(function* (d) {
      const row = yield* pendingAction(d, actionId);
      yield* run('UPDATE rv_actions SET text = ?, original_text = coalesce(original_text, ?), edited_by = ? WHERE id = ?', [text, row.text, by, actionId]);
      yield* touch(row.run_id, at);
      return yield* action(actionId);
    });
  }

  async decideAction(c: ActionDecision): Promise<ReviewAction> {
    return this.db.write(function* (d) {
      const row = yield* pendingAction(d, c.actionId);
      yield* run('UPDATE rv_actions SET status = ?, decided_at = ?, decided_by = ?, note = ? WHERE id = ?', [c.status, c.at, c.by, c.note, c.actionId]);
      if (c.status === 'approved' && row.thread_id) {
        const thread = yield* get<ThreadRow>(`SELECT ${THREAD_COLUMNS} FROM rv_threads WHERE id = ?`, [row.thread_id]);
        if (thread && row.kind === 'reply_thread') {
          yield* run('INSERT INTO rv_comments (id, thread_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)', [
            c.commentId,
            row.thread_id,
            row.created_by ?? 'agent',
            row.text,
            c.at,
          ]);
        } else if (thread && row.kind === 'resolve_thread' && thread.status !== 'resolved') {
          yield* run("UPDATE rv_threads SET status = 'resolved', resolved_at = ?, resolved_by = ? WHERE id = ?", [c.at, c.by, row.thread_id]);
        }
      }
      yield* touch(row.run_id, c.at);
      return yield* action(c.actionId);
    });
  }

  async insertThread(t: NewThread): Promise<void> {
    await this.db.write(function* (d) {
      yield* runRow(d, t.runId);
      yield* writeThread(t);
      yield* touch(t.runId, t.createdAt);
    });
  }

  async getThread(id: string): Promise<ReviewThread | undefined> {
    return this.db.read(function* () {
      return (yield* threadsWhere('id = ?', [id]))[0];
    });
  }

  async listThreads(runId: string, status?: ThreadStatus): Promise<ReviewThread[]> {
    return this.db.read(() => threadsWhere(status ? 'run_id = ? AND status = ?' : 'run_id = ?', status ? [runId, status] : [runId]));
  }

  async addComment(c: ThreadComment): Promise<void> {
    await this.db.write(function* (d) {
      const thread = yield* threadRow(d, c.threadId);
      yield* run('INSERT INTO rv_comments (id, thread_id, author, body, created_at) VALUES (?, ?, ?, ?, ?)', [c.id, c.threadId, c.author, c.body, c.createdAt]);
      yield* touch(thread.run_id, c.createdAt);
    });
  }

  async setThreadStatus(threadId: string, status: ThreadStatus, by: string, at: string): Promise<ReviewThread> {
    return this.db.write(function* (d) {
      const thread = yield* threadRow(d, threadId);
      if (status === 'resolved') yield* run("UPDATE rv_threads SET status = 'resolved', resolved_at = ?, resolved_by = ? WHERE id = ?", [at, by, threadId]);
      else yield* run("UPDATE rv_threads SET status = 'open', resolved_at = NULL, resolved_by = NULL WHERE id = ?", [threadId]);
      yield* touch(thread.run_id, at);
      return (yield* threadsWhere('id = ?', [threadId]))[0]!;
    });
  }

  async listEvents(runId: string): Promise<ReviewEvent[]> {
    return this.db.read(function* () {
      const rows = yield* all<{ n: number; run_id: string; kind: string; created_at: string; data: string }>(
        'SELECT n, run_id, kind, created_at, data FROM rv_events WHERE run_id = ? ORDER BY n',
        [runId],
      );
      return rows.map((r) => ({
        seq: Number(r.n),
        runId: r.run_id,
        kind: r.kind as ReviewEvent['kind'],
        createdAt: r.created_at,
        data: parseJson<Record<string, unknown>>(r.data, {}),
      }));
    });
  }
}
