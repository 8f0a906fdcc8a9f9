// Ten OS processes (real MCP servers over stdio, one agent each) drain a queue of 1,000 tasks:
// every task is assigned exactly once, none is lost, all are completed.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { openLedger } from '../../src/core/storage/openLedger';
import { call, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

describe('many agents, one queue', function () {
  this.timeout(300_000);
  useTempDirs();

  it('assigns each of 1,000 tasks exactly once to 10 agent processes requesting at once', async () => {
    const db = path.join(tempDir(), 'data.db');
    const admin = await startServer({ db, args: ['--toolset', 'queue'] });
    await call(admin, 'create_project', { name: 'drain' });
    for (let start = 0; start < 1_000; start += 500) {
      const tasks = Array.from({ length: 500 }, (_, i) => ({ instructions: `task ${start + i}` }));
      const out = (await call(admin, 'create_tasks_bulk', { projectId: 'drain', tasks })).structuredContent as { tasksCreated: number };
      assert.equal(out.tasksCreated, 500);
    }
    await admin.close();

    const agents: StdioServer[] = await Promise.all(Array.from({ length: 10 }, () => startServer({ db, args: ['--toolset', 'queue'] })));
    // Closed whatever happens: a server left running keeps mocha (and the CI run) from exiting.
    let done: string[][];
    try {
      done = await Promise.all(
        agents.map(async (s, n) => {
          const registered = await call(s, 'register_agent', { projectId: 'drain', agentName: `agent-${n}` });
          assert.ok(!registered.isError, `agent-${n} registered: ${JSON.stringify(registered.content)}`);
          const mine: string[] = [];
          for (;;) {
            const r = (await call(s, 'request_task', {})).structuredContent as { task: { id: string; assignedTo: string } | null; reason: string; alreadyAssigned: boolean };
            if (!r.task) {
              assert.equal(r.reason, 'empty');
              return mine;
            }
            assert.equal(r.alreadyAssigned, false, 'an agent is only handed a task it does not already hold');
            assert.equal(r.task.assignedTo, `agent-${n}`);
            mine.push(r.task.id);
            await call(s, 'complete_task', { taskId: r.task.id, explanation: `done by agent-${n}` });
          }
        }),
      );
    } finally {
      await Promise.all(agents.map((s) => s.close().catch(() => undefined)));
    }

    const all = done.flat();
    assert.equal(all.length, 1_000, 'every task was handed out');
    assert.equal(new Set(all).size, 1_000, 'no task was handed out twice');
    console.log(`      tasks per agent: ${done.map((d) => d.length).join(', ')}`);
    assert.ok(done.filter((d) => d.length > 0).length >= 5, 'the work was shared');

    const ledger = await openLedger({ file: db, checkpoint: false });
    try {
      const project = await ledger.queue.getProject('drain');
      assert.equal(project?.stats.completedTasks, 1_000);
      assert.equal(project?.stats.queuedTasks, 0);
      assert.equal(project?.stats.runningTasks, 0);
      const { tasks } = await ledger.queue.listTasks('drain', { limit: 1_000, offset: 0 });
      for (const t of tasks) {
        const history = await ledger.queue.taskHistory(t.id);
        assert.equal(history?.length, 1, `task ${t.id} has ${history?.length} attempts`);
        assert.equal(history?.[0]?.status, 'completed');
      }
    } finally {
      await ledger.close();
    }
  });
});
