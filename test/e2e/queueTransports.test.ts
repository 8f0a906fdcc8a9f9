// The queue over both transports of the built server: stdio, and Streamable HTTP with its bearer
// token, Host/Origin checks, /metrics, JSON logs, sessions that survive a restart, and a graceful
// shutdown that leaves no task in a broken state.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openLedger } from '../../src/core/storage/openLedger';
import { httpClient, rawRequest, startHttpServer, TOKEN } from '../helpers/httpServer';
import { call, rpcError, startServer, textOf } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Structured> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${(r.content[0] as { text: string }).text}`);
  return r.structuredContent as Structured;
}

/** Every task's state agrees with its attempts and its agent: what a broken state would violate. */
async function assertConsistent(db: string, projectId: string): Promise<void> {
  const ledger = await openLedger({ file: db, checkpoint: false });
  try {
    const { tasks } = await ledger.queue.listTasks(projectId, { limit: 100_000, offset: 0 });
    for (const t of tasks) {
      const attempts = (await ledger.queue.taskHistory(t.id)) ?? [];
      const running = attempts.filter((a) => a.status === 'running');
      if (t.status === 'running') {
        assert.ok(t.assignedTo && t.leaseExpiresAt, `${t.id} runs without an agent or lease`);
        assert.equal(running.length, 1, `${t.id} runs with ${running.length} open attempts`);
        const agent = await ledger.queue.getAgent(projectId, t.assignedTo);
        assert.equal(agent?.currentTaskId, t.id, `${t.id}'s agent does not know it holds it`);
      } else {
        assert.equal(running.length, 0, `${t.id} is ${t.status} with an open attempt`);
      }
      if (t.status === 'completed') assert.equal(attempts[attempts.length - 1]?.status, 'completed');
    }
  } finally {
    await ledger.close();
  }
}

