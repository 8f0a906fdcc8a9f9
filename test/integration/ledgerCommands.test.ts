// Inside a real VS Code: the ledger commands run by a script (arguments instead of dialogs):
// Export Ledger, Import Ledger (and its refusal of a conflicting file, with nothing written),
// Archive or Delete Old Entries with an export first, Restore Archived Entries, Reveal Ledger Folder,
// Recover Set-Aside Ledger Writes.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { encodeRecord } from '../../src/core/storage/sqlite/journal';
import type { TailRecovery } from '../../src/core/storage/store';
import { CommandIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import { EXTENSION_ID } from './util';

describe('ledger commands in VS Code', function () {
  this.timeout(120_000);
  let api: AgentProgressApi;
  let tmp: string;

  before(async () => {
    api = await vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!.activate();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-ledger-itest-'));
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function titles(): Promise<string[]> {
    const progress = await api.deps.host.progress();
    return (await progress.searchLogs({ projectId: 'ledger-itest', limit: 100 })).entries.map((e) => e.title).sort();
  }

  it('imports a file, archives its old entries after exporting them, restores them, and exports the whole ledger', async () => {
    const old = (id: string, title: string) => ({
      id,
      projectId: 'ledger-itest',
      createdAt: '2021-06-01T00:00:00.000Z',
      title,
      tags: [],
      agentId: null,
      summary: 'Cached.',
      summarySource: 'openai',
      content: `${title}.`,
    });
    const file = path.join(tmp, 'old.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 'agent-progress-ledger',
        version: 1,
        exportedAt: '2021-07-01T00:00:00.000Z',
        data: { entries: [old('itestOld0001', 'Old one'), old('itestOld0002', 'Old two')] },
      }),
    );
    const imported = await vscode.commands.executeCommand<Record<string, number>>(CommandIds.importLedger, vscode.Uri.file(file));
    assert.equal(imported?.entries, 2);
    assert.deepEqual(await titles(), ['Old one', 'Old two']);

    // The same file again: refused whole, nothing written (the command reports and returns nothing).
    assert.equal(await vscode.commands.executeCommand(CommandIds.importLedger, file), undefined);
    assert.deepEqual(await titles(), ['Old one', 'Old two']);

    const saved = path.join(tmp, 'before-archive.json');
    const result = await vscode.commands.executeCommand<{ removed: number; exportFile: string }>(CommandIds.applyRetention, {
      days: 30,
      action: 'archive',
      exportFile: saved,
      confirmed: true,
    });
    assert.equal(result?.removed, 2);
    assert.equal(result?.exportFile, saved);
    assert.equal((JSON.parse(fs.readFileSync(saved, 'utf8')) as { counts: { entries: number } }).counts.entries, 2);
    assert.deepEqual(await titles(), []);

    assert.equal(await vscode.commands.executeCommand(CommandIds.restoreArchivedEntries), 2);
    assert.deepEqual(await titles(), ['Old one', 'Old two']);

    const exported = path.join(tmp, 'ledger.json');
    assert.equal(await vscode.commands.executeCommand(CommandIds.exportLedger, exported), exported);
    const doc = JSON.parse(fs.readFileSync(exported, 'utf8')) as { version: number; data: { entries: { id: string; summary: string | null }[] } };
    assert.equal(doc.version, 1);
    assert.deepEqual(
      doc.data.entries.filter((e) => e.id.startsWith('itestOld')).map((e) => e.summary),
      ['Cached.', 'Cached.'],
    );
  });

  it('refuses retention of zero days with a message and removes nothing', async () => {
    const before = await titles();
    assert.equal(await vscode.commands.executeCommand(CommandIds.applyRetention, { days: 0, action: 'delete', confirmed: true }), undefined);
    assert.deepEqual(await titles(), before);
  });

  it('names the folder that holds the ledger', async () => {
    const folder = await vscode.commands.executeCommand<string>(CommandIds.revealLedgerFolder);
    assert.equal(folder, path.dirname(api.ledgerPath));
  });

  it('recovers the intact writes of a set-aside journal tail into the ledger and keeps the file', async () => {
    assert.deepEqual((await vscode.commands.executeCommand<TailRecovery>(CommandIds.recoverLedger))?.files, []);
    const record = encodeRecord({
      seq: 1,
      time: Date.parse('2026-01-01T00:00:00Z'),
      ops: [['INSERT INTO projects (project_id, name, created_at) VALUES (?, ?, ?)', ['recovered-itest', 'recovered-itest', '2026-01-01T00:00:00.000Z']]],
      changes: 1,
      maintenance: false,
    });
    const tail = `${api.ledgerPath}.journal.tail-20260101T000000Z-99`;
    fs.writeFileSync(tail, Buffer.concat([Buffer.from('damaged bytes'), record]));
    const result = await vscode.commands.executeCommand<TailRecovery>(CommandIds.recoverLedger);
    assert.deepEqual(
      result?.files.map((f) => [f.file, f.records, f.applied, f.damagedBytes, f.keptAs]),
      [[tail, 1, 1, 13, `${tail}.recovered`]],
    );
    assert.ok((await (await api.deps.host.progress()).listProjects()).some((p) => p.projectId === 'recovered-itest'));
    assert.ok(fs.existsSync(`${tail}.recovered`));
  });
});
