// What the ledger host relies on in the engine and the protocol: concurrent writes committed as
// one journal record, one failing without the others; and a call sent twice with the same id
// (a client that lost its host mid-call) applied once, the retry answered with the first result.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { isLedgerError } from '../../../../src/core/errors';
import { HostConnection, openHostLedger } from '../../../../src/core/host/client';
import { METHODS, toWire, fromWire, type CallParams, type Wrapped } from '../../../../src/core/host/protocol';
import { openLedger } from '../../../../src/core/storage/openLedger';
import type { Ledger } from '../../../../src/core/storage/store';
import { SqliteEngine } from '../../../../src/core/storage/sqlite/engine';
import { SCHEMAS } from '../../../../src/core/storage/sqlite/schemas';
import { writeContext } from '../../../../src/core/storage/writeContext';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { usePostgres } from '../../../helpers/postgres';
import pg from 'pg';

const T = '2026-01-01T00:00:00.000Z';

describe('ledger host writes', function () {
  this.timeout(60_000);
  useTempDirs();

  it('commits writes queued together as one journal record and one fsync, a failing one alone rolled back', async () => {
    const engine = await SqliteEngine.open({ file: path.join(tempDir(), 'l.db'), schemas: SCHEMAS, checkpoint: false });
    try {
      const before = engine.stats().seq;
      const writes = Array.from({ length: 20 }, (_, i) =>
        engine.write((tx) => {
          tx.run('INSERT INTO _meta (key, value) VALUES (?, ?)', [`k${i}`, String(i)]);
          if (i === 7) throw new Error('refused');
          return i;
        }),
      );
      const settled = await Promise.allSettled(writes);
      assert.deepEqual(
        settled.map((s) => s.status),
        settled.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')),
      );
      assert.equal(engine.stats().seq, before + 1, 'one journal record for the twenty writes');
      const keys = engine.read((tx) => tx.all<{ key: string }>("SELECT key FROM _meta WHERE key LIKE 'k%' ORDER BY CAST(substr(key, 2) AS INTEGER)")).map((r) => r.key);
      assert.deepEqual(
        keys,
        Array.from({ length: 20 }, (_, i) => `k${i}`).filter((k) => k !== 'k7'),
      );
    } finally {
      await engine.close();
    }
    // A process that reads the journal afresh sees the same.
  });

  it('commits the writes of calls that each start in their own callback of one event loop turn as one journal record (several clients read together)', async () => {
    const engine = await SqliteEngine.open({ file: path.join(tempDir(), 'l.db'), schemas: SCHEMAS, checkpoint: false });
    try {
      const before = engine.stats().seq;
      // A host reads several clients' requests in one turn and runs each in its own callback.
      const writes = await new Promise<Array<Promise<number>>>((resolve) => {
        const started: Array<Promise<number>> = [];
        for (let i = 0; i < 5; i++)
          setImmediate(() => {
            started.push(engine.write((tx) => (tx.run('INSERT INTO _meta (key, value) VALUES (?, ?)', [`c${i}`, String(i)]), i)));
            if (started.length === 5) resolve(started);
          });
      });
      assert.deepEqual(await Promise.all(writes), [0, 1, 2, 3, 4]);
      assert.equal(engine.stats().seq, before + 1, 'one journal record for the five calls');
    } finally {
      await engine.close();
    }
  });

  /** A ledger opened directly, and one entry inserted as a host runs a call: in the write context `call` (id, fresh). */
  async function withEntry(run: (insert: (call: { id: string; fresh?: boolean }) => Promise<void>, ledger: Ledger) => Promise<void>): Promise<void> {
    const ledger = await openLedger({ file: path.join(tempDir(), 'l.db'), checkpoint: false });
    try {
      const entry = { id: 'e1', projectId: 'p', title: 'once', content: 'x', createdAt: T, tags: [], agentId: null };
      await run((call) => writeContext.run({ ...call, n: 0, origin: 1 }, () => ledger.progress.insertEntry(entry)), ledger);
    } finally {
      await ledger.close();
    }
  }

  it('answers a write retried with the same id from its first result instead of applying it again', async () => {
    await withEntry(async (insert, ledger) => {
      const id = randomUUID();
      await insert({ id });
      // The same call again (a client that lost its host before the answer): no conflict, nothing written.
      const seq = (await ledger.stats()).seq;
      await insert({ id });
      assert.equal((await ledger.stats()).seq, seq);
      // Another call with the same content is a new write: refused as the duplicate it is.
      await assert.rejects(insert({ id: randomUUID() }), (err: unknown) => isLedgerError(err) && err.code === 'conflict');
      assert.equal((await ledger.progress.searchEntries({ projectId: 'p', limit: 10, offset: 0 } as never)).total, 1);
    });
  });

  it('records the writes of a call sent for the first time without looking them up, so that its retry is still answered', async () => {
    await withEntry(async (insert, ledger) => {
      const id = randomUUID();
      await insert({ id, fresh: true });
      const seq = (await ledger.stats()).seq;
      // Sent again (fresh cleared, as the client does): answered from the first result.
      await insert({ id, fresh: false });
      assert.equal((await ledger.stats()).seq, seq);
      // Fresh means not looked up: the same id claimed fresh again is run again, and refused as a duplicate entry.
      await assert.rejects(insert({ id, fresh: true }), (err: unknown) => isLedgerError(err) && err.code === 'conflict');
      assert.equal((await ledger.stats()).seq, seq);
    });
  });

  it('a client sends a call fresh the first time only: sent again after losing its host, it asks for a lookup', async () => {
    const client = new HostConnection({ file: path.join(tempDir(), 'l.db'), start: false });
    const sent: CallParams[] = [];
    // The transport stands in for two hosts: the first is lost before it answers, the second answers.
    const live = () => ({
      socket: { ref() {}, unref() {} },
      connection: {
        sendRequest: async (_method: string, params: CallParams) => {
          sent.push({ ...params });
          if (sent.length === 1) throw new Error('connection lost');
          return { v: toWire('ok') };
        },
        dispose() {},
      },
    });
    (client as unknown as { connection: () => Promise<unknown> }).connection = async () => live();
    assert.equal(await client.call('progress', 'insertEntry', [{ id: 'e1' }]), 'ok');
    assert.deepEqual(
      sent.map((p) => p.fresh),
      [true, false],
    );
    assert.equal(sent[0]!.id, sent[1]!.id, 'the same call id both times');
  });

  it('through a host: the same call sent twice is applied once and both get its answer', async () => {
    const file = path.join(tempDir(), 'l.db');
    const ledger = await openHostLedger({ file, idleMs: 30_000 });
    try {
      await ledger.queue.createProject(
        { projectId: 'q', description: '', config: { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 10, reaperIntervalMinutes: 1 }, at: T } as never,
        { kind: 'operator', name: 't' },
      );
      const type = await ledger.queue.createTaskType(
        { id: 'tt', projectId: 'q', name: 'plain', template: null, variables: [], duplicateHandling: 'allow', maxRetries: undefined, leaseDurationMinutes: undefined, at: T },
        { kind: 'operator', name: 't' },
      );
      const params: CallParams = {
        id: randomUUID(),
        store: 'queue',
        method: 'addTasks',
        args: toWire(['q', [{ id: 'task1', typeId: type.id, instructions: 'do it', variables: null, variablesKey: null }], T, { kind: 'operator', name: 't' }]) as unknown[],
      };
      const first = fromWire((await ledger.host.request<Wrapped>(METHODS.call, params)).v);
      const again = fromWire((await ledger.host.request<Wrapped>(METHODS.call, params)).v);
      assert.deepEqual(again, first);
      assert.equal((await ledger.queue.listTasks('q', { limit: 10, offset: 0 })).total, 1);
    } finally {
      await ledger.close();
    }
  });
});