describe('queue transports (dist/server.js)', function () {
  this.timeout(120_000);
  useTempDirs();

  it('serves the whole agent flow over stdio, refusing bad arguments with -32602', async () => {
    const db = path.join(tempDir(), 'data.db');
    const admin = await startServer({ db, args: ['--toolset', 'queue'] });
    const agent = await startServer({ db, args: ['--toolset', 'queue'] });
    try {
      await call(admin, 'create_project', { name: 'stdio' });
      await call(admin, 'create_task_type', { projectId: 'stdio', name: 'fix', template: 'Fix issue #{{n}}', leaseDurationMinutes: 0.5 });
      await call(admin, 'create_tasks_bulk', {
        projectId: 'stdio',
        tasks: [
          { typeId: 'fix', variables: { n: '1' } },
          { typeId: 'fix', variables: { n: '2' } },
        ],
      });
      const reg = await call(agent, 'register_agent', { projectId: 'stdio', agentName: 'claude' });
      assert.match(textOf(reg), /Your apiKey \(shown only now; keep it to reconnect\): apk_/);
      const got = await call(agent, 'request_task', {});
      assert.match(textOf(got), /^You now hold task \S+, lease until \S+ \(extend_lease for more time\)\.\nInstructions:\nFix issue #1\n/);
      const id = (got.structuredContent as Structured).task.id;
      await call(agent, 'extend_lease', { taskId: id, additionalMinutes: 1.5 });
      await call(agent, 'complete_task', { taskId: id, explanation: 'fixed' });
      assert.deepEqual(await rpcError(call(agent, 'complete_task', { taskId: id })), { code: -32602, message: 'explanation is required' });
      assert.deepEqual(await rpcError(call(admin, 'get_task', { taskId: 'nope' })), { code: -32602, message: "Task not found: nope. Use list_tasks to see a project's tasks." });
      const status = (await call(admin, 'get_project_status', { projectId: 'stdio' })).structuredContent as Structured;
      assert.deepEqual([status.project.stats.completedTasks, status.project.stats.queuedTasks], [1, 1]);
    } finally {
      await admin.close();
      await agent.close();
    }
  });

  it('refuses requests without the token, for another Host or Origin, and answers /healthz and /metrics', async () => {
    const db = path.join(tempDir(), 'data.db');
    const server = await startHttpServer(db);
    try {
      const { client } = await httpClient(server.port);
      await tool(client, 'create_project', { name: 'metered' });
      await tool(client, 'add_task', { projectId: 'metered', instructions: 'a' });
      await tool(client, 'add_task', { projectId: 'metered', instructions: 'b' });
      await client.close();

      const noToken = await rawRequest(server.port, { path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(noToken.status, 401);
      assert.equal(noToken.headers['www-authenticate'], 'Bearer');
      const wrong = await rawRequest(server.port, { path: '/metrics', headers: { authorization: 'Bearer not-the-token-at-all-xx' } });
      assert.equal(wrong.status, 401);
      const rebinding = await rawRequest(server.port, { path: '/metrics', headers: { host: 'attacker.example:80', authorization: `Bearer ${TOKEN}` } });
      assert.equal(rebinding.status, 403);
      assert.match(
        (JSON.parse(rebinding.body) as { error: string }).error,
        /^Host "attacker\.example:80" is not allowed; use 127\.0\.0\.1:\d+ or start the server with --allowed-hosts$/,
      );
      const origin = await rawRequest(server.port, { path: '/metrics', headers: { origin: 'https://evil.example', authorization: `Bearer ${TOKEN}` } });
      assert.equal(origin.status, 403);
      assert.equal((await rawRequest(server.port, { path: '/healthz' })).body, '{"status":"ok"}');
      const metrics = await rawRequest(server.port, { path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(metrics.status, 200);
      assert.match(metrics.body, /^agent_progress_tasks\{project="metered",status="queued"\} 2$/m);
      assert.match(metrics.body, /^agent_progress_queue_depth\{project="metered"\} 2$/m);
      assert.match(metrics.body, /^# TYPE agent_progress_tasks gauge$/m);
    } finally {
      await server.stop();
    }
  });

  it('gives each HTTP session the project it joined as its default, also after a restart', async () => {
    const db = path.join(tempDir(), 'data.db');
    const first = await startHttpServer(db);
    const admin = await httpClient(first.port);
    await tool(admin.client, 'create_project', { name: 'north' });
    await tool(admin.client, 'create_project', { name: 'south' });
    await tool(admin.client, 'add_task', { projectId: 'north', instructions: 'north work' });
    await admin.client.close();
    const a = await httpClient(first.port);
    const b = await httpClient(first.port);
    await tool(a.client, 'join_project', { projectId: 'north' });
    await tool(b.client, 'join_project', { projectId: 'south' });
    assert.equal((await tool(a.client, 'register_agent', { agentName: 'northerner' })).agent.projectId, 'north');
    assert.equal((await tool(a.client, 'request_task')).task.instructions, 'north work');
    assert.equal((await tool(b.client, 'add_task', { instructions: 'south work' })).task.projectId, 'south');
    assert.deepEqual(await first.stop(), { code: 0, signal: null });

    const second = await startHttpServer(db, { port: first.port });
    try {
      // The same sessions go on after the restart, each with its own project.
      assert.deepEqual(
        (await tool(b.client, 'list_tasks')).tasks.map((t: Structured) => t.instructions),
        ['south work'],
      );
      assert.equal((await tool(b.client, 'register_agent', { agentName: 'southerner' })).agent.projectId, 'south');
      assert.equal((await tool(b.client, 'request_task')).task.instructions, 'south work');
      assert.equal((await tool(a.client, 'get_project')).project.id, 'north');
      await a.client.close();
      await b.client.close();
    } finally {
      await second.stop();
    }
  });

  it('keeps a session, and the agent it is, across a server restart', async () => {
    const db = path.join(tempDir(), 'data.db');
    const first = await startHttpServer(db);
    const { client, transport } = await httpClient(first.port);
    await tool(client, 'create_project', { name: 'restart' });
    await tool(client, 'add_task', { projectId: 'restart', instructions: 'survive a restart' });
    await tool(client, 'register_agent', { projectId: 'restart', agentName: 'steady' });
    const held = await tool(client, 'request_task');
    const sessionId = transport.sessionId;
    assert.deepEqual(await first.stop(), { code: 0, signal: null });

    const second = await startHttpServer(db, { port: first.port });
    try {
      // The same client and session go on: no re-registration, no key.
      assert.equal((await tool(client, 'get_current_task')).task.id, held.task.id);
      await tool(client, 'complete_task', { taskId: held.task.id, explanation: 'done after the restart' });
      assert.equal(transport.sessionId, sessionId);
      assert.match(second.stderr(), /"msg":"session restored after a restart","session_id":"[^"]+","agent_id":"steady","project_id":"restart"/);
      await client.close();
    } finally {
      await second.stop();
    }
  });

  it('writes JSON logs with task, project and agent ids, and never the token or a key', async () => {
    const db = path.join(tempDir(), 'data.db');
    const server = await startHttpServer(db);
    const { client } = await httpClient(server.port);
    await tool(client, 'create_project', { name: 'logged' });
    await tool(client, 'add_task', { projectId: 'logged', instructions: 'x' });
    const reg = await tool(client, 'register_agent', { projectId: 'logged', agentName: 'logger' });
    const t = await tool(client, 'request_task');
    await tool(client, 'complete_task', { taskId: t.task.id, explanation: 'ok' });
    await client.close();
    await server.stop();
    const lines = server.stderr().split('\n').filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const completed = records.find((r) => r.msg === 'task completed');
    assert.deepEqual([completed?.task_id, completed?.project_id, completed?.agent_id], [t.task.id, 'logged', 'logger']);
    assert.ok(records.every((r) => typeof r.time === 'string' && typeof r.level === 'string'));
    assert.ok(!server.stderr().includes(TOKEN));
    assert.ok(!server.stderr().includes(reg.apiKey));
  });

  it('stops gracefully under load and leaves every task in a consistent state', async () => {
    const db = path.join(tempDir(), 'data.db');
    const server = await startHttpServer(db);
    const setup = await httpClient(server.port);
    await tool(setup.client, 'create_project', { name: 'busy' });
    await tool(setup.client, 'create_tasks_bulk', { projectId: 'busy', tasks: Array.from({ length: 300 }, (_, i) => ({ instructions: `t${i}` })) });
    await setup.client.close();
    const workers = await Promise.all(Array.from({ length: 4 }, () => httpClient(server.port)));
    let stopped = false;
    let completed = 0;
    const loops = workers.map(async ({ client }, i) => {
      await tool(client, 'register_agent', { projectId: 'busy', agentName: `w${i}` });
      while (!stopped) {
        try {
          const r = await tool(client, 'request_task');
          if (!r.task) return;
          await tool(client, 'complete_task', { taskId: r.task.id, explanation: 'ok' });
          completed++;
        } catch {
          return; // the server went away mid-call
        }
      }
    });
    // Stop once the work is under way (not after a fixed sleep, which on a slow machine may come before any).
    await waitFor(() => completed >= 20, 'the workers to complete 20 of the 300 tasks', 60_000);
    const exit = await server.stop('SIGTERM');
    stopped = true;
    await Promise.all(loops);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.match(server.stderr(), /Shutting down \(SIGTERM\)/);
    await assertConsistent(db, 'busy');
  });

  it('keeps its token in a private file beside the ledger when none is given', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'data.db');
    const server = await startHttpServer(db, { env: { AGENT_PROGRESS_HTTP_TOKEN: '' } });
    try {
      const file = `${db}.http-token`;
      const token = fs.readFileSync(file, 'utf8').trim();
      assert.ok(token.length >= 32);
      if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.ok(!server.stderr().includes(token), 'the token is named by its file, not printed');
      const { client } = await httpClient(server.port, token);
      await tool(client, 'list_projects');
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
