// Hostile globs against the built server (dist/server.js over stdio): an area and a .gitignore
// pattern that made the old regular expressions backtrack for minutes on a long file name. The
// server must answer them, and answer another call sent meanwhile. Time is not measured: a stall
// shows as this suite's timeout.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initRepo } from '../helpers/gitRepo';
import { call, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const HOSTILE = '*a*a*a*a*a*a*a*b';
const LONG_NAME = 'a'.repeat(90);

describe('hostile globs (dist/server.js over stdio)', function () {
  this.timeout(60_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it('checks a pathological area against a long file name in a git repository, and keeps answering', async () => {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'repo'), { 'README.md': '# r\n' });
    const s = await startServer({ db: path.join(dir, 'ledger', 'data.db'), args: ['--toolset', 'workflow'], cwd: repo.dir });
    servers.push(s);
    const wf = (await call(s, 'start_workflow', { name: 'Hostile area' })).structuredContent as Structured;
    const st = (await call(s, 'start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'G', areas: [HOSTILE, `src/${HOSTILE}`] })).structuredContent as Structured;
    assert.equal(st.snapshot_type, 'git');
    repo.write(`src/${LONG_NAME}`, 'x\n');
    repo.write(`src/${LONG_NAME}b`, 'y\n');

    const completing = call(s, 'complete_task', { task_id: st.task_id, status: 'success', outcome: { summary: 'done' } });
    const meanwhile = call(s, 'start_workflow', { name: 'Sent while complete_task runs' });
    const [done, other] = await Promise.all([completing, meanwhile]);
    assert.equal(other.isError, undefined);
    assert.match((other.structuredContent as Structured).workflow_id, /^[a-z0-9]{12}$/);
    const out = done.structuredContent as Structured;
    assert.deepEqual(out.files_changed.added, [`src/${LONG_NAME}`, `src/${LONG_NAME}b`]);
    assert.equal(out.verification.scope_match, false);
    assert.deepEqual(out.verification.unexpected_files, [`src/${LONG_NAME}`]);
  });

  it('walks a folder outside git whose .gitignore holds a pathological pattern, and keeps answering', async () => {
    const dir = tempDir();
    const workspace = path.join(dir, 'plain');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, '.gitignore'), `${HOSTILE}\n`);
    fs.writeFileSync(path.join(workspace, LONG_NAME), 'kept\n');
    fs.writeFileSync(path.join(workspace, `${LONG_NAME}b`), 'ignored\n');
    const s = await startServer({ db: path.join(dir, 'ledger', 'data.db'), args: ['--toolset', 'workflow'], cwd: workspace });
    servers.push(s);
    const wf = (await call(s, 'start_workflow', { name: 'Hostile .gitignore' })).structuredContent as Structured;

    const starting = call(s, 'start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'G' });
    const meanwhile = call(s, 'start_workflow', { name: 'Sent while start_task runs' });
    const [started, other] = await Promise.all([starting, meanwhile]);
    assert.equal(other.isError, undefined);
    const st = started.structuredContent as Structured;
    assert.equal(st.snapshot_type, 'checksum');

    fs.writeFileSync(path.join(workspace, LONG_NAME), 'edited\n');
    fs.writeFileSync(path.join(workspace, `${LONG_NAME}b`), 'edited, still ignored\n');
    fs.writeFileSync(path.join(workspace, `b${LONG_NAME}`), 'new\n');
    const done = (await call(s, 'complete_task', { task_id: st.task_id, status: 'success', outcome: { summary: 'done' } })).structuredContent as Structured;
    assert.deepEqual(done.files_changed, { added: [`b${LONG_NAME}`], modified: [LONG_NAME], deleted: [], renamed: [] });
  });
});