describe('ledger host writes on PostgreSQL', function () {
  this.timeout(60_000);
  const server = usePostgres();

  it('answers a write retried with the same id from its first result, recorded in _write_results in the same transaction', async () => {
    const url = await server().createDatabase();
    const ledger = await openLedger({ file: '', databaseUrl: url });
    const pgClient = new pg.Client({ connectionString: url });
    await pgClient.connect();
    try {
      const entry = { id: 'e1', projectId: 'p', title: 'once', content: 'x', createdAt: T, tags: [], agentId: null };
      const insert = (call: { id: string; fresh?: boolean }): Promise<void> => writeContext.run({ ...call, n: 0, origin: 1 }, () => ledger.progress.insertEntry(entry));
      const id = randomUUID();
      await insert({ id, fresh: true });
      const changes = (await ledger.stats()).changes;
      // Sent again after a lost host (fresh cleared): answered, nothing written, no conflict.
      await insert({ id, fresh: false });
      assert.equal((await ledger.stats()).changes, changes);
      // Another call with the same content is a new write: refused as the duplicate it is.
      await assert.rejects(insert({ id: randomUUID() }), (err: unknown) => isLedgerError(err) && err.code === 'conflict');
      assert.equal((await ledger.progress.searchEntries({ projectId: 'p', limit: 10, offset: 0 } as never)).total, 1);
      const rows = (await pgClient.query<{ id: string }>('SELECT id FROM _write_results ORDER BY id')).rows.map((r) => r.id);
      assert.ok(rows.includes(`${id}:0`), `the first call's write is recorded: ${rows.join(', ')}`);
      // A write outside any call (a direct client) records nothing.
      await ledger.progress.insertEntry({ ...entry, id: 'e2', title: 'direct' });
      assert.equal((await pgClient.query('SELECT count(*)::int AS n FROM _write_results')).rows[0].n, rows.length);
    } finally {
      await pgClient.end();
      await ledger.close();
    }
  });
});
