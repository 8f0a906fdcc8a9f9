// The queue toolset through real MCP clients (in memory): every tool, every rule of the seed,
// every refusal, and sessions as agents. Several clients share one server's services, as several
// agents of one server would; other tests use separate processes.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type z } from 'zod';
import * as schemas from '../../../src/core/queue/schemas';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';
import { waitFor } from '../../helpers/wait';
import { matchSnapshot } from '../../helpers/snapshot';

const SNAPSHOT = path.join(__dirname, '__snapshots__', 'tools-queue.json');

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Agent {
  c: Connected;
  call(name: string, args?: Record<string, unknown>): Promise<Structured>;
  refusal(name: string, args?: Record<string, unknown>): Promise<{ code: number | string; message: string }>;
}

const FULL_OUTPUTS: Record<string, z.ZodObject> = {
  create_project: schemas.projectResult,
  list_projects: schemas.projectsOutput,
  get_project: schemas.projectResult,
  close_project: schemas.projectResult,
  join_project: schemas.projectResult,
  create_task_type: schemas.taskTypeResult,
  list_task_types: schemas.taskTypesOutput,
  get_task_type: schemas.taskTypeResult,
  add_task: schemas.addTaskOutput,
  create_tasks_bulk: schemas.bulkOutput,
  get_task: schemas.taskWithHistoryOutput,
  list_tasks: schemas.tasksOutput,
  register_agent: schemas.registerOutput,
  get_current_task: schemas.currentTaskOutput,
  request_task: schemas.requestTaskOutput,
  complete_task: schemas.completeOutput,
  fail_task: schemas.failOutput,
  extend_lease: schemas.completeOutput,
  get_project_status: schemas.projectStatusOutput,
  get_agent_status: schemas.agentResult,
  get_task_history: schemas.historyOutput,
  get_audit_log: schemas.auditOutput,
};

function client(c: Connected): Agent {
  return {
    c,
    async call(name, args = {}) {
      const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
      if (r.isError) throw new Error(`${name} failed: ${(r.content[0] as { text: string }).text}`);
      // Every result matches the tool's full output schema (tools/list shows it shallow).
      const parsed = FULL_OUTPUTS[name]!.safeParse(r.structuredContent);
      assert.ok(parsed.success, `${name} output: ${parsed.success ? '' : parsed.error.message}`);
      return r.structuredContent as Structured;
    },
    async refusal(name, args = {}) {
      try {
        const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
        if (!r.isError) assert.fail(`${name} was accepted: ${JSON.stringify(r.structuredContent).slice(0, 200)}`);
        const error = (r._meta as { 'agent-progress/error': { code: string; message: string } })['agent-progress/error'];
        assert.equal((r.content[0] as { text: string }).text, error.message);
        return { code: error.code, message: error.message };
      } catch (err) {
        const e = err as { code?: number; message: string };
        if (typeof e.code !== 'number') throw err;
        return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
      }
    },
  };
}

