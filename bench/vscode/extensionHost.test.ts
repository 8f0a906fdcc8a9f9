// Runs inside a real VS Code for bench/extension.mjs (not part of the test suite): the extension's
// activation time and the extension host's memory before and after it opens a large ledger and
// fills the Progress Log view from it. Writes its figures as JSON to $BENCH_OUT.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AgentProgressApi } from '../../src/extension/extension';
import { EXTENSION_ID } from '../../test/integration/util';

const MB = 1024 * 1024;

function memory(): { rss: number; heapUsed: number; external: number; arrayBuffers: number } {
  const m = process.memoryUsage();
  return { rss: m.rss / MB, heapUsed: m.heapUsed / MB, external: m.external / MB, arrayBuffers: m.arrayBuffers / MB };
}

describe('extension host figures', () => {
  it('activates, opens the ledger, fills the Progress Log, and reports', async () => {
    const out = process.env.BENCH_OUT;
    assert.ok(out, 'BENCH_OUT is not set (run through bench/extension.mjs)');
    const ext = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    const before = memory();
    const api = await ext.activate();
    const activated = memory();

    const t0 = performance.now();
    await api.deps.host.progress();
    const openMs = performance.now() - t0;
    // Through the ledger host, or opened directly (the host could not be started or reached).
    const hostLine = await api.deps.host.hostLine();

    const t1 = performance.now();
    const projects = await api.deps.progressLog.getChildren();
    assert.ok(projects.length > 0, `the Progress Log shows no project from ${api.ledgerPath}`);
    const entries = await api.deps.progressLog.getChildren(projects[0]);
    const treeMs = performance.now() - t1;
    assert.ok(entries.length > 0, 'the first project shows no entries');
    global.gc?.();
    const opened = memory();

    const ledger = await api.deps.host.ledger();
    const stats = await ledger.stats();
    fs.writeFileSync(
      out,
      JSON.stringify({
        activationMs: api.activationMs,
        openMs,
        hostLine,
        treeMs,
        treeRows: entries.length,
        ledgerPath: api.ledgerPath,
        ledgerBytes: stats.snapshotBytes + stats.journalBytes,
        memory: { beforeActivation: before, activated, ledgerOpen: opened },
      }),
    );
  });
});
