// The ledger host of a PostgreSQL ledger as real processes run it: stdio servers, CLI calls and
// writer processes against dist/ sharing one host per connection string (and runtime folder), its
// ranked searches answered from its index in memory as SQL answers them, the connection string kept
// off command lines and out of its log, ten racing starters, kill -9 under writers with the standby
// taking over, its folder removed, and AGENT_PROGRESS_LEDGER_HOST=off. Each test has its own
// runtime folder (XDG_RUNTIME_DIR) given to every process it starts: the root hook kills the hosts
// living there. Every check waits for a condition with a deadline; nothing rests on a sleep.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openLedger } from '../../src/core/storage/openLedger';
import { hostPathsForUrl, type HostPaths } from '../../src/core/host/paths';
import { processAlive } from '../../src/core/host/ownerFile';
import { connectedStandby, killWriters, ownerPid, runNode, startWriter, type Run, type Writer } from '../helpers/hostProcesses';
import { PG_TEST_PASSWORD, usePostgres } from '../helpers/postgres';
import { call, cleanEnv, CLI, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

const UID = process.getuid?.() ?? 0;
const DIRECT_NOTICE = 'Agent Progress: opening the ledger directly (AGENT_PROGRESS_LEDGER_HOST=off)\n';

/** One PostgreSQL ledger as a test's processes see it: its connection string and their runtime folder. */
interface Target {
  url: string;
  runtime: string;
}

/** The environment of every process a test starts: the ledger, the runtime folder, hosts that stay while the test runs. */
function envOf(t: Target, extra: Record<string, string> = {}): Record<string, string> {
  return { AGENT_PROGRESS_DATABASE_URL: t.url, XDG_RUNTIME_DIR: t.runtime, AGENT_PROGRESS_HOST_IDLE_MS: '60000', ...extra };
}

/** Runs `fn` with this process's XDG_RUNTIME_DIR set to the test's runtime folder (paths.ts reads it at call time). */
function inRuntime<T>(runtime: string, fn: () => T): T {
  const saved = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = runtime;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
  }
}

function pathsOf(t: Target): HostPaths {
  return inRuntime(t.runtime, () => hostPathsForUrl(t.url));
}

function cli(t: Target, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return runNode(CLI, args, cleanEnv(envOf(t, extra)), t.runtime);
}

interface Status {
  running: boolean;
  pid?: number;
  clients?: number;
  standby?: number | null;
  ledger?: string;
  searchIndex?: { entries: number; answers: number; frequent: number; building: boolean };
}

async function status(t: Target): Promise<Status> {
  const run = await cli(t, ['host', 'status', '--json']);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Status;
}

/**
 * Live ledger host processes (hosts and standbys, however started) of this connection string in
 * this runtime folder, found in /proc: a PostgreSQL ledger's host runs in `<runtime>/agent-progress-<uid>`
 * with the connection string in its environment.
 */
function hostProcesses(t: Target): number[] {
  const home = path.join(fs.realpathSync(t.runtime), `agent-progress-${UID}`);
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!argv.some((a) => a.endsWith('ledgerHost.js')) || !argv.includes('--postgres')) continue;
      // A zombie has left already (its parent just has not reaped it).
      if (/\) Z /.test(fs.readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      if (fs.readlinkSync(`/proc/${name}/cwd`) !== home) continue;
      if (!fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`AGENT_PROGRESS_HOST_DATABASE_URL=${t.url}`)) continue;
      pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Host processes that are not the standby (a standby that took over serves, its --standby argument notwithstanding). */
function servingHosts(t: Target): number[] {
  const standby = ownerPid(pathsOf(t).standby);
  return hostProcesses(t).filter((pid) => pid !== standby);
}

/** The standby connected to the running host (its paths taken in the test's runtime folder). */
function standbyOf(t: Target): Promise<number | undefined> {
  return inRuntime(t.runtime, () => connectedStandby({ file: '', databaseUrl: t.url }));
}

function hostLog(t: Target): string {
  const log = pathsOf(t).log;
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '(no host log)';
}

