// What the ledger host holds in memory beside the ledger itself: a snapshot it writes exports a
// copy of the whole ledger (sql.js), which V8 kept until allocation pressure or 2 s without a
// call (at 100k entries, 412 MB instead of 244 MB while busy). The host collects it at once.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { openHostLedger } from '../../../../src/core/host/client';
import { SqliteEngine } from '../../../../src/core/storage/sqlite/engine';
import { SCHEMAS } from '../../../../src/core/storage/sqlite/schemas';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { waitFor } from '../../../helpers/wait';

const T = '2026-01-01T00:00:00.000Z';

describe('ledger host memory', function () {
  this.timeout(120_000);
  useTempDirs();

  it("gives back a snapshot's exported copy of the ledger at once, calls in flight or not", async () => {
    const file = path.join(tempDir(), 'l.db');
    // A 24 MB ledger, written directly (rows no index reads).
    const engine = await SqliteEngine.open({ file, schemas: SCHEMAS, checkpoint: false });
    for (let i = 0; i < 24; i++) {
      await engine.write((tx) => {
        tx.run('INSERT INTO _meta (key, value) VALUES (?, ?)', [`big${i}`, `${i}`.padEnd(1 << 20, 'x')]);
      });
    }
    await engine.checkpoint();
    await engine.close();
    const ledger = await openHostLedger({ file, idleMs: 60_000 });
    try {
      await ledger.progress.insertEntry({ id: 'e1', projectId: 'p', title: 'one more', content: 'x', createdAt: T, tags: [], agentId: null });
      // Calls follow one another (no 2 s without a call, which the host's idle collection waits
      // for): a snapshot, then the status, asked every 50 ms until V8's sweeper (a background
      // thread, late on a busy machine) has given the copy back.
      await ledger.compact();
      let last = await ledger.host.status();
      assert.ok(last.ledgerBytes >= 24 << 20, `ledger ${last.ledgerBytes} bytes`);
      assert.ok(last.arrayBufferBytes !== undefined && last.heapUsedBytes !== undefined, JSON.stringify(last));
      // The ledger once (sql.js's file, grown in steps of an eighth), not again as the exported copy.
      const once = (s: typeof last): boolean => s.arrayBufferBytes! < 1.5 * s.ledgerBytes;
      await waitFor(async () => once((last = await ledger.host.status())), 'the exported copy given back', 10_000, 50).catch(() => {
        assert.fail(`array buffers ${(last.arrayBufferBytes! / 1048576).toFixed(0)} MB for a ${(last.ledgerBytes / 1048576).toFixed(0)} MB ledger`);
      });
    } finally {
      await ledger.host.stop();
      await ledger.close();
    }
  });
});
