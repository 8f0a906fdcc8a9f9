// What the ledger host holds in memory beside the ledger itself: a snapshot it writes exports a
// copy of the whole ledger (sql.js), which V8 kept until allocation pressure or 2 s without a
// call (at 100k entries, 412 MB instead of 244 MB while busy). The host collects it at once.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { openHostLedger } from '../../../../src/core/host/client';
import { SqliteEngine } from '../../../../src/core/storage/sqlite/engine';
import { SCHEMAS } from '../../../../src/core/storage/sqlite/schemas';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

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
      // Calls follow one another (no idle time for the host's idle collection): a snapshot, then the status.
      await ledger.compact();
      const status = await ledger.host.status();
      assert.ok(status.ledgerBytes >= 24 << 20, `ledger ${status.ledgerBytes} bytes`);
      assert.ok(status.arrayBufferBytes !== undefined && status.heapUsedBytes !== undefined, JSON.stringify(status));
      // The ledger once (sql.js's file, grown in steps of an eighth), not again as the exported copy.
      assert.ok(
        status.arrayBufferBytes < 1.5 * status.ledgerBytes,
        `array buffers ${(status.arrayBufferBytes / 1048576).toFixed(0)} MB for a ${(status.ledgerBytes / 1048576).toFixed(0)} MB ledger`,
      );
    } finally {
      await ledger.host.stop();
      await ledger.close();
    }
  });
});
