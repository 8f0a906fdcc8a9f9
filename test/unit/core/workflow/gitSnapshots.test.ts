// Files changed by a task in real git repositories (the git binary in temporary folders): commits
// during the task, uncommitted edits, untracked files, renames, deletions, binary files, dirt that
// was there before and must not count, and the odd repositories (no commit, worktree, detached
// HEAD, a workspace in a subfolder). The user's index, branches and working tree stay untouched.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initRepo, repoAt } from '../../../helpers/gitRepo';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { OUTCOME, openWorkflow, startOne, type WorkflowHarness } from '../../../helpers/workflow';

describe('workflow snapshots in git', function () {
  this.timeout(60_000);
  useTempDirs();
  let h: WorkflowHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('counts commits made during the task, uncommitted edits and new untracked files, and nothing that was dirty before', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { 'a.txt': 'a\n', 'b.txt': 'b\n', 'dirty.txt': 'clean\n', 'keep.txt': 'k\n' });
    // Dirt before the task: an uncommitted edit, a staged new file, an untracked file.
    repo.write('dirty.txt', 'edited before the task\n');
    repo.write('staged-before.txt', 'staged\n');
    repo.git('add', 'staged-before.txt');
    repo.write('untracked-before.txt', 'u\n');
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const statusBefore = repo.git('status', '--porcelain');
    const indexBefore = fs.readFileSync(path.join(repo.dir, '.git', 'index'));
    const { taskId } = await startOne(h.service);
    // start_task worked on a copy of the index: the user's staging area is as they left it.
    assert.equal(repo.git('status', '--porcelain'), statusBefore);
    assert.deepEqual(fs.readFileSync(path.join(repo.dir, '.git', 'index')), indexBefore);

    repo.write('a.txt', 'a, changed and committed\n');
    repo.git('commit', '-q', '-am', 'during the task'); // also commits the earlier dirt, which must still not count
    repo.write('b.txt', 'b, changed and left uncommitted\n');
    repo.write('src/new.ts', 'export const x = 1;\n');
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });

    assert.deepEqual(out.files_changed, { added: ['src/new.ts'], modified: ['a.txt', 'b.txt'], deleted: [], renamed: [] });
    assert.equal(out.files_known, true);
    assert.deepEqual(
      out.commits.map((c) => c.subject),
      ['during the task'],
    );
  });

  it('reports renames, deletions and binary files, with paths from the repository root', async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of a file that moves`).join('\n');
    const binary = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7) % 256));
    const repo = initRepo(path.join(dir, 'repo'), { 'lib/old-name.ts': lines, 'lib/gone.ts': 'bye\n', 'assets/logo.bin': binary, 'moved-and-edited.md': lines });
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const { taskId } = await startOne(h.service);

    repo.move('lib/old-name.ts', 'lib/new-name.ts');
    repo.git('rm', '-q', 'lib/gone.ts');
    const edited = Buffer.from(binary);
    edited[10] = 0;
    repo.write('assets/logo.bin', edited);
    repo.write('assets/new.bin', Buffer.from([0, 0, 1, 2, 3, 255, 0]));
    repo.move('moved-and-edited.md', 'docs/moved.md');
    repo.write('docs/moved.md', `${lines}\none more line`);
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });

    assert.deepEqual(out.files_changed.added, ['assets/new.bin']);
    assert.deepEqual(out.files_changed.modified, ['assets/logo.bin']);
    assert.deepEqual(out.files_changed.deleted, ['lib/gone.ts']);
    assert.deepEqual(
      out.files_changed.renamed.map((r) => [r.from, r.to, r.similarity === 100]),
      [
        ['moved-and-edited.md', 'docs/moved.md', false],
        ['lib/old-name.ts', 'lib/new-name.ts', true],
      ],
    );
    const before = await h.service.contentAtStart(taskId, 'assets/logo.bin');
    assert.equal(before.kind, 'content');
    assert.deepEqual(before.kind === 'content' ? before.bytes : undefined, binary);
  });

  it('leaves out what .gitignore excludes and counts a deleted untracked file that the task created and removed as nothing', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { '.gitignore': 'build/\n*.log\n', 'src/a.ts': 'a' });
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const { taskId } = await startOne(h.service);
    repo.write('build/out.js', 'compiled');
    repo.write('debug.log', 'noise');
    repo.write('scratch.txt', 'temporary');
    repo.remove('scratch.txt');
    repo.write('src/a.ts', 'b');
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed, { added: [], modified: ['src/a.ts'], deleted: [], renamed: [] });
  });

  it('works in a repository without any commit', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'));
    repo.write('existing.txt', 'before');
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const wf = await h.service.startWorkflow({ name: 'Fresh repository' });
    const started = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'First files', goal: 'Create the project' });
    assert.equal(started.snapshot_type, 'git');
    assert.equal(started.head, null);
    repo.write('README.md', '# hello');
    repo.write('existing.txt', 'after');
    const out = await h.service.completeTask({ task_id: started.task_id, status: 'success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed, { added: ['README.md'], modified: ['existing.txt'], deleted: [], renamed: [] });
    assert.deepEqual(out.commits, []);
  });

  it('counts the first commit of a repository made during the task', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'));
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const { taskId } = await startOne(h.service);
    repo.write('main.go', 'package main');
    repo.commitAll('first commit');
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed.added, ['main.go']);
    assert.deepEqual(
      out.commits.map((c) => c.subject),
      ['first commit'],
    );
  });

  it('works in a linked worktree, with its own index and changes', async () => {
    const dir = tempDir();
    const main = initRepo(path.join(dir, 'main'), { 'app.ts': 'v1', 'shared.ts': 's' });
    main.git('worktree', 'add', '-q', '-b', 'feature', path.join(dir, 'feature'));
    const wt = repoAt(path.join(dir, 'feature'));
    main.write('app.ts', 'dirty in the main worktree'); // must not count in the other worktree
    h = await openWorkflow(path.join(dir, 'ledger'), wt.dir);
    const { taskId } = await startOne(h.service);
    const task = await h.service.task(taskId);
    assert.equal(task.startSnapshot?.root, fs.realpathSync(wt.dir));
    wt.write('feature.ts', 'new');
    wt.write('shared.ts', 'changed in the worktree');
    wt.commitAll('feature work');
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed, { added: ['feature.ts'], modified: ['shared.ts'], deleted: [], renamed: [] });
    // The snapshot refs live in the common repository, where every worktree sees them.
    assert.match(main.git('for-each-ref', 'refs/agent-progress/'), new RegExp(`refs/agent-progress/snapshots/${task.startSnapshot!.id}`));
  });

  it('works on a detached HEAD', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { 'x.txt': '1' });
    repo.write('x.txt', '2');
    repo.commitAll('second');
    repo.git('checkout', '-q', '--detach', 'HEAD~1');
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const { taskId } = await startOne(h.service);
    const start = (await h.service.task(taskId)).startSnapshot!;
    assert.equal(start.branch, null);
    assert.equal(start.head, repo.git('rev-parse', 'HEAD').trim());
    repo.write('y.txt', 'new');
    repo.commitAll('on a detached head');
    const out = await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed.added, ['y.txt']);
    assert.equal(out.commits.length, 1);
  });

  it('snapshots the whole repository when the workspace is a subfolder, with root-relative paths and areas read from either', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'mono'), { 'packages/web/src/app.ts': 'a', 'packages/api/index.ts': 'b', 'README.md': 'r' });
    h = await openWorkflow(path.join(dir, 'ledger'), path.join(repo.dir, 'packages', 'web'));
    const wf = await h.service.startWorkflow({ name: 'Web work' });
    const started = await h.service.startTask({
      workflow_id: wf.workflow_id,
      name: 'Edit the app',
      goal: 'Change the web app',
      areas: ['src/app.ts', 'packages/web/package.json'],
    });
    assert.equal(started.repository, fs.realpathSync(repo.dir));
    repo.write('packages/web/src/app.ts', 'changed');
    repo.write('packages/web/package.json', '{}');
    repo.write('packages/api/index.ts', 'changed too');
    const out = await h.service.completeTask({ task_id: started.task_id, status: 'partial_success', outcome: OUTCOME });
    assert.deepEqual(out.files_changed.modified, ['packages/api/index.ts', 'packages/web/src/app.ts']);
    assert.deepEqual(out.files_changed.added, ['packages/web/package.json']);
    assert.deepEqual(out.verification.unexpected_files, ['packages/api/index.ts']);
    assert.equal(out.verification.scope_match, false);
  });

  it('keeps the snapshot through garbage collection, and shows a file as it was at the start', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { 'f.txt': 'committed\n' });
    repo.write('f.txt', 'uncommitted before the task\n');
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const { taskId } = await startOne(h.service);
    repo.write('f.txt', 'during the task\n');
    repo.write('created.txt', 'new\n');
    await h.service.completeTask({ task_id: taskId, status: 'success', outcome: OUTCOME });
    repo.git('gc', '-q', '--prune=now');
    const before = await h.service.contentAtStart(taskId, 'f.txt');
    assert.equal(before.kind === 'content' ? before.bytes.toString('utf8') : before.kind, 'uncommitted before the task\n');
    assert.equal((await h.service.contentAtStart(taskId, 'created.txt')).kind, 'absent');
    // The refs hold trees: git log --all and branch listings do not show them.
    assert.doesNotMatch(repo.git('log', '--all', '--format=%s'), /agent-progress/);
    assert.equal(repo.git('branch', '--list').trim(), '* main');
  });

  it('says why files changed are unknown when the start snapshot was removed from the repository', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { 'f.txt': '1' });
    repo.write('only-in-the-start-snapshot.txt', 'content no commit holds');
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    const { taskId } = await startOne(h.service);
    const start = (await h.service.task(taskId)).startSnapshot!;
    repo.git('update-ref', '-d', start.ref!);
    repo.git('reflog', 'expire', '--expire=now', '--all');
    repo.git('gc', '-q', '--prune=now');
    repo.write('f.txt', '2');
    const out = await h.service.completeTask({ task_id: taskId, status: 'failed', outcome: OUTCOME });
    assert.equal(out.files_known, false);
    assert.deepEqual(out.files_changed, { added: [], modified: [], deleted: [], renamed: [] });
    assert.match(out.verification.warnings[0] ?? '', /^Files changed could not be computed: the start snapshot's tree [0-9a-f]{40} is gone from the repository/);
    assert.equal((await h.service.task(taskId)).filesKnown, false);
  });
});
