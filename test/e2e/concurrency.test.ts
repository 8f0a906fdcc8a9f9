// Several real OS processes on one ledger: nothing lost, ids unique, and kill -9 at any instant
// loses no acknowledged write.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { openLedger } from '../../src/core/storage/openLedger';
import { call, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

const WRITER = path.join(__dirname, '..', 'helpers', 'ledgerWriter.ts');

interface Writer {
  child: ChildProcessWithoutNullStreams;
  acked: string[];
  ready: Promise<void>;
  exited: Promise<number | null>;
  stderr: () => string;
}

function startWriter(db: string, prefix: string, count: number): Writer {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', WRITER, db, prefix, String(count)], { cwd: path.join(__dirname, '..', '..') });
  const acked: string[] = [];
  let buffered = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line === 'ready') markReady();
      else acked.push(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, acked, ready, exited, stderr: () => stderr };
}

async function storedIds(db: string): Promise<string[]> {
  const ledger = await openLedger({ file: db, checkpoint: false });
  try {
    const projects = await ledger.progress.listProjects();
    const ids: string[] = [];
    for (const p of projects) {
      const page = await ledger.progress.searchEntries({ projectId: p.projectId, limit: 1_000_000 });
      ids.push(...page.entries.map((e) => e.id));
    }
    return ids;
  } finally {
    await ledger.close();
  }
}

describe('several processes on one ledger', function () {
  this.timeout(180_000);
  useTempDirs();

  it('keeps every write of five MCP server processes writing at once, ids unique', async () => {
    const db = path.join(tempDir(), 'data.db');
    const servers: StdioServer[] = await Promise.all(Array.from({ length: 5 }, () => startServer({ db })));
    const perServer = 60;
    const results = await Promise.all(
      servers.map(async (s, n) => {
        const ids: string[] = [];
        // Four calls in flight per server, so writes queue inside each process as well as across them.
        await Promise.all(
          Array.from({ length: 4 }, async (_, lane) => {
            for (let i = lane; i < perServer; i += 4) {
              const r = await call(s, 'log_progress', { projectId: 'shared', title: `server ${n} entry ${i}`, content: `from server ${n}`, agentId: `agent-${n}` });
              ids.push((r.structuredContent as { id: string }).id);
            }
          }),
        );
        return ids;
      }),
    );
    const acked = results.flat();
    assert.equal(new Set(acked).size, 5 * perServer, 'ids are unique');
    const fromFifth = await call(servers[4]!, 'search_logs', { projectId: 'shared', limit: 1 });
    assert.equal((fromFifth.structuredContent as { total: number }).total, 5 * perServer);
    await Promise.all(servers.map((s) => s.close()));
    const stored = await storedIds(db);
    assert.equal(stored.length, 5 * perServer);
    assert.deepEqual(new Set(stored), new Set(acked));
  });

  it('keeps every write of six writer processes that snapshot and rotate while they write', async () => {
    const db = path.join(tempDir(), 'data.db');
    const writers = Array.from({ length: 6 }, (_, i) => startWriter(db, `w${i}`, 150));
    const codes = await Promise.all(writers.map((w) => w.exited));
    assert.deepEqual(codes, [0, 0, 0, 0, 0, 0], writers.map((w) => w.stderr()).join('\n'));
    const stored = new Set(await storedIds(db));
    assert.equal(stored.size, 900);
    for (const w of writers) for (const id of w.acked) assert.ok(stored.has(id), id);
  });

  it('loses no acknowledged write when writers are killed with SIGKILL at random instants, again and again', async () => {
    const db = path.join(tempDir(), 'data.db');
    const acked: string[] = [];
    let kills = 0;
    for (let round = 0; round < 8; round++) {
      // Two writers at once; each is killed at its own random instant mid-stream.
      const pair = [startWriter(db, `r${round}a`, -1), startWriter(db, `r${round}b`, -1)];
      await Promise.all(pair.map((w) => w.ready));
      await Promise.all(
        pair.map(async (w) => {
          const target = 5 + Math.floor(Math.random() * 120);
          await waitFor(() => w.acked.length >= target || w.child.exitCode !== null, 'writes to be acknowledged', 60_000, 2);
          w.child.kill('SIGKILL');
          kills++;
          await w.exited;
          assert.equal(w.stderr(), '', w.stderr());
        }),
      );
      for (const w of pair) acked.push(...w.acked);
      const stored = new Set(await storedIds(db));
      const lost = acked.filter((id) => !stored.has(id));
      assert.deepEqual(lost, [], `round ${round}: acknowledged writes lost`);
    }
    assert.equal(kills, 16);
    console.log(`      ${acked.length} acknowledged writes survived ${kills} kill -9s`);
  });

  it('loses no acknowledged log_progress when the MCP server is killed with SIGKILL mid-stream', async () => {
    const db = path.join(tempDir(), 'data.db');
    const acked: string[] = [];
    for (let round = 0; round < 5; round++) {
      const s = await startServer({ db });
      let stop = false;
      const loop = (async () => {
        for (let i = 0; !stop; i++) {
          try {
            const r = await call(s, 'log_progress', { projectId: 'p', title: `round ${round} #${i}`, content: 'x'.repeat(500) });
            acked.push((r.structuredContent as { id: string }).id);
          } catch {
            return; // the server died under this call: it was never acknowledged
          }
        }
      })();
      const target = acked.length + 5 + Math.floor(Math.random() * 60);
      await waitFor(() => acked.length >= target, 'acknowledged calls', 60_000, 2);
      process.kill(s.pid, 'SIGKILL');
      stop = true;
      await loop;
      await s.close().catch(() => undefined);
    }
    const s = await startServer({ db });
    const total = (await call(s, 'search_logs', { projectId: 'p', limit: 1 })).structuredContent as { total: number };
    await s.close();
    assert.ok(total.total >= acked.length);
    const stored = new Set(await storedIds(db));
    assert.deepEqual(
      acked.filter((id) => !stored.has(id)),
      [],
    );
  });
});