/** test/helpers/hostWriter.cjs on the PostgreSQL ledger: queues tasks NAME-i until its stdin closes. */
function startPgWriter(t: Target, name: string, project: string): Writer {
  return startWriter(path.join(t.runtime, 'unused.db'), name, project, envOf(t));
}

describe('the ledger host of a PostgreSQL ledger (real processes)', function () {
  this.timeout(300_000);
  const stdio: StdioServer[] = [];
  // Writers and servers of a failed test stop before their temp folders go (they would start hosts again).
  afterEach(async () => {
    killWriters();
    await Promise.all(stdio.splice(0).map((s) => s.close().catch(() => undefined)));
  });
  useTempDirs();
  const server = usePostgres();

  const target = async (): Promise<Target> => ({ url: await server().createDatabase(), runtime: tempDir('ap-pgrt-') });

  it('two stdio servers share one host, each finds what the other logged, and its ranked searches from memory equal those of a server reading SQL directly', async () => {
    const t = await target();
    const work = tempDir('ap-pghost-');
    const open = async (name: string, extra: Record<string, string> = {}): Promise<StdioServer> => {
      const s = await startServer({ db: path.join(work, `${name}.db`), env: envOf(t, extra) });
      stdio.push(s);
      return s;
    };
    const a = await open('a');
    const b = await open('b');
    const tool = async (s: StdioServer, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const r = await call(s, name, args);
      assert.ok(!r.isError, JSON.stringify(r.content));
      return r.structuredContent as Record<string, unknown>;
    };
    const words = ['cart', 'checkout', 'payment', 'invoice', 'refund', 'shipping', 'the', 'of', 'durable', 'queue'];
    const logged = 90;
    for (let i = 0; i < logged; i++) {
      // A fixed scramble of the words: most pairs of them meet in some entries and not in others.
      const pick = (k: number): string => words[(Math.imul(i * 31 + k, 2654435761) >>> 7) % words.length]!;
      await tool(a, 'log_progress', {
        projectId: i % 5 === 0 ? 'ops' : 'shop',
        title: `${pick(1)} ${pick(2)} step ${i}`,
        content: `Worked on the ${pick(3)} of the ${pick(4)}; ${pick(5)} ${pick(6)} ${pick(7)} and the ${pick(8)} again.`,
      });
    }
    const marked = (await tool(a, 'log_progress', { projectId: 'shop', title: 'Zeppelin cart', content: 'A word no other entry has: zeppelin.' })) as { id: string };
    const found = (await tool(b, 'search_logs', { projectId: 'shop', text: 'zeppelin' })) as { total: number; entries: { id: string }[] };
    assert.equal(found.total, 1, JSON.stringify(found));
    assert.equal(found.entries[0]!.id, marked.id, 'server B finds the entry server A logged');

    // One host (and at most its standby) serves both; the pid file names it.
    const hosts = await waitFor(
      () => {
        const serving = servingHosts(t);
        return serving.length === 1 ? serving : undefined;
      },
      'exactly one serving ledger host',
      10_000,
    );
    assert.equal(ownerPid(pathsOf(t).pid), hosts[0]);
    assert.ok(hostProcesses(t).length <= 2, `one host and at most one standby: ${hostProcesses(t).join(', ')}`);
    for (const s of [a, b]) assert.doesNotMatch(s.stderr(), /opening the ledger directly/);
    // Its clients: servers A and B, and the CLI asking (it says hello as they do).
    const s0 = await status(t);
    assert.equal(s0.pid, hosts[0]);
    assert.ok(s0.clients! >= 3, JSON.stringify(s0));

    // The index holds every entry once built (about a second after the host opened the ledger).
    const built = await waitFor(
      async () => {
        const s = await status(t);
        return s.searchIndex && !s.searchIndex.building && s.searchIndex.entries === logged + 1 ? s.searchIndex : undefined;
      },
      `the host's search index of ${logged + 1} entries`,
      30_000,
      100,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${hostLog(t)}`);
    });

    const c = await open('c', { AGENT_PROGRESS_LEDGER_HOST: 'off' });
    const page = async (s: StdioServer, args: Record<string, unknown>): Promise<string> => {
      const r = (await tool(s, 'search_logs', args)) as { total: number; entries: { id: string; title: string }[] };
      return `${r.total}: ${r.entries.map((e) => `${e.id} ${e.title}`).join(' | ')}`;
    };
    // One word, two words, a phrase, a prefix, OR, exclusion, a prefix beside a word.
    const queries = ['cart', 'cart payment', '"of the"', 'check*', 'refund OR invoice', 'durable -queue', 'ship* the'];
    let asked = 0;
    for (const projectId of ['shop', 'ops']) {
      for (const text of queries) {
        const args = { projectId, text, limit: 30 };
        const hosted = await page(b, args);
        asked++;
        assert.match(hosted, /^[1-9]\d*: /, `${text} in ${projectId} finds entries`);
        assert.equal(hosted, await page(c, args), `${text} in ${projectId}: the host's answer and SQL's`);
      }
    }
    // Its log says so too; the plain line is said once.
    assert.equal(
      c
        .stderr()
        .split('\n')
        .filter((line) => `${line}\n` === DIRECT_NOTICE).length,
      1,
      `server C opened PostgreSQL directly: ${c.stderr()}`,
    );
    const after = (await status(t)).searchIndex!;
    assert.ok(after.answers >= built.answers + asked, `searches answered from the index: ${built.answers} before, ${after.answers} after ${asked} searches`);
    assert.equal(after.entries, logged + 1);
  });

  it('keeps the connection string off the command lines and out of the log, gives it to the host in its environment, and keeps its folder private', async () => {
    const t = await target();
    const logged = await cli(t, ['log', '--project', 'p', '--title', 'secret', '--content', 'x']);
    assert.equal(logged.status, 0, logged.stderr);
    assert.equal(logged.stderr, '', 'served by a host, not opened directly');
    const paths = pathsOf(t);
    const host = ownerPid(paths.pid)!;
    const standby = await waitFor(() => standbyOf(t), 'the standby connected', 30_000, 50);
    assert.notEqual(standby, host);
    assert.deepEqual(hostProcesses(t).sort(), [host, standby].sort());
    for (const pid of [host, standby]) {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      assert.ok(argv.includes('--postgres'), argv);
      assert.ok(!argv.includes(PG_TEST_PASSWORD) && !argv.includes(t.url), `pid ${pid}'s command line: ${argv.split('\0').join(' ')}`);
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(environ.includes(`AGENT_PROGRESS_HOST_DATABASE_URL=${t.url}`), `pid ${pid} has the connection string in its environment`);
    }
    const log = hostLog(t);
    assert.match(log, /serving postgres:\/\/postgres:\[redacted\]@127\.0\.0\.1/);
    assert.match(log, new RegExp(`Standby ${standby} connected`));
    assert.ok(!log.includes(PG_TEST_PASSWORD), log);
    assert.equal(fs.statSync(path.dirname(paths.dir)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(paths.dir).mode & 0o777, 0o700);
    assert.match(path.basename(paths.dir), /^pg-[0-9a-f]{24}$/);
    assert.equal(fs.statSync(paths.token).mode & 0o777, 0o600);
    assert.ok(fs.statSync(paths.socket).isSocket());
    assert.equal(fs.statSync(paths.socket).mode & 0o777, 0o600);
    const json = await cli(t, ['host', 'status', '--json']);
    const text = await cli(t, ['host', 'status']);
    for (const run of [json, text]) {
      assert.equal(run.status, 0, run.stderr);
      assert.ok(!run.stdout.includes(PG_TEST_PASSWORD) && !run.stderr.includes(PG_TEST_PASSWORD), run.stdout);
    }
    const s = JSON.parse(json.stdout) as Status;
    assert.equal(s.pid, host);
    assert.match(s.ledger!, /^postgres:\/\/postgres:\[redacted\]@127\.0\.0\.1:\d+\/ap_test_/);
    assert.match(text.stdout, new RegExp(`^Ledger host pid ${host}, version .*\\n  ledger   postgres://postgres:\\[redacted\\]@.*\\(PostgreSQL; search index `));
  });

  it('ten CLI processes racing to start it get one host, and every write lands', async () => {
    const t = await target();
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => cli(t, ['log', '--project', 'race', '--title', `racer ${i}`, '--content', 'hello'])));
    for (const run of runs) {
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, '', 'served by the host, not opened directly');
    }
    // Starters that lost the election exit at once; one host stays.
    const hosts = await waitFor(
      () => {
        const found = servingHosts(t);
        return found.length === 1 ? found : undefined;
      },
      `exactly one ledger host process beside its standby (${hostProcesses(t).join(', ')})`,
      10_000,
    );
    assert.equal((await status(t)).pid, hosts[0]);
    const search = await cli(t, ['search', '--project', 'race', '--text', 'hello', '--json']);
    assert.equal(search.status, 0, search.stderr);
    const found = JSON.parse(search.stdout) as { total: number; entries: { title: string }[] };
    assert.equal(found.total, 10, search.stdout);
    assert.deepEqual(found.entries.map((e) => e.title).sort(), Array.from({ length: 10 }, (_, i) => `racer ${i}`).sort());
    assert.deepEqual(servingHosts(t), hosts, 'the host lives on after its starters exited');
    assert.ok(hostProcesses(t).length <= 2, 'one host and at most one standby');
  });

  it('kill -9 of the host under ten writing clients: every acknowledged write is there once, no call blocks 5 s, the standby takes over', async () => {
    const t = await target();
    const paths = pathsOf(t);
    const made = await cli(t, ['create-project', 'kill']);
    assert.equal(made.status, 0, made.stderr);
    const writers = Array.from({ length: 10 }, (_, i) => startPgWriter(t, `w${i}`, 'kill'));
    const total = (): number => writers.reduce((n, w) => n + w.acks.size, 0);
    const said = (): string => writers.map((w) => w.stderr()).join('');
    const killed: number[] = [];
    const takers: number[] = [];
    for (let round = 0; round < 4; round++) {
      const before = total();
      await waitFor(() => total() >= before + 30, `30 more acknowledged writes (round ${round}; ${said()})`, 30_000);
      const owner = await waitFor(
        () => {
          const pid = ownerPid(paths.pid);
          return pid && !killed.includes(pid) ? pid : undefined;
        },
        `a live host in the pid file (${ownerPid(paths.pid)}, killed ${killed.join(', ')}; ${said()})`,
        30_000,
      );
      // The host has its standby connected: the kill is the case it is there for.
      const standby = await waitFor(() => standbyOf(t), `the standby of host ${owner} connected`, 30_000, 50).catch((err: Error) => {
        throw new Error(`${err.message}\n${hostLog(t)}`);
      });
      takers.push(standby);
      process.kill(owner, 'SIGKILL');
      killed.push(owner);
    }
    const before = total();
    await waitFor(() => total() >= before + 30, 'writes after the last kill', 30_000).catch((err: Error) => {
      throw new Error(
        `${err.message} (${total() - before} since; pid file ${ownerPid(paths.pid)}, killed ${killed.join(', ')}, hosts ${hostProcesses(t).join(', ')})\n${said()}\n${hostLog(t).slice(-4000)}`,
      );
    });
    for (const w of writers) w.child.stdin!.end();
    // A writer whose call never returns would hang here without a word: name it instead.
    const codes = await waitFor(
      () => (writers.every((w) => w.child.exitCode !== null) ? writers.map((w) => w.child.exitCode) : undefined),
      'every writer exits once its stdin closes',
      30_000,
    ).catch((err: Error) => {
      const stuck = writers.flatMap((w, i) => (w.child.exitCode === null ? [`writer w${i}: ${w.acks.size} acks; ${w.stderr()}`] : []));
      throw new Error(`${err.message}: ${stuck.join('\n')} (pid file ${ownerPid(paths.pid)}, killed ${killed.join(', ')})\n${hostLog(t).slice(-4000)}`);
    });
    assert.deepEqual(codes, Array(10).fill(0), said());
    assert.equal(said(), '', 'no call failed and none fell back to a direct open');
    const latencies = writers.flatMap((w) => [...w.acks.values()]).sort((x, y) => x - y);
    const slowest = latencies[latencies.length - 1]!;
    console.log(`      ${latencies.length} acknowledged calls over 4 kills: p50 ${latencies[Math.floor(latencies.length / 2)]} ms, max ${slowest} ms`);
    assert.ok(slowest < 5_000, `a call took ${slowest} ms`);
    const now = ownerPid(paths.pid);
    assert.ok(now !== undefined && !killed.includes(now), 'a new host serves after the kills');
    // Each kill's successor was the standby that stood by (the pid file of the next round named it).
    assert.deepEqual(killed.slice(1), takers.slice(0, 3), 'each standby took over from its host');
    assert.equal(now, takers[3]);

    const ledger = await openLedger({ file: '', databaseUrl: t.url });
    try {
      const data = await ledger.transfer.exportData();
      const counts = new Map<string, number>();
      for (const task of data.tasks) counts.set(String(task.instructions), (counts.get(String(task.instructions)) ?? 0) + 1);
      for (const w of writers) for (const id of w.acks.keys()) assert.equal(counts.get(id), 1, `${id} is in the ledger ${counts.get(id) ?? 0} times`);
      // A write in flight at a kill and not acknowledged: there at most once.
      for (const [id, n] of counts) assert.equal(n, 1, `${id} is in the ledger ${n} times`);
    } finally {
      await ledger.close();
    }
  });

  it('the host and its standby exit once their folder is removed, and a client that needs one later starts a new one', async () => {
    const t = await target();
    const paths = pathsOf(t);
    const logged = await cli(t, ['log', '--project', 'p', '--title', 'before the removal', '--content', 'x']);
    assert.equal(logged.status, 0, logged.stderr);
    const host = ownerPid(paths.pid)!;
    const standby = await waitFor(() => standbyOf(t), 'the standby connected', 30_000, 50);
    assert.deepEqual(hostProcesses(t).sort(), [host, standby].sort());
    fs.rmSync(paths.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
    await waitFor(() => !processAlive(host) && !processAlive(standby), 'the host and its standby to exit', 10_000, 50);
    assert.deepEqual(hostProcesses(t), []);
    assert.equal(fs.existsSync(paths.dir), false, 'neither made its folder again');
    // The ledger is in PostgreSQL, not in the folder: the next client starts a host and finds it.
    const search = await cli(t, ['search', '--project', 'p', '--json']);
    assert.equal(search.status, 0, search.stderr);
    assert.equal(search.stderr, '', 'served by a new host, not opened directly');
    assert.equal((JSON.parse(search.stdout) as { total: number }).total, 1, search.stdout);
    const next = ownerPid(paths.pid);
    assert.ok(next !== undefined && next !== host && next !== standby, `a new host: ${next}`);
    assert.ok(processAlive(next));
    assert.equal((await status(t)).pid, next);
  });

  it('AGENT_PROGRESS_LEDGER_HOST=off opens PostgreSQL directly, says so once, and starts no host', async () => {
    const t = await target();
    const off = { AGENT_PROGRESS_LEDGER_HOST: 'off' };
    const logged = await cli(t, ['log', '--project', 'p', '--title', 'direct', '--content', 'straight to PostgreSQL'], off);
    assert.equal(logged.status, 0, logged.stderr);
    assert.equal(logged.stderr, DIRECT_NOTICE);
    const search = await cli(t, ['search', '--project', 'p', '--text', 'straight', '--json'], off);
    assert.equal(search.status, 0, search.stderr);
    assert.equal(search.stderr, DIRECT_NOTICE);
    const found = JSON.parse(search.stdout) as { total: number; entries: { title: string }[] };
    assert.deepEqual([found.total, found.entries[0]?.title], [1, 'direct']);
    const own = path.join(t.runtime, `agent-progress-${UID}`);
    const folders = fs.existsSync(own) ? fs.readdirSync(own).filter((f) => f.startsWith('pg-')) : [];
    assert.deepEqual(folders, [], 'no host folder was made');
    assert.deepEqual(hostProcesses(t), []);
    // Asking for the host's status starts none either.
    assert.deepEqual(await status(t), { running: false, ledger: pathsOf(t).ledger });
    assert.equal(fs.existsSync(pathsOf(t).dir), false);
  });
});
