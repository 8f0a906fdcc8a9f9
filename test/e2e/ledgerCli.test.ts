// The CLI's ledger commands as processes on dist/cli.js: export, import (all or nothing), and
// retention (dry run, then archive or delete after writing the entries out), restore-archived,
// recover-ledger (the writes after a damaged journal byte).

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/core/log';
import { Services } from '../../src/core/services';
import { HEADER_SIZE, parseRecordAt } from '../../src/core/storage/sqlite/journal';
import { cleanEnv, CLI } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function cli(db: string, args: string[]) {
  fs.mkdirSync(path.dirname(db), { recursive: true });
  const run = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db }), cwd: path.dirname(db), input: '' });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

/** A retention-scope document with two entries of 2020 in project "old-shop". */
function oldEntries(file: string): void {
  const entry = (id: string, title: string, createdAt: string) => ({
    id,
    projectId: 'old-shop',
    createdAt,
    title,
    tags: ['legacy'],
    agentId: 'codex',
    summary: null,
    summarySource: null,
    content: `${title}, long ago.`,
  });
  const data = {
    projects: [{ projectId: 'old-shop', name: 'old-shop', createdAt: '2020-01-01T00:00:00.000Z' }],
    entries: [entry('oldEntry0001', 'Ported the cart', '2020-01-02T00:00:00.000Z'), entry('oldEntry0002', 'Ported the checkout', '2020-02-02T00:00:00.000Z')],
  };
  fs.writeFileSync(file, JSON.stringify({ format: 'agent-progress-ledger', version: 1, exportedAt: '2020-03-01T00:00:00.000Z', scope: 'full', data }));
}

