// A throwaway PostgreSQL server for tests: initdb in a temp folder, the postgres binary on
// 127.0.0.1 with a free port, fsync off, password authentication (so tests can check that the
// password never shows). One server per test process, started on first use and killed at exit;
// each caller gets a fresh database. Run as root, initdb and postgres run as the `postgres` user
// (initdb refuses root). Without PostgreSQL installed the tests skip with a message, except on CI
// (env CI or AP_REQUIRE_POSTGRES set), where a missing server is a failure: .ci/run installs
// Debian's postgresql.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { failOnCi } from './ci';

export const PG_TEST_PASSWORD = 'ap-test-s3cret-pw';

export interface TestPostgres {
  port: number;
  /** The connection string of the server's `postgres` database. */
  adminUrl: string;
  /** Creates an empty database and returns its connection string (with the password). */
  createDatabase(): Promise<string>;
  /** Stops the server (also done at process exit). */
  stop(): void;
}

/** The folder holding initdb and postgres, or undefined when PostgreSQL is not installed. */
export function findPostgresBin(): string | undefined {
  const candidates: string[] = [];
  if (process.env.AP_PG_BIN) candidates.push(process.env.AP_PG_BIN);
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromConfig.status === 0) candidates.push(fromConfig.stdout.trim());
  try {
    const versions = fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(path.join('/usr/lib/postgresql', v, 'bin'));
  } catch {
    // not Debian's layout
  }
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'postgres')));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

let starting: Promise<TestPostgres> | undefined;
let databases = 0;

/** How many databases this test process created (to check that a suite really ran on PostgreSQL). */
export function databasesCreated(): number {
  return databases;
}

function asPostgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0) throw new Error("Running as root, but there is no postgres user to run initdb as (initdb refuses root). Install Debian's postgresql package.");
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function start(bin: string): Promise<TestPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-pg-'));
  const user = asPostgresUser();
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, PG_TEST_PASSWORD + '\n', { mode: 0o600 });
  if (user) fs.chownSync(pwfile, user.uid, user.gid);
  const wrap = (cmd: string, args: string[]): [string, string[]] => (user ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  const [initCmd, initArgs] = wrap(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'scram-sha-256',
    `--pwfile=${pwfile}`,
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status}): ${init.stderr || init.stdout}`);
  const port = await freePort();
  const [pgCmd, pgArgs] = wrap(path.join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=300',
    '-c',
    'shared_buffers=64MB',
    '-c',
    'log_min_messages=fatal',
  ]);
  const child: ChildProcess = spawn(pgCmd, pgArgs, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 20_000) stderr += d.toString();
  });
  child.unref();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  const stop = (): void => {
    // The postmaster's own pid (the child may be runuser, which does not pass signals on).
    // SIGQUIT: immediate shutdown, backends included; the cluster is thrown away anyway.
    const pids: number[] = [];
    try {
      const postmaster = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (Number.isInteger(postmaster) && postmaster > 0) pids.push(postmaster);
    } catch {
      // not started, or already gone
    }
    if (child.exitCode === null && child.pid !== undefined) pids.push(child.pid);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const adminUrl = `postgres://postgres:${PG_TEST_PASSWORD}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: adminUrl });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 30 s: ${(err as Error).message} ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    adminUrl,
    stop,
    createDatabase: async () => {
      const name = `ap_test_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres:${PG_TEST_PASSWORD}@127.0.0.1:${port}/${name}`;
    },
  };
}

/** The test process's PostgreSQL server, started on first call; undefined when not installed (not on CI). */
export async function testPostgres(): Promise<TestPostgres | undefined> {
  const bin = findPostgresBin();
  if (!bin) {
    failOnCi('PostgreSQL is not installed, but CI must run the PostgreSQL tests: apt-get install -y postgresql (see .ci/run).', 'AP_REQUIRE_POSTGRES');
    return undefined;
  }
  starting ??= start(bin);
  return starting;
}

export const SKIP_MESSAGE = "PostgreSQL not found (install Debian's postgresql package, or set AP_PG_BIN to its bin folder): skipping the PostgreSQL tests";

/**
 * For a describe block: starts (or reuses) the server before its tests, skipping them with a clear
 * message when PostgreSQL is not installed. Returns a getter for the server.
 */
export function usePostgres(): () => TestPostgres {
  let server: TestPostgres | undefined;
  before(async function () {
    this.timeout(60_000);
    server = await testPostgres();
    if (!server) {
      console.log(`      ${SKIP_MESSAGE}`);
      this.skip(); // no PostgreSQL binaries here; with CI or AP_REQUIRE_POSTGRES set, testPostgres() throws instead
    }
  });
  return () => {
    if (!server) throw new Error('usePostgres(): the server is not started yet (call the getter inside a test or hook)');
    return server;
  };
}
