// Change notices from the ledger host: a watching client hears of a change at once, and of the
// changes that follow within its window once, merged; the last change is never left untold.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openHostLedger } from '../../../../src/core/host/client';
import { hostPaths } from '../../../../src/core/host/paths';
import { runHost } from '../../../../src/core/host/server';
import { folderIdentity } from '../../../../src/core/storage/files';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { waitFor } from '../../../helpers/wait';

const silent = { debug() {}, info() {}, warn() {}, error() {}, addSecret() {}, once() {} };
const T = '2026-01-01T00:00:00.000Z';

describe('ledger host change notices', function () {
  this.timeout(60_000);
  useTempDirs();

  it('tells a watching client of a burst of writes at once and once more when the burst is over, not once per write', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const paths = hostPaths(file);
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    let retire: (() => void) | undefined;
    const WINDOW = 1_000;
    const done = runHost({ file, folder: folderIdentity(dir) ?? 'none', idleMs: 60_000, logger: silent, changeWindowMs: WINDOW, onSignal: (r) => (retire = r) });
    await waitFor(() => fs.existsSync(paths.socket) && fs.existsSync(paths.token) && retire !== undefined, 'the host in this process', 10_000);
    const watcher = await openHostLedger({ file, start: false });
    const writer = await openHostLedger({ file, start: false });
    try {
      const heard: Array<{ at: number; foreign: boolean }> = [];
      watcher.onDidChange((c) => heard.push({ at: Date.now(), foreign: c.foreign }));
      await watcher.stats(); // the watch request has reached the host
      const started = Date.now();
      for (let i = 0; i < 10; i++) await writer.progress.insertEntry({ id: `e${i}`, projectId: 'p', title: `entry ${i}`, content: 'x', createdAt: T, tags: [], agentId: null });
      const lastWrite = Date.now();
      // The burst's last change is told when the window after the first notice closes.
      await waitFor(() => heard.some((h) => h.at >= lastWrite), 'a notice after the last write', 10_000);
      await new Promise((r) => setTimeout(r, WINDOW + 200));
      const windows = Math.ceil((lastWrite - started) / WINDOW);
      assert.ok(heard.length >= 2, `${heard.length} notices`);
      assert.ok(heard.length <= 2 + windows, `${heard.length} notices for ten writes over ${lastWrite - started} ms (at most ${2 + windows})`);
      assert.ok(
        heard.every((h) => h.foreign),
        'every notice says another client wrote',
      );
    } finally {
      await watcher.close();
      await writer.close();
      retire?.();
      await done;
    }
  });
});