describe('queue tools (in memory, real clients)', function () {
  this.timeout(30_000);
  useTempDirs();
  let admin: Agent;
  const extra: Connected[] = [];

  async function another(): Promise<Agent> {
    const c = await connectInMemory({ dir: '', toolsets: ['queue'], services: admin.c.services });
    extra.push(c);
    return client(c);
  }

  async function agentIn(projectId: string, agentName?: string): Promise<Agent & { apiKey: string; name: string }> {
    const a = await another();
    const out = await a.call('register_agent', { projectId, ...(agentName ? { agentName } : {}) });
    return Object.assign(a, { apiKey: out.apiKey as string, name: out.agent.name as string });
  }

  beforeEach(async () => {
    admin = client(await connectInMemory({ dir: tempDir(), toolsets: ['queue'] }));
  });
  afterEach(async () => {
    while (extra.length > 0) await extra.pop()!.close();
    await admin.c.close();
  });

  it('lists the queue tools exactly as the snapshot says, within the token budget', async () => {
    const { tools } = await admin.c.client.listTools();
    const actual = JSON.stringify(tools, null, 2) + '\n';
    matchSnapshot(SNAPSHOT, actual);
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(FULL_OUTPUTS).sort());
    assert.ok(JSON.stringify(tools).length / 4 < 4_000, `tools/list is ${Math.round(JSON.stringify(tools).length / 4)} tokens`);
    for (const tool of tools) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
        assert.equal(typeof tool.annotations?.[hint], 'boolean', `${tool.name}.${hint}`);
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) assert.ok((prop as { description?: string }).description, `${tool.name}.${name}`);
    }
  });

  describe('projects and task types', () => {
    it('creates, gets, lists, joins and closes a project', async () => {
      const created = await admin.call('create_project', { name: 'emails', description: 'Summarise threads', defaultMaxRetries: 1, defaultLeaseDurationMinutes: 2.5 });
      assert.deepEqual(created.project.config, { defaultMaxRetries: 1, defaultLeaseDurationMinutes: 2.5, reaperIntervalMinutes: 1 });
      assert.equal(created.project.status, 'active');
      assert.deepEqual((await admin.refusal('create_project', { name: 'emails' })).code, 'conflict');
      assert.equal((await admin.call('get_project', { projectId: 'emails' })).project.description, 'Summarise threads');
      await admin.call('create_project', { name: 'other' });
      assert.deepEqual(
        (await admin.call('list_projects')).projects.map((p: Structured) => p.id),
        ['emails', 'other'],
      );
      assert.equal((await admin.call('join_project', { projectId: 'emails' })).project.id, 'emails');
      assert.equal((await admin.call('close_project', { projectId: 'other' })).project.status, 'closed');
      assert.deepEqual(
        (await admin.call('list_projects')).projects.map((p: Structured) => p.id),
        ['emails'],
      );
      assert.deepEqual(
        (await admin.call('list_projects', { includeClosed: true })).projects.map((p: Structured) => p.id),
        ['emails', 'other'],
      );
      assert.deepEqual(await admin.refusal('get_project', { projectId: 'nope' }), {
        code: -32602,
        message: 'Project not found: nope. Use list_projects to see the projects, or create_project to make it.',
      });
    });

    it('defines task types with templates, variables taken from the template, and defaults from the project', async () => {
      await admin.call('create_project', { name: 'p', defaultMaxRetries: 4, defaultLeaseDurationMinutes: 7 });
      const t = (await admin.call('create_task_type', { projectId: 'p', name: 'summarise', template: 'Summarise {{threadId}} into {{out}}' })).taskType;
      assert.deepEqual([t.variables, t.duplicateHandling, t.maxRetries, t.leaseDurationMinutes], [['threadId', 'out'], 'allow', 4, 7]);
      assert.equal((await admin.call('get_task_type', { projectId: 'p', typeId: 'summarise' })).taskType.id, t.id);
      assert.equal((await admin.call('get_task_type', { projectId: 'p', typeId: t.id })).taskType.name, 'summarise');
      assert.equal((await admin.call('list_task_types', { projectId: 'p' })).taskTypes.length, 1);
      assert.match((await admin.refusal('create_task_type', { projectId: 'p', name: 'x', template: '{{a}} {{b}}', variables: ['a'] })).message, /uses \{\{b\}\}/);
      assert.equal((await admin.refusal('create_task_type', { projectId: 'p', name: 'summarise' })).code, 'conflict');
      assert.equal(
        (await admin.refusal('create_task_type', { projectId: 'p', name: 'y', duplicateHandling: 'sometimes' })).message,
        'duplicateHandling must be one of allow, ignore, fail (got "sometimes")',
      );
      assert.equal(
        (await admin.refusal('create_task_type', { projectId: 'p', name: 'z', leaseDurationMinutes: 0 })).message,
        'leaseDurationMinutes must be between 0.01 and 10080 minutes',
      );
    });
  });

  describe('tasks', () => {
    beforeEach(async () => {
      await admin.call('create_project', { name: 'p' });
      await admin.call('create_task_type', { projectId: 'p', name: 'sum', template: 'Summarise {{id}}', duplicateHandling: 'ignore' });
      await admin.call('create_task_type', { projectId: 'p', name: 'strict', template: 'Check {{id}}', duplicateHandling: 'fail' });
      await admin.call('create_task_type', { projectId: 'p', name: 'any', template: 'Do {{id}}', duplicateHandling: 'allow' });
    });

    it('stores only the final instructions, with the variables, and refuses unknown or missing ones', async () => {
      const { task } = await admin.call('add_task', { projectId: 'p', typeId: 'sum', variables: { id: '42' } });
      assert.equal(task.instructions, 'Summarise 42');
      assert.deepEqual(task.variables, { id: '42' });
      assert.equal(
        (await admin.refusal('add_task', { projectId: 'p', typeId: 'sum', variables: {} })).message,
        'Variables for task type "sum": missing "id". It takes exactly: id',
      );
      assert.equal(
        (await admin.refusal('add_task', { projectId: 'p', typeId: 'sum', variables: { id: '1', extra: 'x' } })).message,
        'Variables for task type "sum": unknown "extra". It takes exactly: id',
      );
      assert.match((await admin.refusal('add_task', { projectId: 'p', typeId: 'sum', instructions: 'raw', variables: { id: '1' } })).message, /has a template: give variables/);
      assert.match((await admin.refusal('add_task', { projectId: 'p', instructions: 'plain', variables: { id: '1' } })).message, /takes no variables/);
      assert.match((await admin.refusal('add_task', { projectId: 'p' })).message, /instructions is required/);
      assert.equal((await admin.call('add_task', { projectId: 'p', instructions: 'plain work' })).task.instructions, 'plain work');
    });

    it('handles duplicate variables by the task type: ignore returns the existing task, fail refuses, allow adds', async () => {
      const first = (await admin.call('add_task', { projectId: 'p', typeId: 'sum', variables: { id: '1' } })).task;
      const again = await admin.call('add_task', { projectId: 'p', typeId: 'sum', variables: { id: '1' } });
      assert.deepEqual([again.created, again.task.id], [false, first.id]);
      await admin.call('add_task', { projectId: 'p', typeId: 'strict', variables: { id: '1' } });
      assert.match((await admin.refusal('add_task', { projectId: 'p', typeId: 'strict', variables: { id: '1' } })).message, /same variables already exists/);
      await admin.call('add_task', { projectId: 'p', typeId: 'any', variables: { id: '1' } });
      assert.equal((await admin.call('add_task', { projectId: 'p', typeId: 'any', variables: { id: '1' } })).created, true);
      assert.equal((await admin.call('list_tasks', { projectId: 'p' })).total, 4);
    });

    it('creates up to 1,000 tasks in bulk, reporting each bad row and creating the rest', async () => {
      const rows = Array.from({ length: 1_000 }, (_, i) => ({ typeId: 'any', variables: { id: String(i) } }));
      rows[10] = { typeId: 'any', variables: {} } as never;
      rows[20] = { typeId: 'nope', variables: { id: 'x' } };
      (rows as unknown[])[30] = 'not an object';
      rows[40] = { typeId: 'strict', variables: { id: 'dup' } };
      rows[41] = { typeId: 'strict', variables: { id: 'dup' } };
      const out = await admin.call('create_tasks_bulk', { projectId: 'p', tasks: rows });
      assert.equal(out.tasksCreated, 996);
      assert.deepEqual(
        out.errors.map((e: Structured) => e.index),
        [10, 20, 30, 41],
      );
      assert.match(out.errors[3].message, /same variables already exists/);
      assert.equal(out.createdTasks.length, 996);
      assert.equal(
        (await admin.refusal('create_tasks_bulk', { projectId: 'p', tasks: Array(1001).fill({ instructions: 'x' }) })).message,
        'tasks exceeds maximum of 1000 items per call; split the import',
      );
      assert.equal((await admin.call('list_tasks', { projectId: 'p', status: 'queued', limit: 1 })).total, 996);
    });

    it('lists tasks in queue order by status and type, paged, and gets one with its history', async () => {
      for (let i = 0; i < 5; i++) await admin.call('add_task', { projectId: 'p', typeId: i % 2 ? 'sum' : 'any', variables: { id: String(i) } });
      const page = await admin.call('list_tasks', { projectId: 'p', limit: 2, offset: 1 });
      assert.deepEqual([page.total, page.tasks.map((t: Structured) => t.instructions)], [5, ['Summarise 1', 'Do 2']]);
      assert.equal((await admin.call('list_tasks', { projectId: 'p', typeId: 'sum' })).total, 2);
      const got = await admin.call('get_task', { taskId: page.tasks[0].id });
      assert.deepEqual(got.task.attempts, []);
      assert.equal((await admin.refusal('get_task', { taskId: 'nope' })).code, -32602);
      assert.equal(
        (await admin.refusal('list_tasks', { projectId: 'p', status: 'done' })).message,
        'status must be one of queued, running, completed, failed, cancelled (got "done")',
      );
    });
  });

  describe('agents', () => {
    beforeEach(async () => {
      await admin.call('create_project', { name: 'p', defaultMaxRetries: 1 });
      await admin.call('create_project', { name: 'secret' });
      for (const i of [1, 2, 3]) await admin.call('add_task', { projectId: 'p', instructions: `task ${i}` });
      await admin.call('add_task', { projectId: 'secret', instructions: 'not yours' });
    });

    it('registers with a given or generated name, shows the key once, and keeps only its hash', async () => {
      const a = await agentIn('p', 'alpha');
      assert.match(a.apiKey, /^apk_/);
      const b = await agentIn('p');
      assert.match(b.name, /^agent-[a-z2-9]{5}$/);
      const ledgerFiles = fs.readdirSync(path.dirname(admin.c.dbPath)).map((f) => fs.readFileSync(path.join(path.dirname(admin.c.dbPath), f)));
      for (const bytes of ledgerFiles) assert.ok(!bytes.includes(Buffer.from(a.apiKey)), 'the key is stored in the clear');
      const status = await admin.call('get_agent_status', { projectId: 'p', agentName: 'alpha' });
      assert.equal(JSON.stringify(status).includes(a.apiKey), false);
      assert.deepEqual([status.agent.status, status.agent.connected], ['idle', true]);
    });

    it('hands out tasks first in, first out, one per agent, the same again when asked again', async () => {
      const a = await agentIn('p', 'a');
      const b = await agentIn('p', 'b');
      const ta = await a.call('request_task');
      assert.deepEqual([ta.reason, ta.alreadyAssigned, ta.task.instructions, ta.task.assignedTo], ['assigned', false, 'task 1', 'a']);
      const again = await a.call('request_task');
      assert.deepEqual([again.reason, again.alreadyAssigned, again.task.id], ['current', true, ta.task.id]);
      assert.equal((await b.call('request_task')).task.instructions, 'task 2');
      assert.equal((await a.call('get_current_task')).task.id, ta.task.id);
      await a.call('complete_task', { taskId: ta.task.id, explanation: 'did 1' });
      assert.equal((await a.call('get_current_task')).task, null);
      assert.equal((await a.call('request_task')).task.instructions, 'task 3');
      const none = await b.call('request_task');
      assert.equal(none.task.instructions, 'task 2', 'b still holds its task');
    });

    it('says the queue is empty, and stops assigning when the project is closed', async () => {
      const a = await agentIn('p', 'a');
      for (let i = 0; i < 3; i++) {
        const t = await a.call('request_task');
        await a.call('complete_task', { taskId: t.task.id, explanation: 'ok' });
      }
      assert.deepEqual([(await a.call('request_task')).reason, (await a.call('request_task')).task], ['empty', null]);
      await admin.call('add_task', { projectId: 'p', instructions: 'late' });
      await admin.call('close_project', { projectId: 'p' });
      const closed = await a.call('request_task');
      assert.deepEqual([closed.reason, closed.task], ['closed', null]);
    });

    it('records every attempt: reported failures are retried up to maxRetries, then failed with the reason', async () => {
      const a = await agentIn('p', 'a');
      const t1 = (await a.call('request_task')).task;
      const f1 = await a.call('fail_task', { taskId: t1.id, explanation: 'flaky network' });
      assert.deepEqual([f1.requeued, f1.task.status, f1.task.retryCount], [true, 'queued', 1]);
      const t1b = (await a.call('request_task')).task;
      assert.equal(t1b.id, t1.id, 'a requeued task keeps its place at the front');
      const f2 = await a.call('fail_task', { taskId: t1.id, explanation: 'still failing' });
      assert.deepEqual([f2.requeued, f2.task.status, f2.task.failureReason, f2.task.result], [false, 'failed', 'agent_reported', 'still failing']);
      const history = await admin.call('get_task_history', { taskId: t1.id });
      assert.deepEqual(
        history.attempts.map((x: Structured) => [x.agentName, x.status, x.failureReason, x.explanation]),
        [
          ['a', 'failed', 'agent_reported', 'flaky network'],
          ['a', 'failed', 'agent_reported', 'still failing'],
        ],
      );
      const t2 = (await a.call('request_task')).task;
      const noRetry = await a.call('fail_task', { taskId: t2.id, explanation: 'impossible', canRetry: false });
      assert.deepEqual([noRetry.requeued, noRetry.task.status, noRetry.task.retryCount], [false, 'failed', 0]);
    });

    it('reaps expired leases (fractions of a minute) at the next request: requeued, then failed with reason timeout', async () => {
      await admin.call('create_task_type', { projectId: 'p', name: 'quick', template: 'Quick {{n}}', maxRetries: 1, leaseDurationMinutes: 0.01 });
      const quick = (await admin.call('add_task', { projectId: 'p', typeId: 'quick', variables: { n: '1' } })).task;
      const a = await agentIn('p', 'slow');
      // Take the three plain tasks out of the way first.
      for (let i = 0; i < 3; i++) await a.call('complete_task', { taskId: (await a.call('request_task')).task.id, explanation: 'ok' });
      const held = (await a.call('request_task')).task;
      assert.equal(held.id, quick.id);
      await waitFor(() => Date.parse(held.leaseExpiresAt) < Date.now() - 5, 'the lease to run out', 5_000);
      assert.match(
        (await a.refusal('complete_task', { taskId: quick.id, explanation: 'too late' })).message,
        /Your lease on task \S+ expired at \S+ and the task was put back in the queue/,
      );
      const second = (await a.call('request_task')).task;
      assert.deepEqual([second.id, second.retryCount], [quick.id, 1]);
      await waitFor(() => Date.parse(second.leaseExpiresAt) < Date.now() - 5, 'the second lease to run out', 5_000);
      const status = await admin.call('get_project_status', { projectId: 'p' });
      assert.equal(status.project.stats.failedTasks, 1);
      const task = (await admin.call('get_task', { taskId: quick.id })).task;
      assert.deepEqual([task.status, task.failureReason], ['failed', 'timeout']);
      assert.deepEqual(
        task.attempts.map((x: Structured) => [x.status, x.failureReason]),
        [
          ['timeout', 'timeout'],
          ['timeout', 'timeout'],
        ],
      );
      assert.equal((await admin.call('get_agent_status', { projectId: 'p', agentName: 'slow' })).agent.status, 'idle');
    });

    it('extends a lease by fractions of a minute, only for the task you hold', async () => {
      const a = await agentIn('p', 'a');
      const b = await agentIn('p', 'b');
      const t = (await a.call('request_task')).task;
      const extended = (await a.call('extend_lease', { taskId: t.id, additionalMinutes: 0.5 })).task;
      assert.equal(Date.parse(extended.leaseExpiresAt) - Date.parse(t.leaseExpiresAt), 30_000);
      assert.match((await b.refusal('extend_lease', { taskId: t.id, additionalMinutes: 1 })).message, /assigned to agent a, not to b/);
      assert.match((await b.refusal('complete_task', { taskId: t.id, explanation: 'mine?' })).message, /assigned to agent a, not to b/);
      assert.equal((await a.refusal('extend_lease', { taskId: t.id, additionalMinutes: -1 })).message, 'additionalMinutes must be between 0.01 and 10080 minutes');
    });

    it('refuses a missing or wrong key, and changes nothing', async () => {
      await agentIn('p', 'alpha');
      const stranger = await another();
      const before = (await admin.c.services.ledger()).stats();
      const missing = await stranger.refusal('request_task', { projectId: 'p' });
      assert.equal(missing.code, 'permission_denied');
      assert.match(missing.message, /^Register first: register_agent gives you an apiKey/);
      const wrong = await stranger.refusal('request_task', { projectId: 'p', agentName: 'alpha', apiKey: 'apk_wrongwrongwrongwrongwrongwrongwrongwrongwro' });
      assert.equal(wrong.message, 'That apiKey is not the key of agent alpha in project p. Use the key register_agent returned, or register a new agent.');
      assert.match((await stranger.refusal('register_agent', { projectId: 'p', agentName: 'alpha' })).message, /already registered in project p\. Pass its apiKey to reconnect/);
      assert.equal((await (await admin.c.services.ledger()).stats()).changes, (await before).changes);
    });

    it('lets one session at a time be an agent: a reconnect with the key takes it over', async () => {
      const first = await agentIn('p', 'alpha');
      const t = (await first.call('request_task')).task;
      const second = await another();
      const back = await second.call('register_agent', { projectId: 'p', agentName: 'alpha', apiKey: first.apiKey });
      assert.deepEqual([back.reconnected, back.apiKey], [true, undefined]);
      assert.equal((await second.call('get_current_task')).task.id, t.id, 'the task stays with the agent');
      assert.match((await first.refusal('request_task')).message, /now connected from another session; pass its apiKey/);
      await first.call('get_current_task', { apiKey: first.apiKey, agentName: 'alpha' });
      assert.match((await second.refusal('request_task')).message, /now connected from another session/);
    });

    it('never lets an agent read or change another project', async () => {
      const a = await agentIn('p', 'a');
      const secretTask = (await admin.call('list_tasks', { projectId: 'secret' })).tasks[0];
      for (const [tool, args] of [
        ['get_task', { taskId: secretTask.id }],
        ['list_tasks', { projectId: 'secret' }],
        ['get_project', { projectId: 'secret' }],
        ['add_task', { projectId: 'secret', instructions: 'x' }],
        ['request_task', { projectId: 'secret' }],
        ['get_audit_log', { projectId: 'secret' }],
      ] as const) {
        const refused = await a.refusal(tool, args);
        assert.equal(refused.code, 'permission_denied', tool);
        assert.match(refused.message, /This session is agent a of project p; it cannot read or change project secret/, tool);
      }
      assert.deepEqual(
        (await a.call('list_projects')).projects.map((p: Structured) => p.id),
        ['p'],
      );
      assert.equal((await a.refusal('close_project', { projectId: 'p' })).code, 'permission_denied');
      assert.equal((await admin.call('get_task', { taskId: secretTask.id })).task.status, 'queued');
    });

    it('keeps an audit trail, newest first, paged', async () => {
      const a = await agentIn('p', 'a');
      const t = (await a.call('request_task')).task;
      await a.call('complete_task', { taskId: t.id, explanation: 'done' });
      const page = await admin.call('get_audit_log', { projectId: 'p', limit: 3 });
      assert.deepEqual(
        page.events.map((e: Structured) => e.action),
        ['task_completed', 'task_assigned', 'agent_registered'],
      );
      assert.equal(page.events[0].actor, 'agent:a');
      const older = await admin.call('get_audit_log', { projectId: 'p', before: page.nextBefore });
      assert.ok(older.events.every((e: Structured) => e.id < page.nextBefore));
      assert.ok(older.events.some((e: Structured) => e.action === 'project_created'));
    });

    it('reports project status: counts, agents at work, the oldest queued task', async () => {
      const a = await agentIn('p', 'a');
      await a.call('request_task');
      const s = await admin.call('get_project_status', { projectId: 'p' });
      assert.deepEqual([s.project.stats.queuedTasks, s.project.stats.runningTasks, s.agents.working, s.agents.idle], [2, 1, 1, 0]);
      assert.ok(s.oldestQueuedAt && s.nextLeaseExpiresAt);
    });
  });
});
