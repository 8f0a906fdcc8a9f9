// Files read whole are regular files under a hard byte cap (issue 13 item 4): a review definition,
// a config file, a --content-file, a task file or an import that is a symlink to /dev/zero (stat
// size 0) or a FIFO is refused with a message naming it, at once, instead of exhausting memory or
// blocking. Through the built server over stdio and the CLI as a process.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, rpcError, runCli, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function cli(args: string[], options: { db: string; cwd: string; env?: Record<string, string> }) {
  // Bounded: before the fix these read /dev/zero until memory ran out, or blocked on the FIFO.
  return runCli(args, { env: { AGENT_PROGRESS_DB_PATH: options.db, ...options.env }, cwd: options.cwd, timeout: 30_000, nodeArgs: ['--max-old-space-size=256'] });
}

function fifo(file: string): string {
  assert.equal(spawnSync('mkfifo', [file]).status, 0);
  return file;
}

describe('capped reads of regular files only', function () {
  this.timeout(90_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  function workspace(): { ws: string; db: string } {
    const dir = tempDir();
    const ws = path.join(dir, 'shop');
    const reviews = path.join(ws, '.agent-progress', 'reviews');
    fs.mkdirSync(reviews, { recursive: true });
    fs.writeFileSync(path.join(reviews, 'front.yaml'), 'title: Front review\nagents:\n  - security\n');
    fs.symlinkSync('/dev/zero', path.join(reviews, 'zero.yaml'));
    fifo(path.join(reviews, 'pipe.yaml'));
    return { ws, db: path.join(dir, 'ledger', 'data.db') };
  }

  it('refuses review definitions that are /dev/zero or a FIFO, and keeps serving the others, over MCP', async () => {
    const { ws, db } = workspace();
    const s = await startServer({ db, args: ['--toolset', 'review'], cwd: ws });
    servers.push(s);
    const zero = await rpcError(call(s, 'get_workflow', { workflow: 'zero' }));
    assert.match(zero.message, /zero\.yaml is a character device, not a regular file/);
    const pipe = await rpcError(call(s, 'get_workflow', { workflow: 'pipe' }));
    assert.match(pipe.message, /pipe\.yaml is a named pipe \(FIFO\), not a regular file/);
    const front = await call(s, 'get_workflow', { workflow: 'front' });
    assert.equal((front.structuredContent as { workflow: string }).workflow, 'front');
  });

  it('lists those definitions as refused in the CLI', () => {
    const { ws, db } = workspace();
    const r = cli(['review-definitions'], { db, cwd: ws });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^front {2}Front review/m);
    assert.match(r.stdout, /refused \.agent-progress\/reviews\/pipe\.yaml: .*named pipe/);
    assert.match(r.stdout, /refused \.agent-progress\/reviews\/zero\.yaml: .*character device/);
  });

  it('refuses a config file, a --content-file, a task file and an import that are devices or FIFOs', () => {
    const dir = tempDir();
    const db = path.join(dir, 'data.db');
    const zero = path.join(dir, 'zero.json');
    fs.symlinkSync('/dev/zero', zero);
    const pipe = fifo(path.join(dir, 'pipe.json'));
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['search', '-p', 'p'], { AGENT_PROGRESS_CONFIG: zero }, /The config file .*zero\.json is a character device/],
      [['--config', pipe, 'search', '-p', 'p'], {}, /The config file .*pipe\.json is a named pipe/],
      [['log', '-p', 'p', '--title', 't', '--content-file', zero], {}, /--content-file .*zero\.json is a character device/],
      [['create-tasks-bulk', 'p', pipe], {}, /The task file .*pipe\.json is a named pipe/],
      [['import', zero], {}, /The file to import .*zero\.json is a character device/],
    ];
    for (const [args, env, message] of cases) {
      const r = cli(args, { db, cwd: dir, env });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
  });

  it('refuses a regular file over the cap without reading it', () => {
    const { ws, db } = workspace();
    fs.writeFileSync(path.join(ws, '.agent-progress', 'reviews', 'huge.yaml'), `title: x\n#${'x'.repeat(300 * 1024)}\n`);
    const r = cli(['review-definitions', '--json'], { db, cwd: ws });
    const listing = JSON.parse(r.stdout) as { errors: { file: string; message: string }[] };
    assert.match(listing.errors.find((e) => e.file.endsWith('huge.yaml'))!.message, /larger than 262144 bytes/);
  });
});
