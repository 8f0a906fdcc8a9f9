// The file at the ledger path is a valid SQLite database holding what was just written, within a
// few seconds of any write, as the README's `sqlite3 data.db` promises; temp files a killed process
// left beside it are removed by the next snapshot, and nobody else's (issue 13 item 5).
// Through the built server over stdio and the CLI as a process; data.db read with sql.js.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { call, runCli, startServer, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

/** The titles in data.db as any SQLite reader sees them, or undefined while it is not a database yet. */
async function titlesIn(db: string): Promise<string[] | undefined> {
  if (!fs.existsSync(db)) return undefined;
  const SQL = await initSqlJs();
  const database = new SQL.Database(fs.readFileSync(db));
  try {
    const rows = database.exec('SELECT title FROM log_entries ORDER BY title')[0]?.values ?? [];
    return rows.map((r) => String(r[0]));
  } catch {
    return undefined;
  } finally {
    database.close();
  }
}

describe('data.db, a SQLite file any reader can open', function () {
  this.timeout(60_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it('holds an entry logged through the server within a few seconds, while the server runs', async () => {
    const db = path.join(tempDir(), 'data.db');
    const s = await startServer({ db });
    servers.push(s);
    await call(s, 'log_progress', { projectId: 'p', title: 'Visible to sqlite3', content: 'c' });
    const titles = await waitFor(async () => (await titlesIn(db))?.includes('Visible to sqlite3') && titlesIn(db), 'the entry in data.db', 10_000, 100);
    assert.deepEqual(titles, ['Visible to sqlite3']);
    await call(s, 'log_progress', { projectId: 'p', title: 'A second one', content: 'c' });
    await waitFor(async () => (await titlesIn(db))?.length === 2, 'the second entry in data.db', 10_000, 100);
  });

  it('holds an entry the CLI logged as soon as the CLI exits, and removes only our own leftover temp files', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'data.db');
    const ours = ['data.db.tmp-4242-deadbeef', 'data.db.journal.tmp-4242-0badf00d'];
    const theirs = ['data.db.tmp-keep', 'data.db.tmp-4242-deadbeef.bak', 'other.db.tmp-4242-deadbeef'];
    for (const name of [...ours, ...theirs]) fs.writeFileSync(path.join(dir, name), 'left by a process killed with -9');
    const r = runCli(['log', '-p', 'p', '--title', 'From the CLI', '--content', 'c'], { env: { AGENT_PROGRESS_DB_PATH: db }, cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(await titlesIn(db), ['From the CLI']);
    for (const name of ours) assert.equal(fs.existsSync(path.join(dir, name)), false, `${name} removed`);
    for (const name of theirs) assert.equal(fs.existsSync(path.join(dir, name)), true, `${name} kept`);
  });
});
