// The queue's guards through real MCP clients (in memory), on both backends (onPostgres.test.ts
// loads this file again): projects are never created by a task, a joined project is the session's
// default, a closed project takes nothing new, a failed task goes to another agent first, and an
// empty variable value is refused.

import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Peer {
  c: Connected;
  call(name: string, args?: Record<string, unknown>): Promise<Structured & { _text: string }>;
  refusal(name: string, args?: Record<string, unknown>): Promise<{ code: number | string; message: string }>;
}

function peer(c: Connected): Peer {
  return {
    c,
    async call(name, args = {}) {
      const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
      const text = (r.content[0] as { text: string }).text;
      if (r.isError) throw new Error(`${name} failed: ${text}`);
      return Object.assign(r.structuredContent as Structured, { _text: text });
    },
    async refusal(name, args = {}) {
      try {
        const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
        if (!r.isError) assert.fail(`${name} was accepted: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
        const error = (r._meta as { 'agent-progress/error': { code: string; message: string } })['agent-progress/error'];
        return { code: error.code, message: error.message };
      } catch (err) {
        const e = err as { code?: number; message: string };
        if (typeof e.code !== 'number') throw err;
        return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
      }
    },
  };
}

describe('queue guards (in memory, real clients)', function () {
  this.timeout(60_000);
  useTempDirs();
  let admin: Peer;
  const extra: Connected[] = [];

  async function another(): Promise<Peer> {
    const c = await connectInMemory({ dir: '', toolsets: ['queue'], services: admin.c.services });
    extra.push(c);
    return peer(c);
  }

  async function agentIn(projectId: string, agentName: string): Promise<Peer> {
    const a = await another();
    await a.call('register_agent', { projectId, agentName });
    return a;
  }

  async function changes(): Promise<number> {
    return (await (await admin.c.services.ledger()).stats()).changes;
  }

  beforeEach(async () => {
    admin = peer(await connectInMemory({ dir: tempDir(), toolsets: ['queue'] }));
  });
  afterEach(async () => {
    while (extra.length > 0) await extra.pop()!.close();
    await admin.c.close();
  });

  it('refuses an unknown project as get_project does, creating nothing', async () => {
    const expected = await admin.refusal('get_project', { projectId: 'nope' });
    assert.deepEqual(expected, { code: -32602, message: 'Project not found: nope. Use list_projects to see the projects, or create_project to make it.' });
    const before = await changes();
    for (const [tool, args] of [
      ['create_task_type', { projectId: 'nope', name: 'summarise', template: 'Summarise {{id}}' }],
      ['add_task', { projectId: 'nope', instructions: 'do it' }],
      ['create_tasks_bulk', { projectId: 'nope', tasks: [{ instructions: 'one' }, { instructions: 'two' }] }],
      ['register_agent', { projectId: 'nope', agentName: 'alpha' }],
    ] as const) {
      assert.deepEqual(await admin.refusal(tool, args), expected, tool);
    }
    assert.equal(await changes(), before, 'the ledger changed');
    assert.deepEqual((await admin.call('list_projects', { includeClosed: true })).projects, []);
  });

  it('defaults projectId to the project this session joined, per session', async () => {
    await admin.call('create_project', { name: 'p1' });
    await admin.call('create_project', { name: 'p2' });
    await admin.call('add_task', { projectId: 'p1', instructions: 'work of p1' });
    await admin.call('add_task', { projectId: 'p2', instructions: 'work of p2' });

    const one = await another();
    const joined = await one.call('join_project', { projectId: 'p1' });
    const registered = await one.call('register_agent', { agentName: 'alpha' });
    assert.equal(registered.agent.projectId, 'p1');
    assert.match(joined._text, /Later calls in this session default to p1\./);
    assert.equal((await one.call('request_task')).task.instructions, 'work of p1');

    const two = await another();
    await two.call('join_project', { projectId: 'p2' });
    assert.equal((await two.call('get_project')).project.id, 'p2');
    assert.equal((await two.call('add_task', { instructions: 'more for p2' })).task.projectId, 'p2');
    assert.deepEqual(
      (await two.call('list_tasks')).tasks.map((t: Structured) => t.instructions),
      ['work of p2', 'more for p2'],
    );
    assert.equal((await two.call('create_task_type', { name: 'fix', template: 'Fix {{n}}' })).taskType.projectId, 'p2');
    assert.equal((await two.call('get_task_type', { typeId: 'fix' })).taskType.projectId, 'p2');
    assert.equal((await two.call('create_tasks_bulk', { tasks: [{ typeId: 'fix', variables: { n: '1' } }] })).tasksCreated, 1);
    assert.deepEqual((await two.call('list_task_types')).taskTypes.map((t: Structured) => t.name).sort(), ['default', 'fix']);
    assert.equal((await two.call('get_project_status')).project.id, 'p2');
    assert.equal((await two.call('get_audit_log', { limit: 1 })).events[0].projectId, 'p2');
    assert.equal((await two.call('register_agent')).agent.projectId, 'p2');
    assert.match((await two.refusal('get_agent_status', { agentName: 'alpha' })).message, /^Agent not found: alpha in project p2\./);

    // An explicit projectId still wins, and a session that joined nothing must name one.
    assert.deepEqual(
      (await admin.call('list_tasks', { projectId: 'p1' })).tasks.map((t: Structured) => t.instructions),
      ['work of p1'],
    );
    const none = await another();
    assert.deepEqual(await none.refusal('register_agent', { agentName: 'beta' }), { code: -32602, message: 'projectId is required: pass it, or call join_project first.' });
    assert.deepEqual(await none.refusal('add_task', { instructions: 'x' }), { code: -32602, message: 'projectId is required: pass it, or call join_project first.' });
  });

  it('refuses new tasks, task types and agents in a closed project, naming it; running work still finishes', async () => {
    await admin.call('create_project', { name: 'done' });
    await admin.call('add_task', { projectId: 'done', instructions: 'last one' });
    const a = await agentIn('done', 'alpha');
    const held = (await a.call('request_task')).task;
    await admin.call('close_project', { projectId: 'done' });
    const before = await changes();
    for (const [tool, args, what] of [
      ['add_task', { projectId: 'done', instructions: 'too late' }, 'tasks'],
      ['create_tasks_bulk', { projectId: 'done', tasks: [{ instructions: 'too late' }] }, 'tasks'],
      ['create_task_type', { projectId: 'done', name: 'later' }, 'task types'],
      ['register_agent', { projectId: 'done', agentName: 'beta' }, 'agents'],
    ] as const) {
      const refused = await admin.refusal(tool, args);
      assert.equal(refused.code, 'conflict', tool);
      assert.equal(refused.message, `Project done is closed: it takes no new ${what}. Its running tasks can still finish; create another project for new work.`, tool);
    }
    assert.equal(await changes(), before, 'the ledger changed');
    assert.equal((await a.call('complete_task', { taskId: held.id, explanation: 'finished' })).task.status, 'completed');
  });

  it('hands a failed task to another agent first, and to the agent that failed it only when no other agent is there', async () => {
    await admin.call('create_project', { name: 'p' });
    const first = (await admin.call('add_task', { projectId: 'p', instructions: 'flaky job' })).task;
    await admin.call('add_task', { projectId: 'p', instructions: 'second job' });
    const x = await agentIn('p', 'x');
    const y = await agentIn('p', 'y');
    assert.equal((await x.call('request_task')).task.id, first.id);
    assert.equal((await x.call('fail_task', { taskId: first.id, explanation: 'broke on my machine' })).requeued, true);
    const next = (await x.call('request_task')).task;
    assert.equal(next.instructions, 'second job', 'x got back the task it just failed');
    const retried = (await y.call('request_task')).task;
    assert.deepEqual([retried.id, retried.assignedTo, retried.retryCount], [first.id, 'y', 1]);
    const history = (await admin.call('get_task_history', { taskId: first.id })).attempts;
    assert.deepEqual(
      history.map((h: Structured) => [h.agentName, h.status]),
      [
        ['x', 'failed'],
        ['y', 'running'],
      ],
    );
  });

  it('holds a failed task back from its agent while another agent is busy, then gives it back after the back-off', async () => {
    // An explicit clock: the back-off ends when the test says, not when a slow machine lets six seconds pass.
    let clockMs = Date.parse('2026-03-01T09:00:00.000Z');
    const timed = peer(await connectInMemory({ dir: tempDir(), toolsets: ['queue'], clock: () => new Date(clockMs) }));
    extra.push(timed.c);
    const join = async (agentName: string): Promise<Peer> => {
      const c = await connectInMemory({ dir: '', toolsets: ['queue'], services: timed.c.services });
      extra.push(c);
      const a = peer(c);
      await a.call('register_agent', { projectId: 'p', agentName });
      return a;
    };
    await timed.call('create_project', { name: 'p' });
    // The back-off is the task's lease, at most a minute: six seconds here.
    await timed.call('create_task_type', { projectId: 'p', name: 'short', template: 'Short {{n}}', leaseDurationMinutes: 0.1 });
    await timed.call('create_task_type', { projectId: 'p', name: 'long', template: 'Long {{n}}', leaseDurationMinutes: 30 });
    await timed.call('add_task', { projectId: 'p', typeId: 'long', variables: { n: '1' } });
    const short = (await timed.call('add_task', { projectId: 'p', typeId: 'short', variables: { n: '1' } })).task;
    const y = await join('y');
    assert.equal((await y.call('request_task')).task.instructions, 'Long 1');
    const x = await join('x');
    assert.equal((await x.call('request_task')).task.id, short.id);
    await x.call('fail_task', { taskId: short.id, explanation: 'try elsewhere' });
    clockMs += 5_999;
    const held = await x.call('request_task');
    assert.deepEqual([held.task, held.reason, held.retryAt], [null, 'empty', '2026-03-01T09:00:06.000Z']);
    assert.match(held._text, new RegExp(`^No task for you now: 1 queued task you failed waits for another agent until ${held.retryAt.replace(/[.]/g, '\\.')}; ask again then\\.$`));
    clockMs += 1;
    const back = await x.call('request_task');
    assert.deepEqual([back.task.id, back.task.retryCount, back.reason], [short.id, 1, 'assigned']);
  });

  it('refuses empty variable values, naming the variable, and adds nothing', async () => {
    await admin.call('create_project', { name: 'p' });
    await admin.call('create_task_type', { projectId: 'p', name: 'sum', template: 'Summarise {{threadId}} into {{out}}' });
    const before = await changes();
    assert.deepEqual(await admin.refusal('add_task', { projectId: 'p', typeId: 'sum', variables: { threadId: '', out: 'a.md' } }), {
      code: -32602,
      message: 'variables.threadId is empty: give it a value',
    });
    assert.deepEqual(await admin.refusal('add_task', { projectId: 'p', typeId: 'sum', variables: { threadId: '7', out: ' \t' } }), {
      code: -32602,
      message: 'variables.out is only whitespace: give it a value',
    });
    const bulk = await admin.call('create_tasks_bulk', { projectId: 'p', tasks: [{ typeId: 'sum', variables: { threadId: '1', out: '' } }] });
    assert.deepEqual([bulk.tasksCreated, bulk.errors], [0, [{ index: 0, message: 'variables.out is empty: give it a value' }]]);
    assert.equal(await changes(), before, 'the ledger changed');
  });
});
