// One store test suite run against both backends: the embedded sql.js engine in a temp folder and
// PostgreSQL (a throwaway server that test/helpers/postgres.ts starts). Each scenario returns what
// the stores answered; the assertions are the same for both, and at the end the two backends'
// answers are compared whole, so a difference in behaviour shows even where no assertion looks.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isLedgerError } from '../../../../src/core/errors';
import { openLedger } from '../../../../src/core/storage/openLedger';
import { openHostLedger } from '../../../../src/core/host/client';
import type { Ledger, LedgerChange } from '../../../../src/core/storage/store';
import type { Snapshot } from '../../../../src/core/workflow/types';
import type { ReviewDefinition } from '../../../../src/core/review/types';
import { usePostgres } from '../../../helpers/postgres';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { waitFor } from '../../../helpers/wait';

type Factory = () => Promise<Ledger>;
const operator = { kind: 'operator' as const, name: 'tester' };
const T = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

async function rejects(p: Promise<unknown>, code: string, pattern?: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isLedgerError(err), `expected a LedgerError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

function snapshot(id: string, taskId: string, role: 'start' | 'end', root: string): Snapshot {
  return {
    id,
    taskId,
    role,
    type: 'none',
    root,
    workspace: root,
    head: null,
    branch: null,
    tree: null,
    ref: null,
    manifest: null,
    fileCount: null,
    digest: null,
    createdAt: T(0),
    tookMs: 1,
    note: null,
  };
}

/** What each backend answered, per scenario, compared at the end. */
const answers: Record<string, Record<string, unknown>> = {};

function contract(backend: 'sqlite' | 'host' | 'postgres' | 'postgres-host', factory: () => Factory): void {
  describe(`ledger contract on ${backend}`, function () {
    this.timeout(60_000);
    const opened: Ledger[] = [];
    const open = async (): Promise<Ledger> => {
      const ledger = await factory()();
      opened.push(ledger);
      return ledger;
    };
    afterEach(async () => {
      while (opened.length > 0) await opened.pop()!.close();
    });
    const record = (scenario: string, value: unknown): void => {
      // Ids the stores generate (attempts, default task types) differ from run to run.
      (answers[scenario] ??= {})[backend] = JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' && /^[A-Za-z0-9_-]{12}$/.test(v) ? '<generated id>' : v)));
    };

    it('stores entries, refuses a taken id and finds entries by id', async () => {
      const l = await open();
      await l.progress.insertEntry({
        id: 'e1',
        projectId: 'app',
        title: 'Fixed OAuth login',
        content: 'The token refresh was broken.',
        createdAt: T(1),
        tags: ['auth', 'Bug'],
        agentId: 'claude',
      });
      await rejects(l.progress.insertEntry({ id: 'e1', projectId: 'app', title: 'x', content: 'y', createdAt: T(2), tags: [], agentId: null }), 'conflict');
      // In a project of its own: refused all the same, and the project is not left behind.
      await rejects(l.progress.insertEntry({ id: 'e1', projectId: 'fresh', title: 'x', content: 'y', createdAt: T(2), tags: ['t'], agentId: null }), 'conflict');
      assert.ok(!(await l.progress.listProjects()).some((p) => p.projectId === 'fresh'), 'no project left by a refused entry');
      const got = await l.progress.getEntry('app', 'e1');
      assert.equal(got?.title, 'Fixed OAuth login');
      assert.deepEqual(got?.tags, ['auth', 'Bug']);
      assert.equal(await l.progress.getEntry('other', 'e1'), undefined);
      assert.equal((await l.progress.findEntry('e1'))?.projectId, 'app');
      const first = await l.progress.saveSummary('app', 'e1', 'First summary', 'openai');
      const second = await l.progress.saveSummary('app', 'e1', 'Second summary', 'fallback');
      assert.deepEqual(second, { summary: 'First summary', source: 'openai' });
      await rejects(l.progress.saveSummary('app', 'nope', 's', 'openai'), 'not_found');
      record('entries', { got: await l.progress.getEntry('app', 'e1'), first, second });
    });

    it('writes a digest entry with its mark once, and keeps the mark when the entry is archived or deleted', async () => {
      const l = await open();
      const entry = (id: string, minute: number) => ({
        id,
        projectId: 'app',
        title: `Digest ${id}`,
        content: 'What the session did.',
        createdAt: T(minute),
        tags: ['auto', 'codex'],
        agentId: 'codex:0123abcd',
      });
      assert.equal(await l.progress.insertDigest(entry('dg-part-0001', 1), { coveredTo: 12, coveredUntil: T(1) }), true);
      assert.equal(await l.progress.insertDigest(entry('dg-part-0001', 2), { coveredTo: 40, coveredUntil: T(2) }), false);
      // An id an entry already holds (logged without a mark) is not taken over.
      await l.progress.insertEntry({ ...entry('dg-plain-001', 3), tags: [] });
      assert.equal(await l.progress.insertDigest(entry('dg-plain-001', 4), { coveredTo: 1, coveredUntil: null }), false);
      assert.equal(await l.progress.getDigestMark('dg-plain-001'), undefined);
      const archived = await l.transfer.archiveEntriesBefore({ before: T(10) }, T(11));
      const afterArchive = await l.progress.getDigestMark('dg-part-0001');
      assert.equal(await l.progress.insertDigest(entry('dg-part-0001', 12), { coveredTo: 50, coveredUntil: null }), false);
      const restored = await l.transfer.restoreArchived();
      const deleted = await l.transfer.deleteEntriesBefore({ before: T(10) });
      assert.equal(await l.progress.insertDigest(entry('dg-part-0001', 13), { coveredTo: 60, coveredUntil: null }), false);
      const mark = await l.progress.getDigestMark('dg-part-0001');
      assert.deepEqual(mark, { coveredTo: 12, coveredUntil: T(1) });
      assert.equal((await l.progress.searchEntries({ projectId: 'app', limit: 10 })).total, 0);
      record('digest marks', { archived, afterArchive, restored, deleted, mark });
    });

    it('matches a phrase within one column and reads OR loosest, as FTS4 does', async () => {
      const l = await open();
      const rows = [
        { id: 'p1', title: 'Queue lease', content: 'Worker timeout handling.' },
        { id: 'p2', title: 'Notes', content: 'The lease worker restarts.' },
        { id: 'p3', title: 'alpha beta', content: 'nothing' },
        { id: 'p4', title: 'gamma', content: 'only gamma here' },
        { id: 'p5', title: 'alpha', content: 'gamma too' },
      ];
      for (const [i, r] of rows.entries()) await l.progress.insertEntry({ ...r, projectId: 'ph', createdAt: T(i), tags: [], agentId: null });
      const ids = async (text: string): Promise<string[]> => (await l.progress.searchEntries({ projectId: 'ph', text, limit: 10 })).entries.map((e) => e.id).sort();
      const got = {
        acrossColumns: await ids('"lease worker"'),
        prefixAcross: await ids('lease_work*'),
        andThenOr: await ids('alpha beta OR gamma'),
        orThenAnd: await ids('alpha OR beta gamma'),
      };
      assert.deepEqual(got, { acrossColumns: ['p2'], prefixAcross: ['p2'], andThenOr: ['p3', 'p4', 'p5'], orThenAnd: ['p3', 'p5'] });
      record('phrases and OR', got);
    });

    it('searches by words, title substring, tags and dates, ranked and paged', async () => {
      const l = await open();
      const rows = [
        { id: 'a', title: 'OAuth token refresh', content: 'Refresh tokens now rotate on every use.', tags: ['auth'], m: 1 },
        { id: 'b', title: 'Database migration', content: 'Moved the oauth tables; nothing about tokens here.', tags: ['db', 'Auth'], m: 2 },
        { id: 'c', title: 'UI polish', content: 'Buttons and spacing.', tags: ['ui'], m: 3 },
        { id: 'd', title: 'Session cookies', content: 'Cookie sessions replace the old session table for oauth login.', tags: ['auth', 'ui'], m: 4 },
        { id: 'e', title: 'Logging', content: 'Structured logs with request ids: log_entries and rotation.', tags: [], m: 5 },
      ];
      for (const r of rows) await l.progress.insertEntry({ id: r.id, projectId: 'p', title: r.title, content: r.content, createdAt: T(r.m), tags: r.tags, agentId: null });
      await l.progress.insertEntry({ id: 'z', projectId: 'q', title: 'OAuth elsewhere', content: 'other project', createdAt: T(9), tags: ['auth'], agentId: null });
      await l.settle();
      const ids = (page: { entries: { id: string }[] }): string[] => page.entries.map((e) => e.id);
      const oauth = await l.progress.searchEntries({ projectId: 'p', text: 'oauth', limit: 10 });
      assert.equal(oauth.total, 3);
      assert.equal(oauth.entries[0]!.id, 'a', 'a title match ranks first');
      assert.deepEqual(new Set(ids(oauth)), new Set(['a', 'b', 'd']));
      assert.ok(oauth.entries.every((e) => typeof e.snippet === 'string' && e.snippet.length > 0));
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', text: 'oauth -session', limit: 10 })).sort(), ['a', 'b']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', text: '"session table"', limit: 10 })), ['d']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', text: 'rot*', limit: 10 })).sort(), ['a', 'e']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', text: 'buttons OR cookie', limit: 10 })).sort(), ['c', 'd']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', text: 'oauth tokens', limit: 10 })).sort(), ['a', 'b']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', text: 'log_entries', limit: 10 })), ['e']);
      assert.equal((await l.progress.searchEntries({ projectId: undefined, text: 'oauth', limit: 10 })).total, 4);
      await rejects(l.progress.searchEntries({ projectId: 'p', text: '*** ---', limit: 10 }), 'invalid_argument', /no words/);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', query: 'OAUTH', limit: 10 })), ['a']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', tags: ['AUTH'], limit: 10 })), ['d', 'b', 'a']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', tags: ['auth', 'ui'], limit: 10 })), ['d']);
      assert.deepEqual(ids(await l.progress.searchEntries({ projectId: 'p', startDate: T(2), endDate: T(4), limit: 10 })), ['d', 'c', 'b']);
      const page = await l.progress.searchEntries({ projectId: 'p', limit: 2, offset: 1 });
      assert.equal(page.total, 5);
      assert.deepEqual(ids(page), ['d', 'c']);
      assert.deepEqual(await l.progress.listTags('p'), [
        { tag: 'Auth', count: 3 },
        { tag: 'ui', count: 2 },
        { tag: 'db', count: 1 },
      ]);
      const projects = await l.progress.listProjects();
      assert.deepEqual(
        projects.map((p) => [p.projectId, p.entryCount, p.lastEntryAt]),
        [
          ['q', 1, T(9)],
          ['p', 5, T(5)],
        ],
      );
      record('search', { oauth: ids(oauth), page, projects, tags: await l.progress.listTags('p') });
    });

    it('runs the queue: types, duplicates, FIFO leasing, completion, failure, retries and reaping', async () => {
      const l = await open();
      const q = l.queue;
      const project = await q.createProject(
        { projectId: 'qp', description: 'queue', config: { defaultMaxRetries: 1, defaultLeaseDurationMinutes: 5, reaperIntervalMinutes: 1 }, at: T(0) },
        operator,
      );
      assert.equal(project.status, 'active');
      await rejects(q.createProject({ projectId: 'qp', description: '', config: project.config, at: T(0) }, operator), 'conflict');
      const type = await q.createTaskType(
        {
          id: 'ty1',
          projectId: 'qp',
          name: 'review',
          template: 'Review {{file}}',
          variables: ['file'],
          duplicateHandling: 'ignore',
          maxRetries: undefined,
          leaseDurationMinutes: undefined,
          at: T(0),
        },
        operator,
      );
      assert.equal(type.maxRetries, 1);
      await rejects(
        q.createTaskType({ ...type, id: 'ty2', template: null, variables: [], duplicateHandling: 'allow', maxRetries: 1, leaseDurationMinutes: 1, at: T(0) }, operator),
        'conflict',
      );
      const added = await q.addTasks(
        'qp',
        [
          { id: 't1', typeId: 'ty1', instructions: 'Review a.ts', variables: { file: 'a.ts' }, variablesKey: '{"file":"a.ts"}' },
          { id: 't2', typeId: 'ty1', instructions: 'Review a.ts', variables: { file: 'a.ts' }, variablesKey: '{"file":"a.ts"}' },
          { id: 't3', typeId: '', instructions: 'Plain work', variables: null, variablesKey: null },
          { id: 't4', typeId: 'nope', instructions: 'x', variables: null, variablesKey: null },
        ],
        T(1),
        operator,
      );
      assert.deepEqual(
        added.map((o) => o.kind),
        ['created', 'duplicate', 'created', 'error'],
      );
      await q.registerAgent({ name: 'ag1', projectId: 'qp', keyHash: 'h1', sessionId: null, at: T(1) }, operator);
      await q.registerAgent({ name: 'ag2', projectId: 'qp', keyHash: 'h2', sessionId: null, at: T(1) }, operator);
      await rejects(q.registerAgent({ name: 'ag1', projectId: 'qp', keyHash: 'h3', sessionId: null, at: T(1) }, operator), 'conflict');
      assert.equal((await q.agentByKeyHash('qp', 'h2'))?.name, 'ag2');
      const r1 = await q.requestTask('qp', 'ag1', T(2));
      const again = await q.requestTask('qp', 'ag1', T(2));
      const r2 = await q.requestTask('qp', 'ag2', T(2));
      assert.equal(r1.kind, 'assigned');
      assert.equal(again.kind, 'current');
      assert.deepEqual([r1.kind === 'assigned' && r1.task.id, r2.kind === 'assigned' && r2.task.id], ['t1', 't3']);
      const empty = await q.requestTask('qp', 'ag1', T(2));
      assert.equal(empty.kind, 'current');
      await rejects(q.completeTask('t1', 'ag2', 'not mine', T(3)), 'conflict', /assigned to agent ag1/);
      const done = await q.completeTask('t1', 'ag1', 'looked fine', T(3));
      assert.equal(done.status, 'completed');
      const nothing = await q.requestTask('qp', 'ag1', T(3));
      assert.deepEqual(nothing, { kind: 'empty', counts: { running: 1, queued: 0 } });
      const failed = await q.failTask('t3', 'ag2', 'flaky', true, T(4));
      assert.equal(failed.requeued, true);
      const retry = await q.requestTask('qp', 'ag2', T(4));
      assert.equal(retry.kind === 'assigned' && retry.task.retryCount, 1);
      const extended = await q.extendLease('t3', 'ag2', 10, T(5));
      assert.equal(extended.leaseExpiresAt, T(19));
      // The lease runs out: no retries left, so the reaper fails it with reason timeout.
      const reaped = await q.reapExpired(T(30));
      assert.deepEqual(reaped, { requeued: 0, failed: 1 });
      await rejects(q.completeTask('t3', 'ag2', 'late', T(31)), 'conflict', /expired/);
      const t3 = await q.getTask('t3');
      assert.equal(t3?.status, 'failed');
      assert.equal(t3?.failureReason, 'timeout');
      assert.deepEqual(
        t3?.attempts.map((a) => a.status),
        ['failed', 'timeout'],
      );
      await q.addTasks('qp', [{ id: 't5', typeId: '', instructions: 'more', variables: null, variablesKey: null }], T(32), operator);
      assert.equal((await q.cancelTask('t5', T(33), operator)).status, 'cancelled');
      assert.equal((await q.requeueTask('t3', T(34), operator)).status, 'queued');
      await rejects(q.requeueTask('t1', T(34), operator), 'conflict');
      const listed = await q.listTasks('qp', { limit: 10, offset: 0 });
      assert.deepEqual(
        listed.tasks.map((t) => t.id),
        ['t1', 't3', 't5'],
      );
      const status = await q.projectStatus('qp', T(35));
      assert.equal(status?.project.stats.queuedTasks, 1);
      const audit = await q.auditLog('qp', 100, undefined);
      assert.ok(audit.length >= 10);
      assert.ok(audit[0]!.id > audit[audit.length - 1]!.id, 'newest first');
      await q.saveSession({ id: 's1', projectId: 'qp', agentName: 'ag1', createdAt: T(1), lastSeen: T(1) });
      await q.bindAgentSession('qp', 'ag1', 's1', T(2), false);
      assert.equal((await q.getAgent('qp', 'ag1'))?.connected, true);
      assert.equal(await q.expireSessions(T(10)), 1);
      assert.equal((await q.getAgent('qp', 'ag1'))?.connected, false);
      assert.equal((await q.closeProject('qp', T(40), operator)).status, 'closed');
      assert.deepEqual(await q.requestTask('qp', 'ag1', T(41)), { kind: 'closed' });
      record('queue', {
        listed,
        counts: await q.countsByStatus(),
        metrics: await q.metricsSnapshot(),
        history: await q.taskHistory('t3'),
        actions: audit.map((a) => a.action),
        projects: (await q.listProjects(true)).map((p) => ({ ...p, createdAt: undefined })),
      });
    });

    it('adds tasks, types and agents only to a project that exists and is open', async () => {
      const l = await open();
      const q = l.queue;
      const plain = { id: 'u1', typeId: '', instructions: 'x', variables: null, variablesKey: null };
      const type = {
        id: 'uy',
        projectId: 'ghost',
        name: 'n',
        template: null,
        variables: [],
        duplicateHandling: 'allow' as const,
        maxRetries: undefined,
        leaseDurationMinutes: undefined,
        at: T(0),
      };
      await rejects(q.addTasks('ghost', [plain], T(0), operator), 'not_found', /^Project not found: ghost\./);
      await rejects(q.createTaskType(type, operator), 'not_found', /^Project not found: ghost\./);
      await rejects(q.registerAgent({ name: 'a', projectId: 'ghost', keyHash: 'h', sessionId: null, at: T(0) }, operator), 'not_found', /^Project not found: ghost\./);
      assert.equal(await q.getProject('ghost'), undefined);
      await q.createProject({ projectId: 'shut', description: '', config: { defaultMaxRetries: 1, defaultLeaseDurationMinutes: 5, reaperIntervalMinutes: 1 }, at: T(0) }, operator);
      await q.closeProject('shut', T(1), operator);
      await rejects(q.addTasks('shut', [plain], T(2), operator), 'conflict', /^Project shut is closed: it takes no new tasks\./);
      await rejects(q.createTaskType({ ...type, projectId: 'shut' }, operator), 'conflict', /^Project shut is closed: it takes no new task types\./);
      await rejects(
        q.registerAgent({ name: 'a', projectId: 'shut', keyHash: 'h', sessionId: null, at: T(2) }, operator),
        'conflict',
        /^Project shut is closed: it takes no new agents\./,
      );
      const audit = await q.auditLog('shut', 100, undefined);
      assert.deepEqual(
        audit.map((a) => a.action),
        ['project_closed', 'project_created'],
      );
      record('open projects', { projects: await q.listProjects(true), tasks: await q.listTasks('shut', { limit: 10, offset: 0 }) });
    });

    it('keeps a failed task from the agent that failed it while another agent is there, for one lease at most a minute', async () => {
      const l = await open();
      const q = l.queue;
      const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      await q.createProject(
        { projectId: 'bp', description: '', config: { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 0.5, reaperIntervalMinutes: 1 }, at: at(0) },
        operator,
      );
      await q.addTasks(
        'bp',
        [
          { id: 'b1', typeId: '', instructions: 'flaky', variables: null, variablesKey: null },
          { id: 'b2', typeId: '', instructions: 'other', variables: null, variablesKey: null },
        ],
        at(0),
        operator,
      );
      await q.registerAgent({ name: 'x', projectId: 'bp', keyHash: 'hx', sessionId: 'sx', at: at(0) }, operator);
      await q.registerAgent({ name: 'y', projectId: 'bp', keyHash: 'hy', sessionId: 'sy', at: at(0) }, operator);
      const first = await q.requestTask('bp', 'x', at(1));
      assert.equal(first.kind === 'assigned' && first.task.id, 'b1');
      await q.failTask('b1', 'x', 'flaky', true, at(2));
      const second = await q.requestTask('bp', 'x', at(3));
      assert.equal(second.kind === 'assigned' && second.task.id, 'b2', 'x got back the task it failed');
      await q.completeTask('b2', 'x', 'ok', at(4));
      // y holds nothing yet but is connected: b1 waits for it until 2 s + one lease (30 s).
      assert.deepEqual(await q.requestTask('bp', 'x', at(5)), { kind: 'empty', counts: { running: 0, queued: 1 }, retryAt: at(32) });
      const after = await q.requestTask('bp', 'x', at(33));
      assert.equal(after.kind === 'assigned' && after.task.id, 'b1', 'the back-off is over');
      // A lease that runs out holds the task back from its agent the same way.
      await q.reapExpired(at(70));
      const reaped = await q.requestTask('bp', 'x', at(71));
      assert.equal(reaped.kind, 'empty');
      const taken = await q.requestTask('bp', 'y', at(71));
      assert.equal(taken.kind === 'assigned' && taken.task.id, 'b1');
      await q.extendLease('b1', 'y', 2, at(72));
      // x leaves (its session ends) and is not seen again: once a minute has passed without it,
      // y is alone and gets the task it failed straight back, within its back-off.
      await q.deleteSession('sx');
      await q.failTask('b1', 'y', 'also flaky', true, at(140));
      const alone = await q.requestTask('bp', 'y', at(150));
      assert.equal(alone.kind === 'assigned' && alone.task.id, 'b1', 'x is gone, so y may retry at once');
      record('retry back-off', { history: await q.taskHistory('b1'), task: await q.getTask('b1') });
    });

    it('tells the reaper its schedule: the shortest interval of the active projects and the next lease', async () => {
      const l = await open();
      const q = l.queue;
      assert.deepEqual(await q.reaperSchedule(), { intervalMinutes: undefined, nextLeaseExpiresAt: undefined });
      await q.createProject({ projectId: 'slow', description: '', config: { defaultMaxRetries: 0, defaultLeaseDurationMinutes: 5, reaperIntervalMinutes: 2 }, at: T(0) }, operator);
      await q.createProject(
        { projectId: 'quick', description: '', config: { defaultMaxRetries: 0, defaultLeaseDurationMinutes: 5, reaperIntervalMinutes: 0.05 }, at: T(0) },
        operator,
      );
      assert.deepEqual(await q.reaperSchedule(), { intervalMinutes: 0.05, nextLeaseExpiresAt: undefined }, 'idle projects count too');
      await q.addTasks('slow', [{ id: 's1', typeId: '', instructions: 'x', variables: null, variablesKey: null }], T(0), operator);
      await q.registerAgent({ name: 'a', projectId: 'slow', keyHash: 'h', sessionId: null, at: T(0) }, operator);
      await q.requestTask('slow', 'a', T(1));
      await q.closeProject('quick', T(2), operator);
      assert.deepEqual(await q.reaperSchedule(), { intervalMinutes: 2, nextLeaseExpiresAt: T(6) });
    });

    it('tracks workflows: tasks, subtasks, events, completion once, overlaps and review requests', async () => {
      const l = await open();
      const w = l.workflow;
      await w.insertWorkflow({ id: 'w1', projectId: 'wp', name: 'Auth', description: null, plan: [], createdAt: T(0), eventId: 'ev0' });
      await rejects(w.insertWorkflow({ id: 'w1', projectId: 'wp', name: 'x', description: null, plan: [], createdAt: T(0), eventId: 'ev00' }), 'conflict');
      await rejects(
        w.insertTask({
          id: 'x',
          workflowId: 'nope',
          parentTaskId: null,
          name: 'n',
          goal: 'g',
          areas: [],
          startedAt: T(1),
          startSnapshot: snapshot('sx', 'x', 'start', '/r'),
          eventId: 'evx',
        }),
        'not_found',
      );
      await w.insertTask({
        id: 'k1',
        workflowId: 'w1',
        parentTaskId: null,
        name: 'Parent',
        goal: 'g',
        areas: ['src'],
        startedAt: T(1),
        startSnapshot: snapshot('s1', 'k1', 'start', '/r'),
        eventId: 'ev1',
      });
      await w.insertTask({
        id: 'k2',
        workflowId: 'w1',
        parentTaskId: 'k1',
        name: 'Child',
        goal: 'g',
        areas: [],
        startedAt: T(2),
        startSnapshot: snapshot('s2', 'k2', 'start', '/r'),
        eventId: 'ev2',
      });
      await w.addEvent({ id: 'ev3', taskId: 'k2', createdAt: T(3), review: true, kind: 'issue', data: { description: 'Needs eyes', severity: 'high' } } as never);
      await w.addEvent({ id: 'ev4', taskId: 'k2', createdAt: T(4), review: false, kind: 'milestone', data: { message: 'half', progress: 50 } } as never);
      const completion = {
        taskId: 'k2',
        status: 'success' as const,
        completedAt: T(5),
        durationSeconds: 180,
        outcome: { summary: 'done' } as never,
        metadata: null,
        verification: { status: 'passed' } as never,
        files: { added: ['src/a.ts'], modified: ['README.md'], deleted: [], renamed: [{ from: 'src/old.ts', to: 'src/new.ts', similarity: 90 }] },
        filesKnown: true,
        unexpected: ['README.md'],
        commits: [],
        endSnapshot: snapshot('s3', 'k2', 'end', '/r'),
        eventId: 'ev5',
        review: false,
      };
      await w.completeTask(completion);
      await rejects(w.completeTask({ ...completion, eventId: 'ev6' }), 'conflict', /already completed/);
      await w.completeTask({
        ...completion,
        taskId: 'k1',
        completedAt: T(6),
        endSnapshot: snapshot('s4', 'k1', 'end', '/r'),
        eventId: 'ev7',
        files: { added: [], modified: [], deleted: [], renamed: [] },
        unexpected: [],
      });
      await rejects(
        w.insertTask({
          id: 'k3',
          workflowId: 'w1',
          parentTaskId: 'k1',
          name: 'Late',
          goal: 'g',
          areas: [],
          startedAt: T(7),
          startSnapshot: snapshot('s5', 'k3', 'start', '/r'),
          eventId: 'ev8',
        }),
        'conflict',
        /already completed/,
      );
      const tasks = await w.listTasks('w1');
      assert.deepEqual(
        tasks.map((t) => [t.id, t.status]),
        [
          ['k1', 'success'],
          ['k2', 'success'],
        ],
      );
      assert.deepEqual(tasks[1]!.filesChanged, { added: ['src/a.ts'], modified: ['README.md'], deleted: [], renamed: [{ from: 'src/old.ts', to: 'src/new.ts', similarity: 90 }] });
      assert.equal(tasks[1]!.progress, 50);
      assert.deepEqual(await w.ancestorIds('k2'), ['k1']);
      const listing = await w.listWorkflows({ limit: 10 });
      assert.equal(listing.total, 1);
      assert.equal(listing.workflows[0]!.succeeded, 2);
      assert.deepEqual(await w.overlappingTasks('k2', '/r', T(2), T(5)), [{ id: 'k1', name: 'Parent' }]);
      const reviews = await w.reviewRequests(0);
      assert.deepEqual(
        reviews.map((r) => [r.kind, r.taskId, r.text]),
        [['issue', 'k2', 'Needs eyes']],
      );
      const events = await w.listEvents('w1');
      assert.deepEqual(
        events.map((e) => e.kind),
        ['workflow_started', 'task_started', 'task_started', 'issue', 'milestone', 'task_completed', 'task_completed'],
      );
      assert.equal(await w.latestEventSeq(), events[events.length - 1]!.seq);
      assert.deepEqual(await w.runningTasks(), []);
      record('workflow', { tasks, listing, events: events.map((e) => ({ ...e, seq: undefined })), projects: await w.listWorkflowProjects() });
    });

    it('keeps review runs: phases moved once, agents, actions decided once, threads', async () => {
      const l = await open();
      const r = l.review;
      const definition: ReviewDefinition = {
        name: 'front',
        title: null,
        description: null,
        agents: [
          { name: 'lint', description: null },
          { name: 'tests', description: null },
        ] as never,
        phases: ['pending', 'running', 'completed', 'failed'],
        context: { branch: null, merge_request: null, notes: null },
        source: 'x.yaml',
      };
      await r.insertRun({ id: 'r1', projectId: 'rp', definition, context: definition.context, createdAt: T(0), startedBy: 'me', eventId: 're1' });
      const moved = await r.setPhase({ runId: 'r1', from: 'pending', to: 'running', at: T(1), forced: false, note: null, eventId: 're2' });
      assert.equal(moved.phase, 'running');
      await rejects(r.setPhase({ runId: 'r1', from: 'pending', to: 'failed', at: T(1), forced: false, note: null, eventId: 're3' }), 'conflict');
      await r.startAgent({ runId: 'r1', name: 'lint', at: T(2) });
      const agent = await r.completeAgent({ runId: 'r1', name: 'lint', at: T(3), state: 'completed', summary: 'clean' });
      assert.equal(agent.durationMs, 60_000);
      await rejects(r.startAgent({ runId: 'r1', name: 'ghost', at: T(2) }), 'not_found');
      await r.insertAction({
        id: 'a1',
        runId: 'r1',
        kind: 'open_thread' as never,
        target: {} as never,
        text: 'Look at this',
        createdAt: T(4),
        createdBy: 'lint',
        threadId: 'th1',
        thread: { id: 'th1', runId: 'r1', file: 'a.ts', line: 3, endLine: null, createdAt: T(4), createdBy: 'lint', actionId: 'a1', comment: { id: 'c1', body: 'Look at this' } },
      });
      const decided = await r.decideAction({ actionId: 'a1', status: 'approved', by: 'me', at: T(5), note: null, commentId: 'c2' });
      assert.equal(decided.status, 'approved');
      await rejects(r.decideAction({ actionId: 'a1', status: 'dismissed', by: 'me', at: T(5), note: null, commentId: 'c3' }), 'conflict');
      const threads = await r.listThreads('r1');
      assert.equal(threads.length, 1);
      // Runs are found by what they review: their context's merge request and branch, and their definition.
      await r.insertRun({
        id: 'r2',
        projectId: 'rp',
        definition,
        context: { branch: 'feat/x', merge_request: "!2 'quoted'", notes: null },
        createdAt: T(6),
        startedBy: 'me',
        eventId: 're4',
      });
      await r.insertRun({
        id: 'r3',
        projectId: 'rp',
        definition: { ...definition, name: 'back' },
        context: { branch: 'feat/x', merge_request: '!3', notes: null },
        createdAt: T(7),
        startedBy: 'me',
        eventId: 're5',
      });
      const ids = async (q: Omit<Parameters<typeof r.listRuns>[0], 'limit'>) => (await r.listRuns({ projectId: 'rp', limit: 10, ...q })).map((run) => run.id);
      const found = {
        mergeRequest: await ids({ mergeRequest: "!2 'quoted'" }),
        branch: await ids({ branch: 'feat/x' }),
        both: await ids({ branch: 'feat/x', mergeRequest: '!3' }),
        workflow: await ids({ workflow: 'front' }),
        activeFront: await ids({ workflow: 'front', active: true }),
        none: await ids({ mergeRequest: '!4' }),
      };
      assert.deepEqual(found, { mergeRequest: ['r2'], branch: ['r3', 'r2'], both: ['r3'], workflow: ['r2', 'r1'], activeFront: ['r2', 'r1'], none: [] });
      record('review', {
        run: await r.getRun('r1'),
        agents: await r.listAgents('r1'),
        actions: await r.listActions('r1'),
        threads,
        events: (await r.listEvents('r1')).map((e) => ({ ...e, seq: undefined })),
        found,
      });
    });

    it('exports and imports the whole ledger, and archives, restores and deletes old entries', async () => {
      const a = await open();
      await a.progress.insertEntry({ id: 'x1', projectId: 'tp', title: 'Old work', content: 'archived soon', createdAt: T(1), tags: ['old'], agentId: null });
      await a.progress.insertEntry({ id: 'x2', projectId: 'tp', title: 'New work', content: 'stays', createdAt: T(20), tags: [], agentId: null });
      await a.queue.addTasks('tp', [{ id: 'tt1', typeId: '', instructions: 'do', variables: null, variablesKey: null }], T(2), operator);
      assert.equal(await a.transfer.countEntriesBefore({ before: T(10) }), 1);
      assert.equal(await a.transfer.archiveEntriesBefore({ before: T(10) }, T(30)), 1);
      assert.equal((await a.progress.listProjects())[0]!.entryCount, 1);
      assert.equal((await a.progress.searchEntries({ projectId: 'tp', text: 'archived', limit: 5 })).total, 0);
      assert.equal(await a.transfer.countArchived(), 1);
      const data = await a.transfer.exportData();
      assert.equal(data.entries.length, 1);
      assert.equal(data.archivedEntries.length, 1);
      const b = await open();
      const counts = await b.transfer.importData(data);
      assert.equal(counts.imported.entries, 1);
      assert.equal(counts.imported.tasks, 1);
      await rejects(b.transfer.importData(data), 'conflict', /already exists/);
      assert.equal(await b.transfer.restoreArchived(), 1);
      await b.settle();
      assert.equal((await b.progress.searchEntries({ projectId: 'tp', text: 'archived', limit: 5 })).total, 1);
      assert.equal((await b.progress.listProjects())[0]!.entryCount, 2);
      assert.equal(await b.transfer.deleteEntriesBefore({ before: T(10), projectId: 'tp' }), 1);
      assert.deepEqual(
        (await b.progress.searchEntries({ projectId: 'tp', limit: 5 })).entries.map((e) => e.id),
        ['x2'],
      );
      record('transfer', { counts, exported: await b.transfer.exportData() });
    });

    it('tells other processes of a write (onDidChange, foreign)', async () => {
      const writer = await open();
      const changes: LedgerChange[] = [];
      const watching = await openWatching(writer);
      opened.push(watching);
      watching.onDidChange((c) => changes.push(c));
      await writer.progress.insertEntry({ id: 'w1', projectId: 'wp', title: 'Hello', content: 'world', createdAt: T(1), tags: [], agentId: null });
      await waitFor(() => changes.some((c) => c.foreign && !c.maintenance), 'a foreign change event', 30_000);
      assert.equal((await watching.progress.findEntry('w1'))?.title, 'Hello');
    });
  });
}

/** A second handle on the same ledger with watching on (what the extension host opens). */
const watchers = new WeakMap<Ledger, () => Promise<Ledger>>();
async function openWatching(ledger: Ledger): Promise<Ledger> {
  return watchers.get(ledger)!();
}

function sqliteFactory(): Factory {
  return async () => {
    const file = path.join(tempDir('ap-contract-'), 'ledger.db');
    const ledger = await openLedger({ file, checkpoint: false });
    watchers.set(ledger, () => openLedger({ file, checkpoint: false, watch: true }));
    return ledger;
  };
}

describe('ledger contract', () => {
  useTempDirs();
  contract('sqlite', () => sqliteFactory());
  // The same stores through a ledger host process: every call crosses the socket, and the
  // watching handle is a second client of the same host.
  contract('host', () => async () => {
    const file = path.join(tempDir('ap-contract-'), 'ledger.db');
    const ledger = await openHostLedger({ file, idleMs: 60_000 });
    watchers.set(ledger, () => openHostLedger({ file, idleMs: 60_000, watch: true }));
    return ledger;
  });
  describe('on PostgreSQL', () => {
    const server = usePostgres();
    contract('postgres', () => async () => {
      const url = await server().createDatabase();
      const ledger = await openLedger({ file: '/unused', databaseUrl: url });
      watchers.set(ledger, () => openLedger({ file: '/unused', databaseUrl: url, watch: true }));
      return ledger;
    });
    // PostgreSQL through its ledger host (its folder in the test process's runtime folder): every
    // call crosses the socket, the host ranks searches from its index once built, and the
    // watching handle is a second client of the same host.
    contract('postgres-host', () => async () => {
      const url = await server().createDatabase();
      const ledger = await openHostLedger({ file: '', databaseUrl: url, idleMs: 60_000 });
      watchers.set(ledger, () => openHostLedger({ file: '', databaseUrl: url, idleMs: 60_000, watch: true }));
      return ledger;
    });
  });

  describe('every backend', () => {
    it('answered every scenario the same way', function () {
      const scenarios = Object.keys(answers);
      for (const s of scenarios) assert.deepEqual(answers[s]!.host, answers[s]!.sqlite, `scenario ${s} differs between sqlite opened directly and through its host`);
      if (scenarios.every((s) => answers[s]!.postgres === undefined)) this.skip(); // no PostgreSQL here, so nothing to compare (on CI usePostgres() fails instead)
      for (const s of scenarios) assert.deepEqual(answers[s]!.postgres, answers[s]!.sqlite, `scenario ${s} differs between sqlite and postgres`);
      for (const s of scenarios)
        assert.deepEqual(answers[s]!['postgres-host'], answers[s]!.postgres, `scenario ${s} differs between postgres opened directly and through its host`);
    });
  });
});
