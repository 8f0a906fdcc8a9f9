// Snapshots outside git: the .gitignore rules give the same files as git itself on the same tree,
// a 10,000-file tree is snapshotted and diffed correctly (its time is measured in bench/), the
// cache of an earlier manifest is used only when it is safe, and the manifests stay beside the
// ledger, never in its journal.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checksumSnapshot, diffManifests } from '../../../../src/core/workflow/checksumSnapshot';
import { isIgnored, parseIgnoreFile } from '../../../../src/core/workflow/ignore';
import { generateTree } from '../../../helpers/fileTree';
import { gitTestEnv, initRepo } from '../../../helpers/gitRepo';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { OUTCOME, openWorkflow, startOne, type WorkflowHarness } from '../../../helpers/workflow';

function write(root: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
}

describe('.gitignore rules outside git', () => {
  useTempDirs();

  it('select exactly the files git itself lists on the same tree', async () => {
    const root = tempDir();
    write(root, {
      '.gitignore': [
        '# a comment',
        '*.log',
        '!important.log',
        '/build',
        'dist/',
        'docs/**/*.tmp',
        '**/cache',
        'a?c.txt',
        '[abc]x.md',
        '\\#hash.txt',
        'trailing.txt   ',
        'sub/*.gen',
        'foo/**',
        '!foo/keep.txt',
        'deep/**/x',
      ].join('\n'),
      'pkg/.gitignore': '*.secret\n/local-only\n!*.log\n',
      'app.log': '',
      'important.log': '',
      'src/app.ts': '',
      'src/debug.log': '',
      'build/out.js': '',
      'src/build/kept.js': '',
      'dist/bundle.js': '',
      'src/dist': 'a file named dist is kept',
      'docs/a/b/c.tmp': '',
      'docs/c.tmp': '',
      'docs/readme.md': '',
      'other/x.tmp': '',
      'cache/1': '',
      'src/cache/2': '',
      'abc.txt': '',
      'axc.txt': '',
      'abbc.txt': '',
      'ax.md': '',
      'dx.md': '',
      '#hash.txt': '',
      'trailing.txt': '',
      'sub/a.gen': '',
      'sub/deeper/b.gen': '',
      'foo/bar.txt': '',
      'foo/keep.txt': '',
      'deep/x': '',
      'deep/a/b/x': '',
      'deep/a/y': '',
      'pkg/a.secret': '',
      'pkg/sub/b.secret': '',
      'pkg/local-only': '',
      'pkg/sub/local-only': '',
      'pkg/trace.log': '',
      'pkg/ok.ts': '',
    });
    const ours = [...(await checksumSnapshot(root, { alwaysExclude: ['.git'] })).manifest.files.keys()].sort();
    execFileSync('git', ['init', '-q'], { cwd: root, env: gitTestEnv() });
    const theirs = execFileSync('git', ['-c', 'core.excludesFile=/dev/null', 'ls-files', '--others', '--exclude-standard', '-z'], { cwd: root, env: gitTestEnv() })
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .sort();
    assert.deepEqual(ours, theirs);
    assert.ok(ours.includes('pkg/trace.log') && !ours.includes('app.log') && ours.includes('src/build/kept.js'));
  });

  it('never re-includes a file under an excluded folder, as git', () => {
    const layers = [{ base: '', rules: parseIgnoreFile('logs/\n!logs/keep.txt\n') }];
    assert.equal(isIgnored(layers, 'logs', true), true);
    assert.equal(isIgnored(layers, 'logs/keep.txt', false), false, 'the rule alone would re-include it; the walk never enters logs/');
  });
});