describe('the CLI ledger commands', function () {
  this.timeout(60_000);
  useTempDirs();

  it('exports a ledger and imports it into another, refusing a second import with nothing written', () => {
    const dir = tempDir();
    const a = path.join(dir, 'a', 'data.db');
    const b = path.join(dir, 'b', 'data.db');
    assert.equal(cli(a, ['log', '-p', 'shop', '--title', 'Added cart', '--content', 'Cart.', '--tag', 'cart']).status, 0);
    assert.equal(cli(a, ['create-project', 'queue-shop']).status, 0);
    assert.equal(cli(a, ['add-task', 'queue-shop', '-', 'Review the cart']).status, 0);
    const file = path.join(dir, 'ledger.json');
    const exported = cli(a, ['export', '--out', file, '--json']);
    assert.equal(exported.status, 0, exported.stderr);
    const out = JSON.parse(exported.stdout) as { file: string; counts: Record<string, number> };
    assert.equal(out.file, file);
    assert.equal(out.counts.entries, 1);
    assert.equal(out.counts.tasks, 1);

    const imported = cli(b, ['import', file]);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /^Imported 2 projects, 1 entries, 1 taskTypes, 1 tasks, \d+ queueAudit from /);
    assert.match(cli(b, ['search', '-p', 'shop', '--tag', 'cart']).stdout, /Added cart/);
    const again = cli(b, ['import', file]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /Import refused: entry \S+ already exists in this ledger .*Nothing was imported\./);
    assert.doesNotMatch(again.stderr, /\n\s+at /, 'no stack trace');

    const defaultExport = cli(b, ['export']);
    assert.match(defaultExport.stdout, new RegExp(`to ${path.join(dir, 'b', 'exports').replace(/[/\\]/g, '.')}.agent-progress-ledger-\\d{8}T\\d{6}Z\\.json`));
    const wrong = path.join(dir, 'v9.json');
    fs.writeFileSync(wrong, JSON.stringify({ format: 'agent-progress-ledger', version: 9, data: {} }));
    const refused = cli(b, ['import', wrong]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /v9\.json is a version 9 ledger export; this Agent Progress reads version 1\. Update Agent Progress/);
  });

  it('says what retention would do, archives after writing the entries out, and restores them', () => {
    const dir = tempDir();
    const db = path.join(dir, 'data.db');
    const old = path.join(dir, 'old.json');
    oldEntries(old);
    assert.equal(cli(db, ['import', old]).status, 0);
    assert.equal(cli(db, ['log', '-p', 'old-shop', '--title', 'New work', '--content', 'Today.']).status, 0);

    const dry = cli(db, ['retention', '--days', '30', '--archive']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /^2 entries older than 30 days would be archived \(written to a JSON file first\)\. Run again with --yes to do it\./);
    assert.match(cli(db, ['search', '-p', 'old-shop']).stdout, /3 of 3 entries/);

    const saved = path.join(dir, 'archived.json');
    const done = cli(db, ['retention', '--days', '30', '--archive', '--yes', '--export', saved, '--json']);
    assert.equal(done.status, 0, done.stderr);
    assert.deepEqual((({ removed, exportFile, action }) => ({ removed, exportFile, action }))(JSON.parse(done.stdout) as Record<string, unknown>), {
      removed: 2,
      exportFile: saved,
      action: 'archive',
    });
    assert.equal((JSON.parse(fs.readFileSync(saved, 'utf8')) as { counts: { entries: number } }).counts.entries, 2);
    assert.match(cli(db, ['search', '-p', 'old-shop']).stdout, /1 of 1 entry in old-shop/);
    assert.equal(cli(db, ['show', 'oldEntry0001']).status, 1, 'an archived entry is out of default reads');

    assert.match(cli(db, ['restore-archived']).stdout, /^Restored 2 archived entries\./);
    assert.match(cli(db, ['search', '-p', 'old-shop']).stdout, /3 of 3 entries/);

    const del = cli(db, ['retention', '--days', '30', '--delete', '--yes']);
    assert.match(del.stdout, /^Deleted 2 entries older than 30 days; they were written first to .*exports.agent-progress-before-delete-\d{8}T\d{6}Z\.json/);
    assert.match(cli(db, ['search', '-p', 'old-shop']).stdout, /1 of 1 entry/);

    for (const [args, message] of [
      [['retention', '--archive'], /Give --days N/],
      [['retention', '--days', 'ten', '--archive'], /--days must be a whole number of days, got "ten"/],
      [['retention', '--days', '3'], /Give either --archive \(recoverable\) or --delete/],
      [['retention', '--days', '0', '--delete'], /Retention days must be a whole number from 1 to 36500 \(got 0\)/],
    ] as const) {
      const r = cli(db, [...args]);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  });

  it('warns of a damaged journal byte that hides later entries, and recover-ledger brings them back', async () => {
    const db = path.join(tempDir(), 'ledger', 'data.db');
    // Written by a long-running writer that has not snapshotted yet (a server between snapshots):
    // the CLI leaves a snapshot as it exits, so its writes would not stay in the journal.
    const writer = new Services({
      config: { dbPath: db, openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
      logger: silentLogger,
      ledger: { checkpoint: false },
    });
    const progress = await writer.progress();
    for (const title of ['First change', 'Second change', 'Third change']) await progress.logProgress({ projectId: 'shop', title, content: `${title}, in detail.` });
    await writer.close();
    // One flipped byte inside the record that logged the second entry.
    const journal = `${db}.journal`;
    const bytes = fs.readFileSync(journal);
    let at = HEADER_SIZE;
    let damaged = -1;
    for (;;) {
      const step = parseRecordAt(bytes, at);
      if (step.kind !== 'record') break;
      if (damaged < 0 && step.record.ops.some(([, params]) => params.includes('Second change'))) damaged = at;
      at += step.size;
    }
    assert.ok(damaged > 0, 'found the second entry in the journal');
    bytes[damaged + 20] = bytes[damaged + 20]! ^ 0xff;
    fs.writeFileSync(journal, bytes);

    const hidden = cli(db, ['search', '-p', 'shop']);
    assert.equal(hidden.status, 0, hidden.stderr);
    assert.match(hidden.stdout, /First change/);
    assert.doesNotMatch(hidden.stdout, /Third change/);
    assert.ok(hidden.stderr.includes(`The ledger journal ${journal} is damaged at byte ${damaged} (record checksum does not match)`), hidden.stderr);
    assert.match(hidden.stderr, /Run "agent-progress recover-ledger"/);

    const recovered = cli(db, ['recover-ledger']);
    assert.equal(recovered.status, 0, recovered.stderr);
    assert.match(recovered.stdout, /^Recovered [1-9]\d* writes? of [1-9]\d* intact in \S+data\.db\.journal\.tail-\S+ \(\d+ damaged bytes skipped\); kept as \S+\.recovered\.$/m);
    const after = cli(db, ['search', '-p', 'shop']);
    assert.equal(after.stderr, '');
    assert.match(after.stdout, /First change/);
    assert.match(after.stdout, /Third change/);
    assert.doesNotMatch(after.stdout, /Second change/, 'the damaged write itself is lost');
    assert.match(cli(db, ['recover-ledger']).stdout, /^Nothing to recover: no damaged journal tail is set aside beside /);
  });
});
