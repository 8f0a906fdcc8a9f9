// The V8 code cache of the CLI and the servers (src/core/codeCache.ts) with the built launchers
// dist/cli.js and dist/server.js as real processes: written once in the user's cache folder and
// used after; a corrupt file, an unusable folder or a rebuilt bundle change nothing but the speed;
// never written beside the bundle or in the working directory.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanEnv, CLI, ROOT, startServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function run(script: string, args: string[], env: Record<string, string>, cwd?: string) {
  const r = spawnSync(process.execPath, [script, ...args], { env, cwd, input: '' });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

const files = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
const identity = (file: string): string => {
  const s = fs.statSync(file);
  return `${s.ino}:${s.mtimeMs}:${s.size}`;
};

async function until(what: string, ok: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 20_000; !ok(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the V8 code cache of the CLI and the servers', function () {
  this.timeout(60_000);
  useTempDirs();

  it('writes one cache per CLI command and per set of toolsets, then starts from it without writing again', async () => {
    const cache = tempDir();
    const db = path.join(tempDir(), 'data.db');
    const env = cleanEnv({ AGENT_PROGRESS_CODE_CACHE: cache, AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_LEDGER_HOST: 'off' });
    const first = run(CLI, ['--version'], env);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stderr, '');
    const [cliCache, ...others] = files(cache);
    assert.match(cliCache ?? '', /^cli-main-[0-9a-f]{32}\.bin$/);
    assert.deepEqual(others, []);
    assert.equal(fs.statSync(path.join(cache, cliCache!)).mode & 0o777, 0o600);
    assert.equal(fs.statSync(cache).mode & 0o777, 0o700);
    const before = identity(path.join(cache, cliCache!));
    const second = run(CLI, ['--version'], env);
    assert.deepEqual(second, first);
    assert.equal(identity(path.join(cache, cliCache!)), before, 'a cache V8 accepted is not written again');

    const projects = run(CLI, ['projects'], env);
    assert.equal(projects.status, 0, projects.stderr);
    assert.equal(files(cache).length, 2, 'another command, another cache');

    for (let round = 0; round < 2; round++) {
      const server = await startServer({ db, env: { AGENT_PROGRESS_CODE_CACHE: cache, AGENT_PROGRESS_LEDGER_HOST: 'off' } });
      const tools = (await server.client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes('log_progress'), tools.join());
      await server.close();
      await until('the server cache', () => files(cache).some((f) => f.startsWith('server-main-')));
    }
    assert.equal(files(cache).filter((f) => f.startsWith('server-main-')).length, 1);
  });

  it('runs as without a cache when the file is corrupt, the folder unusable or the setting off', () => {
    const cache = tempDir();
    const env = cleanEnv({ AGENT_PROGRESS_CODE_CACHE: cache });
    const plain = run(CLI, ['--help'], cleanEnv({ AGENT_PROGRESS_CODE_CACHE: 'off' }));
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual(run(CLI, ['--help'], env), plain);
    const [file] = files(cache);
    const garbage = Buffer.alloc(fs.statSync(path.join(cache, file!)).size, 7);
    fs.writeFileSync(path.join(cache, file!), garbage);
    assert.deepEqual(run(CLI, ['--help'], env), plain, 'a corrupt cache is rejected by V8, silently');
    assert.ok(!fs.readFileSync(path.join(cache, file!)).equals(garbage), 'and replaced');

    const notADir = path.join(tempDir(), 'file');
    fs.writeFileSync(notADir, 'x');
    assert.deepEqual(run(CLI, ['--help'], cleanEnv({ AGENT_PROGRESS_CODE_CACHE: notADir })), plain);
    const shared = tempDir();
    fs.chmodSync(shared, 0o777);
    assert.deepEqual(run(CLI, ['--help'], cleanEnv({ AGENT_PROGRESS_CODE_CACHE: shared })), plain);
    assert.deepEqual(files(shared), [], 'a folder others may write is not used');
    const cwd = tempDir();
    assert.deepEqual(run(CLI, ['--help'], cleanEnv({ AGENT_PROGRESS_CODE_CACHE: 'relative/cache' }), cwd), plain);
    assert.deepEqual(files(cwd), [], 'a relative path is not used');
    const bad = run(CLI, ['nope'], env);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^agent-progress: unknown command "nope"/);
  });

  it('runs the CLI and a server as plain Node would when the runtime lets the launcher use none of its module internals', async () => {
    // Another runtime (or Node) whose vm.Script cannot be used: the launcher falls back to require().
    const preload = path.join(tempDir(), 'no-vm-script.cjs');
    fs.writeFileSync(preload, "require('node:vm').Script = function () { throw new Error('no vm.Script in this runtime'); };\n");
    const cache = tempDir();
    const db = path.join(tempDir(), 'data.db');
    const env = cleanEnv({ AGENT_PROGRESS_CODE_CACHE: cache, AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_LEDGER_HOST: 'off' });
    const plain = run(CLI, ['--version'], cleanEnv({ AGENT_PROGRESS_CODE_CACHE: 'off' }));
    const fallback = spawnSync(process.execPath, ['--require', preload, CLI, '--version'], { env, input: '' });
    assert.deepEqual({ status: fallback.status, stdout: fallback.stdout.toString(), stderr: fallback.stderr.toString() }, plain);
    const logged = spawnSync(
      process.execPath,
      ['--require', preload, CLI, 'log', '--project', 'fallback', '--title', 'through require', '--content', 'logged by a CLI started without a cache', '--agent', 'test'],
      {
        env,
        input: '',
        cwd: path.dirname(db),
      },
    );
    assert.equal(logged.status, 0, logged.stderr.toString());
    assert.deepEqual(files(cache), [], 'nothing cached without a script');
    const server = await startServer({ db, env: { AGENT_PROGRESS_CODE_CACHE: cache, AGENT_PROGRESS_LEDGER_HOST: 'off', NODE_OPTIONS: `--require ${preload}` } });
    const found = await server.client.callTool({ name: 'search_logs', arguments: { projectId: 'fallback', query: 'through require' } });
    assert.match(JSON.stringify(found.content), /through require/);
    await server.close();
  });

  it('uses the user cache folder by default, never the working directory or the bundle folder', () => {
    const home = tempDir();
    const workspace = tempDir();
    const env = cleanEnv({ HOME: home, USERPROFILE: home, AGENT_PROGRESS_DB_PATH: path.join(workspace, 'data.db'), AGENT_PROGRESS_LEDGER_HOST: 'off' });
    delete env.AGENT_PROGRESS_CODE_CACHE;
    delete env.XDG_CACHE_HOME;
    const distBefore = files(path.join(ROOT, 'dist'));
    const r = run(CLI, ['--version'], env, workspace);
    assert.equal(r.status, 0, r.stderr);
    const folder = process.platform === 'darwin' ? path.join(home, 'Library', 'Caches', 'agent-progress', 'code') : path.join(home, '.cache', 'agent-progress', 'code');
    if (process.platform !== 'win32') assert.equal(files(folder).length, 1, folder);
    assert.deepEqual(files(workspace), []);
    assert.deepEqual(files(path.join(ROOT, 'dist')), distBefore);
    const off = tempDir();
    const offEnv = { ...env, HOME: off, USERPROFILE: off, AGENT_PROGRESS_CODE_CACHE: 'off' };
    assert.equal(run(CLI, ['--version'], offEnv, workspace).status, 0);
    assert.deepEqual(files(off), [], 'off writes nothing');
  });

  it('never runs the cached code of a bundle that was rebuilt since', () => {
    const dist = tempDir();
    for (const name of ['cli.js', 'cli-main.js']) fs.copyFileSync(path.join(ROOT, 'dist', name), path.join(dist, name));
    const cache = tempDir();
    const env = cleanEnv({ AGENT_PROGRESS_CODE_CACHE: cache });
    const version = run(path.join(dist, 'cli.js'), ['--version'], env).stdout.trim();
    assert.match(version, /^\d+\.\d+\.\d+/);
    assert.equal(files(cache).length, 1);
    // The same length and inode, so only the file's time tells the builds apart (V8 itself checks the length only).
    const bundle = path.join(dist, 'cli-main.js');
    const text = fs.readFileSync(bundle, 'latin1');
    const other = version.replace(/\d/g, (d) => String((Number(d) + 1) % 10));
    assert.ok(text.includes(`"${version}"`));
    const stat = fs.statSync(bundle);
    fs.writeFileSync(bundle, text.replace(`"${version}"`, `"${other}"`), 'latin1');
    fs.utimesSync(bundle, stat.atime, new Date(stat.mtimeMs + 60_000));
    assert.equal(fs.statSync(bundle).ino, stat.ino);
    assert.equal(run(path.join(dist, 'cli.js'), ['--version'], env).stdout.trim(), other);
  });
});