describe('checksum snapshots', function () {
  this.timeout(120_000);
  useTempDirs();
  let h: WorkflowHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('snapshot a tree of 10,000 files, skip what is ignored, and find every kind of change', async () => {
    const root = tempDir();
    const generated = generateTree(root, { files: 10_000, ignoredFiles: 2_000 });
    const first = await checksumSnapshot(root);
    assert.equal(first.manifest.files.size, 10_000 + 1, 'every file plus the .gitignore');
    assert.equal(first.hashed, 10_001);
    assert.ok(![...first.manifest.files.keys()].some((f) => f.startsWith('node_modules/') || f.startsWith('build/')));

    const [changed, removed, moved] = generated.files;
    fs.appendFileSync(path.join(root, changed!), 'one more line\n');
    fs.rmSync(path.join(root, removed!));
    fs.renameSync(path.join(root, moved!), path.join(root, 'moved', path.basename(moved!)));
    write(root, { 'brand/new.txt': 'hello', 'build/ignored-again.js': 'x' });
    const second = await checksumSnapshot(root, { cache: first.manifest });
    const changes = diffManifests(first.manifest, second.manifest);
    assert.deepEqual(
      changes.map((c) => `${c.status} ${c.from ? `${c.from} -> ` : ''}${c.path}`).sort(),
      [`added brand/new.txt`, `deleted ${removed}`, `modified ${changed}`, `renamed ${moved} -> moved/${path.basename(moved!)}`].sort(),
    );
  });

  it('reads again only files whose stat data changed since a cache old enough to trust', async () => {
    const root = tempDir();
    const { files } = generateTree(root, { files: 300, ignoredFiles: 0 });
    const past = new Date(Date.now() - 60_000);
    for (const f of [...files, '.gitignore']) fs.utimesSync(path.join(root, f), past, past);
    const first = await checksumSnapshot(root);
    const same = await checksumSnapshot(root, { cache: first.manifest });
    assert.equal(same.reused, 301);
    assert.equal(same.hashed, 0);

    // Same size and the old modification time put back: the inode's change time still tells.
    const victim = path.join(root, files[0]!);
    const original = fs.readFileSync(victim);
    fs.writeFileSync(victim, Buffer.from(original.map((b) => (b === 0x61 ? 0x62 : b === 0x62 ? 0x61 : b))));
    fs.utimesSync(victim, past, past);
    const third = await checksumSnapshot(root, { cache: same.manifest });
    assert.equal(third.hashed, 1);
    assert.deepEqual(diffManifests(same.manifest, third.manifest), [{ status: 'modified', path: files[0] }]);

    // A cache taken moments after a file was written is not trusted for it (coarse clocks).
    fs.writeFileSync(victim, 'fresh');
    const fresh = await checksumSnapshot(root, { cache: third.manifest });
    const again = await checksumSnapshot(root, { cache: fresh.manifest });
    assert.ok(again.hashed >= 1, 'the file written just before the cache is read again');
  });

  it('track a task in a folder outside git, with manifests beside the ledger and not in its journal', async () => {
    const dir = tempDir();
    const work = path.join(dir, 'plain-folder');
    write(work, { '.gitignore': 'tmp/\n', 'src/a.ts': 'a', 'src/b.ts': 'b', 'notes.md': 'n' });
    h = await openWorkflow(path.join(dir, 'ledger'), work);
    const wf = await h.service.startWorkflow({ name: 'No git here' });
    const started = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Edit', goal: 'Edit files', areas: ['src'] });
    assert.equal(started.snapshot_type, 'checksum');
    assert.equal(started.repository, work);
    const manifests = path.join(h.dbPath + '.snapshots');
    assert.ok(fs.existsSync(path.join(manifests, `${started.snapshot_id}.json.gz`)));
    assert.ok(!fs.readFileSync(h.dbPath + '.journal').includes(Buffer.from('src/b.ts')), 'the file list is not journaled');

    write(work, { 'src/a.ts': 'changed', 'src/c.ts': 'new', 'tmp/x': 'ignored' });
    fs.rmSync(path.join(work, 'notes.md'));
    const out = await h.service.completeTask({ task_id: started.task_id, status: 'success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed, { added: ['src/c.ts'], modified: ['src/a.ts'], deleted: ['notes.md'], renamed: [] });
    assert.deepEqual(out.verification.unexpected_files, ['notes.md']);
    assert.equal(out.verification.warnings[0], '⚠️ 1 file(s) modified outside declared scope (src)');
    // After completion only the per-folder cache is kept.
    assert.deepEqual(
      fs.readdirSync(manifests).filter((f) => !f.startsWith('cache-')),
      [],
    );
    const before = await h.service.contentAtStart(started.task_id, 'src/a.ts');
    assert.equal(before.kind, 'unavailable');
    assert.match(before.kind === 'unavailable' ? before.reason : '', /not a git repository/);
  });

  it('fall back to a checksum snapshot when git is not installed, and say so', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { 'a.txt': 'a' });
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const saved = process.env.PATH;
    process.env.PATH = path.join(dir, 'no-such-bin');
    try {
      const wf = await h.service.startWorkflow({ name: 'No git binary' });
      const started = await h.service.startTask({ workflow_id: wf.workflow_id, name: 't', goal: 'g' });
      assert.equal(started.snapshot_type, 'checksum');
      assert.deepEqual(started.warnings, ['git is not installed, so a checksum snapshot was taken instead of a git snapshot.']);
      fs.writeFileSync(path.join(repo.dir, 'a.txt'), 'b');
      const out = await h.service.completeTask({ task_id: started.task_id, status: 'success', outcome: OUTCOME });
      assert.deepEqual(out.files_changed.modified, ['a.txt']);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('track the task without a snapshot when the workspace folder does not exist, and say why', async () => {
    const dir = tempDir();
    h = await openWorkflow(path.join(dir, 'ledger'), path.join(dir, 'missing'));
    const { taskId } = await startOne(h.service);
    const task = await h.service.task(taskId);
    assert.equal(task.startSnapshot?.type, 'none');
    assert.match(task.startSnapshot?.note ?? '', /does not exist\. Start the server in the repository, or set AGENT_PROGRESS_WORKSPACE/);
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });
    assert.equal(out.files_known, false);
    assert.match(out.verification.warnings[0] ?? '', /^Files changed could not be computed: no snapshot was taken at start_task/);
  });

  it('refuse to walk a tree larger than the limit instead of hashing a home folder', async () => {
    const root = tempDir();
    generateTree(root, { files: 50, ignoredFiles: 0 });
    await assert.rejects(checksumSnapshot(root, { maxFiles: 20 }), /holds more than 20 files that no \.gitignore excludes/);
  });
});
