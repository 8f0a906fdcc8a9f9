// A ledger path that names something not ours (a device, a FIFO, a person's text file) is refused
// with a message naming it, and nothing is renamed, replaced or written (issue 13 item 3).
// Through the CLI as a process and the built server over stdio.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, rpcError, runCli, startServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function cli(args: string[], db: string) {
  // A bounded wait: reading a FIFO used to block forever.
  return runCli(args, { env: { AGENT_PROGRESS_DB_PATH: db }, cwd: path.dirname(db), timeout: 30_000 });
}

/** Every name in the folder with its kind and content, to show that nothing changed. */
function listing(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .sort()
    .map((name) => {
      const st = fs.lstatSync(path.join(dir, name));
      if (st.isSymbolicLink()) return `${name} -> ${fs.readlinkSync(path.join(dir, name))}`;
      if (st.isFile()) return `${name}: ${fs.readFileSync(path.join(dir, name), 'utf8')}`;
      return `${name} (${st.isFIFO() ? 'fifo' : st.isCharacterDevice() ? 'char device' : 'other'} ${st.rdev})`;
    });
}

describe('ledger paths that are not ours', function () {
  this.timeout(60_000);
  useTempDirs();

  function assertRefused(db: string, what: RegExp): void {
    const dir = path.dirname(db);
    const before = listing(dir);
    for (const args of [
      ['search', '--project', 'p'],
      ['log', '-p', 'p', '--title', 't', '--content', 'c'],
    ]) {
      const r = cli(args, db);
      assert.equal(r.status, 2, `${args[0]}: ${r.stderr}`);
      assert.ok(r.stderr.includes(db), r.stderr);
      assert.match(r.stderr, what);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.deepEqual(listing(dir), before, `${args[0]} changed nothing`);
    }
  }

  it("refuses a person's text file, even for a read-only search", () => {
    const db = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(db, 'my notes, not a ledger\n');
    assertRefused(db, /not an Agent Progress ledger/);
  });

  it('refuses a device: a /dev/null clone, and a symlink to /dev/null', () => {
    const dir = tempDir();
    const link = path.join(dir, 'linked.db');
    fs.symlinkSync('/dev/null', link);
    assertRefused(link, /character device/);
    const clone = path.join(tempDir(), 'null.db');
    // Root can make a clone of /dev/null (as root, moving it aside replaced /dev/null itself).
    if (spawnSync('mknod', [clone, 'c', '1', '3']).status === 0) assertRefused(clone, /character device/);
  });

  it('refuses a FIFO without blocking on it', () => {
    const db = path.join(tempDir(), 'pipe.db');
    assert.equal(spawnSync('mkfifo', [db]).status, 0);
    assertRefused(db, /named pipe/);
  });

  it('answers a tool call on such a ledger with an error naming the path, over MCP', async () => {
    const db = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(db, 'my notes, not a ledger\n');
    const before = listing(path.dirname(db));
    const server = await startServer({ db });
    try {
      const err = await rpcError(call(server, 'log_progress', { projectId: 'p', title: 't', content: 'c' }));
      assert.ok(err.message.includes(db), err.message);
      assert.match(err.message, /not an Agent Progress ledger/);
    } finally {
      await server.close();
    }
    assert.deepEqual(listing(path.dirname(db)), before);
  });
});
