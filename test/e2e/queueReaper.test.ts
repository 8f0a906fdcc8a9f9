// The reaper of the built server (dist/server.js) while nothing calls it: a short lease is reaped
// when it runs out, not at the next minute, whether the lease was taken through this server or by
// another process (the CLI) after the server's timer was set. What happened is read by a third
// process (the CLI's get-task, which only reads), on the ledger file and on PostgreSQL.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { usePostgres } from '../helpers/postgres';
import { call, cleanEnv, CLI, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Well above the leases (3 s) and well below the old one-minute sleep that missed them. */
const REAPED_WITHIN_MS = 30_000;

function reaperSuite(backend: 'sqlite' | 'postgres', ledgerEnv: () => Promise<Record<string, string>>): void {
  describe(`the idle server's reaper on ${backend}`, function () {
    this.timeout(120_000);
    let env: Record<string, string>;
    let cwd: string;
    let server: StdioServer | undefined;

    const cli = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
      const r = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv(env), cwd, encoding: 'utf8', timeout: 60_000 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const json = (args: string[]): Structured => {
      const r = cli([...args, '--json']);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      return JSON.parse(r.stdout) as Structured;
    };
    const tool = async (name: string, args: Record<string, unknown>): Promise<Structured> => {
      const r = await call(server!, name, args);
      assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
      return r.structuredContent as Structured;
    };
    /** Polls from another process until the task is back in the queue after a timeout. */
    const requeuedAfterTimeout = (taskId: string): Promise<Structured> =>
      waitFor(
        () => {
          const { task } = json(['get-task', taskId]);
          return task.status === 'queued' && task.attempts[0]?.status === 'timeout' ? task : undefined;
        },
        `task ${taskId} reaped by the idle server`,
        REAPED_WITHIN_MS,
        250,
      );

    beforeEach(async () => {
      cwd = tempDir();
      env = { AGENT_PROGRESS_DB_PATH: path.join(cwd, 'data.db'), ...(await ledgerEnv()) };
      server = await startServer({ db: env.AGENT_PROGRESS_DB_PATH!, env, cwd, args: ['--toolset', 'queue'] });
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('reaps a lease taken through it when the lease runs out, though the project checks only every minute', async () => {
      // The server's timer is set when the queue is first used: nothing runs yet.
      await tool('create_project', { name: 'idle', defaultLeaseDurationMinutes: 0.05 });
      await tool('add_task', { projectId: 'idle', instructions: 'take three seconds at most' });
      await tool('register_agent', { projectId: 'idle', agentName: 'sleepy' });
      const held = (await tool('request_task', {})).task;
      assert.equal(held.status, 'running');
      const task = await requeuedAfterTimeout(held.id);
      assert.deepEqual([task.retryCount, task.failureReason, task.attempts[0].agentName], [1, 'timeout', 'sleepy']);
    });

    it('follows a project with a shorter interval and a lease that another process makes after its timer was set', async () => {
      await tool('list_projects', {});
      json(['create-project', 'quick', 'made by the CLI', '--reaper-interval', '0.05', '--lease-duration', '0.05']);
      json(['add-task', 'quick', '-', 'a task the CLI takes and drops']);
      const key = json(['register-agent', 'quick', 'cli-agent']).apiKey as string;
      const held = json(['request-task', 'quick', 'cli-agent', '--key', key]).task;
      assert.equal(held.status, 'running');
      const task = await requeuedAfterTimeout(held.id);
      assert.deepEqual([task.retryCount, task.failureReason, task.attempts[0].agentName], [1, 'timeout', 'cli-agent']);
    });
  });
}

describe('queue reaper (dist/server.js, idle)', () => {
  useTempDirs();
  reaperSuite('sqlite', async () => ({}));
  describe('on PostgreSQL', () => {
    const pg = usePostgres();
    reaperSuite('postgres', async () => ({ AGENT_PROGRESS_DATABASE_URL: await pg().createDatabase() }));
  });
});
