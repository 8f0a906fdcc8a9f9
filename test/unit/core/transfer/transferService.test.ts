// Export, import and retention on real ledgers: a ledger with every toolset's data goes out as a
// JSON document and comes back identical in an empty one; a wrong version, a malformed record or
// a conflicting id is refused with nothing imported; archive keeps entries recoverable (out of
// search, back with restore), delete removes them, and both write the removed entries first.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../../../src/core/log';
import { Services } from '../../../../src/core/services';
import type { LedgerDocument } from '../../../../src/core/transfer/document';
import { TransferService } from '../../../../src/core/transfer/transferService';
import { initRepo } from '../../../helpers/gitRepo';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

const OPERATOR = { kind: 'operator', name: 'test' } as const;

function open(dir: string, workspace?: string, clock?: () => Date): Services {
  return new Services({
    ...(clock ? { clock } : {}),
    config: { dbPath: path.join(dir, 'data.db'), openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    logger: silentLogger,
    ...(workspace ? { workspace } : {}),
  });
}

/** A TransferService whose clock is `now`, over the ledger of `services`. */
async function transferAt(services: Services, now: Date): Promise<TransferService> {
  const ledger = await services.ledger();
  return new TransferService({ store: ledger.transfer, ledgerLocation: ledger.location, logger: silentLogger, clock: () => now });
}

/** Every toolset's data: entries (one summarised), a queue with a finished task, a workflow with a decision and a completed task. */
async function fill(services: Services): Promise<void> {
  const progress = await services.progress();
  await progress.logProgress({ projectId: 'shop', title: 'Added JWT auth', content: 'Tokens in **src/auth**.', tags: ['auth', 'security'], agentId: 'copilot' });
  const second = await progress.logProgress({ projectId: 'shop', title: 'Fixed checkout', content: 'Awaited the webhook.', tags: [] });
  const ledger = await services.ledger();
  await ledger.progress.saveSummary('shop', second.id, 'Checkout no longer races.', 'openai');
  await progress.logProgress({ projectId: 'docs', title: 'Wrote the guide', content: 'Getting started.' });

  const queue = await services.queue();
  await queue.createProject({ name: 'shop-queue', description: 'The shop queue' }, OPERATOR);
  await queue.createTaskType({ projectId: 'shop-queue', name: 'review', template: 'Review {{file}}', variables: ['file'] }, OPERATOR);
  await queue.addTask({ projectId: 'shop-queue', typeId: (await queue.listTaskTypes({ projectId: 'shop-queue' }))[0]!.id, variables: { file: 'a.ts' } }, OPERATOR);
  await queue.addTask({ projectId: 'shop-queue', instructions: 'Check the totals' }, OPERATOR);

  const workflow = await services.workflow();
  const wf = await workflow.startWorkflow({ name: 'JWT sessions', description: 'Replace cookies', plan: [{ step: '1', goal: 'Tokens' }] });
  const task = await workflow.startTask({ workflow_id: wf.workflow_id, name: 'Sign tokens', goal: 'Sign and verify', areas: ['src'] });
  await workflow.logDecision({
    task_id: task.task_id,
    category: 'library_choice',
    question: 'Which library?',
    options_considered: ['jose', 'jsonwebtoken'],
    chosen: 'jose',
    reasoning: 'Standards.',
    trade_offs: 'None.',
  });
  await workflow.completeTask({ task_id: task.task_id, status: 'success', outcome: { summary: 'Signed.', achievements: ['sign'], limitations: [] } });

  const review = await services.review();
  const run = await review.startRun({ startedBy: 'test' });
  const thread = await review.openThread(run.id, 'src/auth/jwt.ts', 3, 'Why HS256?', 'me');
  await review.reply(thread.id, 'Key rotation is simpler.', 'copilot');
}

const withoutTime = (doc: LedgerDocument): Omit<LedgerDocument, 'exportedAt'> => {
  const { exportedAt: _ignored, ...rest } = doc;
  return rest;
};

describe('ledger export, import and retention', function () {
  this.timeout(60_000);
  useTempDirs();
  const opened: Services[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });
  const services = (dir: string, workspace?: string, clock?: () => Date): Services => {
    const s = open(dir, workspace, clock);
    opened.push(s);
    return s;
  };

  it('exports every toolset and imports it into an empty ledger unchanged (round trip)', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'shop'), { 'README.md': 'shop', '.agent-progress/reviews/default.yaml': 'agents:\n  - security\n  - tests\n' });
    const source = services(path.join(dir, 'a'), repo.dir);
    await fill(source);
    const file = path.join(dir, 'export.json');
    const { document } = await (await source.transfer()).exportToFile(file);
    assert.equal(document.version, 1);
    assert.equal(document.counts.entries, 3);
    assert.ok(document.counts.tasks === 2 && document.counts.taskTypes === 2 && document.counts.queueAudit > 0, JSON.stringify(document.counts));
    assert.ok(
      document.counts.workflows === 1 && document.counts.workflowTasks === 1 && document.counts.workflowEvents >= 3 && document.counts.workflowSnapshots >= 1,
      JSON.stringify(document.counts),
    );
    assert.ok(
      document.counts.reviewRuns === 1 && document.counts.reviewAgents === 2 && document.counts.reviewThreads === 1 && document.counts.reviewComments === 2,
      JSON.stringify(document.counts),
    );
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
    const entry = document.data.entries.find((e) => e.title === 'Fixed checkout')!;
    assert.equal(entry.summary, 'Checkout no longer races.');
    assert.deepEqual(document.data.entries.find((e) => e.title === 'Added JWT auth')!.tags, ['auth', 'security']);

    const target = services(path.join(dir, 'b'), repo.dir);
    const { counts } = await (await target.transfer()).importFile(file);
    assert.equal(counts.imported.entries, 3);
    assert.equal(counts.imported.projects, 3);
    const again = await (await target.transfer()).exportDocument();
    assert.deepEqual(withoutTime(again), withoutTime(document));
    // Imported entries are searchable and the queue hands out the imported tasks in order.
    const found = await (await target.progress()).searchLogs({ projectId: 'shop', text: 'webhook' });
    assert.deepEqual(
      found.entries.map((e) => e.title),
      ['Fixed checkout'],
    );
    const tasks = await (await target.queue()).listTasks({ projectId: 'shop-queue' });
    assert.deepEqual(
      tasks.tasks.map((t) => t.status),
      ['queued', 'queued'],
    );
  });

  it('refuses a conflicting id and imports nothing at all', async () => {
    const dir = tempDir();
    const source = services(path.join(dir, 'a'));
    const progress = await source.progress();
    await progress.logProgress({ projectId: 'shop', title: 'One', content: 'x' });
    const document = await (await source.transfer()).exportDocument();
    const target = services(path.join(dir, 'b'));
    await (await target.progress()).logProgress({ projectId: 'other', title: 'Mine', content: 'y' });
    // The file adds a new entry before the conflicting one: neither may land.
    const fresh = { ...document.data.entries[0]!, id: 'freshEntry01', title: 'New' };
    const text = JSON.stringify({ ...document, data: { ...document.data, entries: [fresh, document.data.entries[0]!, document.data.entries[0]!] } });
    await (await target.transfer()).importText(text, 'dup.json').then(
      () => assert.fail('a duplicate id was imported'),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'conflict');
        assert.match(err.message, /^Import refused: entry \S+ already exists in this ledger \(or twice in the file\)\. Nothing was imported\./);
      },
    );
    const after = await (await target.transfer()).exportDocument();
    assert.deepEqual(
      after.data.entries.map((e) => e.title),
      ['Mine'],
    );
    assert.deepEqual(
      after.data.projects.map((p) => p.projectId),
      ['other'],
    );
    // The same file into the ledger it came from: every entry conflicts.
    await assert.rejects((await source.transfer()).importText(JSON.stringify(document)), /already exists in this ledger/);
  });

  it('refuses a wrong version, another format, bad JSON and a malformed record with a clear message', async () => {
    const dir = tempDir();
    const s = services(path.join(dir, 'a'));
    const t = await s.transfer();
    const doc = await t.exportDocument();
    await assert.rejects(
      t.importText(JSON.stringify({ ...doc, version: 2 }), 'new.json'),
      /new\.json is a version 2 ledger export; this Agent Progress reads version 1\. Update Agent Progress to import it\. Nothing was imported\./,
    );
    await assert.rejects(t.importText(JSON.stringify({ hello: 1 }), 'x.json'), /x\.json is not an Agent Progress ledger export/);
    await assert.rejects(t.importText('{"format":', 'cut.json'), /cut\.json is not JSON/);
    const bad = { ...doc, data: { ...doc.data, entries: [{ id: 'a', projectId: 'p', createdAt: 'now', tags: [], content: 'c' }] } };
    await assert.rejects(t.importText(JSON.stringify(bad), 'bad.json'), /bad\.json has an invalid record at data\.entries\[0\]\.title/);
    const orphan = {
      ...doc,
      data: {
        ...doc.data,
        tasks: [{ taskId: 't1', projectId: 'nope', typeId: 'nope', instructions: 'x', status: 'queued', retryCount: 0, maxRetries: 3, leaseMinutes: 10, createdAt: 'now' }],
      },
    };
    await assert.rejects(t.importText(JSON.stringify(orphan), 'orphan.json'), /Import refused: the file's records do not fit together .*Nothing was imported\./);
    assert.equal((await t.exportDocument()).counts.tasks, 0);
  });

  it('archives entries older than N days after exporting them, keeps them out of search, and restores them', async () => {
    const dir = tempDir();
    // Entries dated a second apart by the ledger's clock: two logged in the same millisecond would
    // leave no cut between them.
    let tick = Date.now();
    const s = services(path.join(dir, 'a'), undefined, () => new Date((tick += 1000)));
    const progress = await s.progress();
    await progress.logProgress({ projectId: 'shop', title: 'Old work on tokens', content: 'tokens' });
    await progress.logProgress({ projectId: 'shop', title: 'Newer tokens', content: 'tokens again' });
    const [newest] = (await progress.searchLogs({ projectId: 'shop' })).entries;
    // Forty days from now, both are older than 30 days; a cut just before the newest keeps it.
    const later = new Date(Date.now() + 40 * 86_400_000);
    const t = await transferAt(s, later);
    await assert.rejects(t.planRetention({ days: 0, action: 'archive' }), /Retention days must be a whole number from 1 to 36500 \(got 0\)/);
    await assert.rejects(t.planRetention({ days: 30, action: 'shred' }), /must be "archive" \(recoverable\) or "delete"/);
    const plan = await t.planRetention({ days: 30, action: 'archive' });
    assert.equal(plan.count, 2);
    const result = await t.applyRetention({ ...plan, before: newest!.createdAt });
    assert.equal(result.removed, 1);
    assert.ok(result.exportFile && result.exportFile.startsWith(path.join(dir, 'a', 'exports')), result.exportFile);
    const exported = JSON.parse(fs.readFileSync(result.exportFile, 'utf8')) as LedgerDocument;
    assert.equal(exported.scope, 'retention');
    assert.deepEqual(
      exported.data.entries.map((e) => e.title),
      ['Old work on tokens'],
    );
    assert.deepEqual(
      (await progress.searchLogs({ projectId: 'shop', text: 'tokens' })).entries.map((e) => e.title),
      ['Newer tokens'],
    );
    assert.equal((await (await s.ledger()).progress.listProjects()).find((p) => p.projectId === 'shop')!.entryCount, 1);
    assert.equal(await t.countArchived(), 1);
    assert.equal((await t.exportDocument()).counts.archivedEntries, 1, 'a full export carries the archive');
    assert.equal(await t.restoreArchived(), 1);
    assert.deepEqual((await progress.searchLogs({ projectId: 'shop', text: 'tokens' })).entries.map((e) => e.title).sort(), ['Newer tokens', 'Old work on tokens']);
    assert.equal(await t.countArchived(), 0);
  });

  it('deletes entries for good after writing them to the chosen file, which imports them back', async () => {
    const dir = tempDir();
    const s = services(path.join(dir, 'a'));
    const progress = await s.progress();
    await progress.logProgress({ projectId: 'shop', title: 'Old', content: 'old', tags: ['x'] });
    await progress.logProgress({ projectId: 'blog', title: 'Other project', content: 'kept' });
    const t = await transferAt(s, new Date(Date.now() + 10 * 86_400_000));
    const plan = await t.planRetention({ days: 5, action: 'delete', projectId: 'shop' });
    assert.equal(plan.count, 1);
    const file = path.join(dir, 'before-delete.json');
    const result = await t.applyRetention(plan, { exportFile: file });
    assert.equal(result.removed, 1);
    assert.equal(result.exportFile, file);
    assert.deepEqual(
      (await progress.searchLogs({ projectId: 'shop' })).entries.map((e) => e.title),
      [],
    );
    assert.equal(await t.countArchived(), 0);
    await t.importFile(file);
    assert.deepEqual(
      (await progress.searchLogs({ projectId: 'shop', tags: ['x'] })).entries.map((e) => e.title),
      ['Old'],
    );
    // Nothing older: no file, nothing removed.
    const none = await t.applyRetention(await t.planRetention({ days: 30, action: 'delete' }));
    assert.deepEqual({ count: none.count, removed: none.removed, exportFile: none.exportFile }, { count: 0, removed: 0, exportFile: undefined });
  });

  it('removes nothing when the export cannot be written', async () => {
    const dir = tempDir();
    const s = services(path.join(dir, 'a'));
    await (await s.progress()).logProgress({ projectId: 'shop', title: 'Old', content: 'old' });
    fs.writeFileSync(path.join(dir, 'blocker'), 'a file, not a folder');
    const t = await transferAt(s, new Date(Date.now() + 10 * 86_400_000));
    const plan = await t.planRetention({ days: 5, action: 'delete' });
    await assert.rejects(t.applyRetention(plan, { exportFile: path.join(dir, 'blocker', 'x.json') }), /Could not write the export .*nothing was deleted/);
    assert.equal((await t.planRetention({ days: 5, action: 'delete' })).count, 1);
  });
});
