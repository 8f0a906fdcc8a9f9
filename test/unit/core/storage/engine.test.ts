import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LedgerError } from '../../../../src/core/errors';
import { createLogger, type Logger } from '../../../../src/core/log';
import { SqliteEngine, type EngineOptions, type Migration } from '../../../../src/core/storage/sqlite/engine';
import { encodeRecord } from '../../../../src/core/storage/sqlite/journal';
import { folderIdentity } from '../../../../src/core/storage/files';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { waitFor } from '../../../helpers/wait';

const V1: Migration = { version: 1, description: 'kv', statements: ['CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)'] };
const V2: Migration = {
  version: 2,
  description: 'kv gets a length',
  statements: ['ALTER TABLE kv ADD COLUMN len INTEGER', 'UPDATE kv SET len = length(v)'],
};

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level: 'debug', sink: (l) => lines.push(l) }), lines };
}

const opened: SqliteEngine[] = [];

async function open(file: string, extra: Partial<EngineOptions> = {}): Promise<SqliteEngine> {
  const engine = await SqliteEngine.open({ file, schemas: [{ name: 'kv', migrations: [V1] }], checkpoint: false, ...extra });
  opened.push(engine);
  return engine;
}

function put(engine: SqliteEngine, k: string, v: string): Promise<void> {
  return engine.write((tx) => {
    tx.run('INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)', [k, v]);
  });
}

function all(engine: SqliteEngine): Record<string, string> {
  return Object.fromEntries(engine.read((tx) => tx.all<{ k: string; v: string }>('SELECT k, v FROM kv ORDER BY k')).map((r) => [r.k, r.v]));
}

/** Runs `before` ahead of each transaction statement (BEGIN, COMMIT, SAVEPOINT...) the engine runs. */
function onControl(engine: SqliteEngine, before: (sql: string) => void): void {
  const inner = engine as unknown as { control(sql: string): void };
  const control = inner.control.bind(engine);
  inner.control = (sql) => {
    before(sql);
    control(sql);
  };
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('storage engine', () => {
  useTempDirs();
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });

  it('holds its in-memory database in exclusive locking mode, also after a snapshot reopened it', async () => {
    // sql.js's database is this process's alone; in the default mode SQLite takes and drops its lock
    // around every statement and transaction, asking the in-memory file system for a hot journal each time.
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const mode = (): unknown => a.read((tx) => tx.get<{ locking_mode: string }>('PRAGMA locking_mode'))?.locking_mode;
    assert.equal(mode(), 'exclusive');
    await put(a, 'k', 'v');
    assert.equal(await a.checkpoint(), true);
    assert.equal(mode(), 'exclusive');
    await put(a, 'k2', 'v2');
    assert.deepEqual(all(a), { k: 'v', k2: 'v2' });
  });

  it('answers a query prepared before a schema change with the columns after it, in the writer and in another engine catching up', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const b = await open(file);
    await put(a, 'k', 'v');
    const row = (e: SqliteEngine): unknown => e.read((tx) => tx.get('SELECT * FROM kv'));
    assert.deepEqual(row(a), { k: 'k', v: 'v' });
    assert.deepEqual(row(b), { k: 'k', v: 'v' });
    // A rename keeps the number of columns: only knowing that the schema changed tells the names
    // apart, also behind comments, as SQLite reads it.
    await a.write((tx) => {
      tx.run('/* a migration */ -- of kv\n  ALTER TABLE kv RENAME COLUMN v TO value');
    });
    assert.deepEqual(row(a), { k: 'k', value: 'v' });
    assert.deepEqual(row(b), { k: 'k', value: 'v' }, 'b applied the rename from the journal');
    await b.write((tx) => {
      tx.run('ALTER TABLE kv ADD COLUMN len INTEGER');
      tx.run('UPDATE kv SET len = length(value)');
    });
    assert.deepEqual(row(b), { k: 'k', value: 'v', len: 1 });
    assert.deepEqual(row(a), { k: 'k', value: 'v', len: 1 }, 'a applied the new column from the journal');
    assert.deepEqual(
      a.read((tx) => tx.all('SELECT * FROM kv')),
      [{ k: 'k', value: 'v', len: 1 }],
    );
  });

  it('answers with the columns of before a schema change that a failed write undid, though the write read the new ones', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'k', 'v');
    const row = (): unknown => a.read((tx) => tx.get('SELECT * FROM kv'));
    assert.deepEqual(row(), { k: 'k', v: 'v' });
    await assert.rejects(
      a.write((tx) => {
        tx.run('ALTER TABLE kv RENAME COLUMN v TO value');
        assert.deepEqual(tx.get('SELECT * FROM kv'), { k: 'k', value: 'v' });
        throw new Error('undone');
      }),
      /undone/,
    );
    assert.deepEqual(row(), { k: 'k', v: 'v' });
  });

  it('keeps every acknowledged write across a reopen, from the journal alone', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    for (let i = 0; i < 50; i++) await put(a, `k${i}`, `v${i}`);
    await a.close();
    const b = await open(file);
    assert.equal(Object.keys(all(b)).length, 50);
    assert.equal(all(b).k49, 'v49');
    assert.equal(fs.existsSync(file), false, 'no snapshot was needed yet');
  });

  it('creates the folder 0700 and its files 0600', async function () {
    if (process.platform === 'win32') this.skip(); // Windows has no POSIX modes (its ACLs are not 0700/0600), so there is nothing to read back; CI runs on Linux, where this runs
    const dir = path.join(tempDir(), 'nested', 'ledger');
    const file = path.join(dir, 'data.db');
    const a = await open(file);
    await put(a, 'k', 'v');
    await a.checkpoint();
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    for (const f of fs.readdirSync(dir)) assert.equal(fs.statSync(path.join(dir, f)).mode & 0o777, 0o600, f);
  });

  it("given its folder's identity (a ledger host), never makes the folder and writes nothing once it is removed or replaced", async () => {
    const folder = path.join(tempDir(), 'ledger');
    const file = path.join(folder, 'data.db');
    await assert.rejects(open(file, { folder: '1:2' }), /ledger folder .* was removed or replaced/);
    assert.equal(fs.existsSync(folder), false, 'a missing folder is not made');
    fs.mkdirSync(folder, { mode: 0o700 });
    const engine = await open(file, { folder: folderIdentity(folder)! });
    await put(engine, 'a', '1');
    fs.rmSync(folder, { recursive: true, force: true });
    await assert.rejects(put(engine, 'b', '2'), (err: unknown) => err instanceof LedgerError && err.code === 'unavailable');
    assert.equal(fs.existsSync(folder), false, 'a removed folder is not made again');
    fs.mkdirSync(folder, { mode: 0o700 });
    await assert.rejects(put(engine, 'c', '3'), /was removed or replaced/);
    await assert.rejects(engine.checkpoint(), /was removed or replaced/);
    await engine.close();
    assert.deepEqual(fs.readdirSync(folder), [], 'nothing written into the folder that replaced it');
  });

  it('writes a snapshot, starts a new journal, and reopens from both', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'before', '1');
    assert.equal(await a.checkpoint(), true);
    assert.equal(a.stats().generation, 1);
    assert.equal(a.stats().journalBytes, 0);
    await put(a, 'after', '2');
    await a.close();
    const b = await open(file);
    assert.deepEqual(all(b), { after: '2', before: '1' });
    assert.equal(b.stats().generation, 1);
  });

  it('shows one handle the writes of another without reopening', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const b = await open(file);
    await put(a, 'x', 'from a');
    assert.equal(all(b).x, 'from a');
    await put(b, 'y', 'from b');
    assert.deepEqual(all(a), { x: 'from a', y: 'from b' });
  });

  it('follows the journal across a snapshot written by another handle', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const b = await open(file);
    await put(a, 'one', '1');
    assert.equal(all(b).one, '1');
    await put(a, 'two', '2'); // b has not read this one yet
    await a.checkpoint();
    await put(a, 'three', '3');
    assert.deepEqual(all(b), { one: '1', three: '3', two: '2' });
    await put(b, 'four', '4');
    await a.checkpoint();
    await a.checkpoint(); // nothing new: no second snapshot
    assert.equal(a.stats().generation, 2);
    await put(b, 'five', '5');
    assert.equal(Object.keys(all(a)).length, 5);
    await a.close();
    await b.close();
    const c = await open(file);
    assert.deepEqual(Object.keys(all(c)), ['five', 'four', 'one', 'three', 'two']);
  });

  it('reloads when it missed a whole generation', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const b = await open(file);
    await put(a, 'one', '1');
    await a.checkpoint();
    await put(a, 'two', '2');
    await a.checkpoint();
    await put(a, 'three', '3');
    assert.deepEqual(all(b), { one: '1', three: '3', two: '2' });
  });

  // How fast is for bench/, not for a test on a loaded machine: the event must come, as foreign.
  it("tells a watching handle about another handle's write without being asked", async () => {
    const file = path.join(tempDir(), 'data.db');
    const writer = await open(file);
    const watcher = await open(file, { watch: true });
    const seen: boolean[] = [];
    watcher.onDidChange((c) => seen.push(c.foreign));
    await put(writer, 'k', 'v');
    await waitFor(() => seen.length > 0, 'a change event', 15_000, 5);
    assert.deepEqual(seen, [true]);
    assert.equal(all(watcher).k, 'v');
  });

  it('counts data changes apart from upkeep, the same in every process and across a snapshot', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const b = await open(file);
    const seen: boolean[] = [];
    b.onDidChange((c) => seen.push(c.maintenance));
    await put(a, 'k1', 'v');
    await a.write((tx) => void tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['upkeep', 'x']), { maintenance: true });
    await put(a, 'k2', 'v');
    assert.equal(a.stats().changes, 2);
    assert.equal(a.stats().seq - a.stats().changes, 2, 'the migration and the upkeep record are not data changes');
    b.refresh();
    assert.equal(b.stats().changes, 2);
    assert.deepEqual(seen, [false]);
    await a.write((tx) => void tx.run('DELETE FROM kv WHERE k = ?', ['upkeep']), { maintenance: true });
    b.refresh();
    assert.deepEqual(seen, [false, true]);
    await a.checkpoint();
    await a.close();
    const c = await open(file);
    assert.equal(c.stats().changes, 2);
  });

  it("lets a change listener read the ledger while other processes' writes are being applied", async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const b = await open(file);
    const counts: number[] = [];
    b.onDidChange(() => counts.push(Object.keys(all(b)).length));
    for (let i = 0; i < 600; i++) await put(a, `k${i}`, 'v');
    assert.equal(b.refresh(), 600);
    assert.deepEqual(counts, [600], 'one event, after every record was applied');
    assert.equal(Object.keys(all(b)).length, 600);
  });

  it('reports its own writes as local changes', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const seen: boolean[] = [];
    a.onDidChange((c) => seen.push(c.foreign));
    await put(a, 'k', 'v');
    assert.deepEqual(seen, [false]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'kept', '1');
    const before = a.stats().seq;
    await assert.rejects(
      a.write((tx) => {
        tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['lost', '2']);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.deepEqual(all(a), { kept: '1' });
    assert.equal(a.stats().seq, before);
    await a.close();
    assert.deepEqual(all(await open(file)), { kept: '1' });
  });

  it('ignores a torn journal tail and cuts it off at the next write', async () => {
    const file = path.join(tempDir(), 'data.db');
    const log = capture();
    const a = await open(file);
    await put(a, 'good', '1');
    await a.close();
    const torn = encodeRecord({ seq: 3, time: Date.now(), ops: [['INSERT INTO kv (k, v) VALUES (?, ?)', ['torn', 'x']]], changes: 3, maintenance: false });
    fs.appendFileSync(`${file}.journal`, torn.subarray(0, torn.length - 5));
    const sizeWithTail = fs.statSync(`${file}.journal`).size;
    const b = await open(file, { logger: log.logger });
    assert.deepEqual(all(b), { good: '1' });
    await put(b, 'next', '2');
    assert.ok(
      log.lines.some((l) => l.includes('torn tail')),
      log.lines.join('\n'),
    );
    assert.ok(fs.statSync(`${file}.journal`).size < sizeWithTail + 100);
    await b.close();
    assert.deepEqual(all(await open(file)), { good: '1', next: '2' });
  });

  it('sets aside damaged bytes at the end of the journal instead of dropping them silently', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'good', '1');
    await a.close();
    fs.appendFileSync(`${file}.journal`, Buffer.from('this is not a journal record, it is garbage from somewhere'));
    const b = await open(file);
    await put(b, 'next', '2');
    const kept = fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.journal.tail-'));
    assert.equal(kept.length, 1);
    assert.match(fs.readFileSync(path.join(path.dirname(file), kept[0]!), 'utf8'), /garbage/);
    assert.ok(b.notices.some((n) => n.includes(kept[0]!)));
    assert.deepEqual(all(b), { good: '1', next: '2' });
  });

  it('warns once, naming the journal and offset, when a damaged record hides later writes from a reader', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'one', '1');
    const before = fs.statSync(`${file}.journal`).size;
    await put(a, 'two', '2');
    await put(a, 'three', '3');
    await a.close();
    const bytes = fs.readFileSync(`${file}.journal`);
    bytes[before + 12] = bytes[before + 12]! ^ 0x55;
    fs.writeFileSync(`${file}.journal`, bytes);
    const log = capture();
    const reader = await open(file, { logger: log.logger });
    assert.deepEqual(all(reader), { one: '1' });
    reader.refresh();
    const warnings = log.lines.filter((l) => l.includes('is damaged at byte'));
    assert.equal(warnings.length, 1, log.lines.join('\n'));
    assert.ok(warnings[0]!.includes(`${file}.journal is damaged at byte ${before} (record checksum does not match)`), warnings[0]);
    assert.ok(reader.notices.some((n) => n.includes('agent-progress recover-ledger')));
  });

  it('recovers the intact writes of a set-aside tail, skips one that no longer applies, and keeps the file', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'one', '1');
    const before = fs.statSync(`${file}.journal`).size;
    await put(a, 'two', '2');
    await a.write((tx) => {
      tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['three', '3']);
    });
    await a.write((tx) => {
      tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['four', '4']);
    });
    await a.close();
    const bytes = fs.readFileSync(`${file}.journal`);
    bytes[before + 12] = bytes[before + 12]! ^ 0x55;
    fs.writeFileSync(`${file}.journal`, bytes);
    const b = await open(file);
    // A write made after the damage was set aside, with the key one of the lost writes inserts.
    await b.write((tx) => {
      tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['four', 'new']);
    });
    const result = await b.recoverSetAside();
    assert.equal(result.files.length, 1);
    const [f] = result.files;
    assert.deepEqual([f!.records, f!.applied, f!.skipped.length], [2, 1, 1]);
    assert.match(f!.skipped[0]!.reason, /UNIQUE constraint failed: kv\.k/);
    assert.ok(f!.damagedBytes > 0);
    assert.ok(fs.existsSync(f!.keptAs) && f!.keptAs.endsWith('.recovered'));
    assert.deepEqual(all(b), { four: 'new', one: '1', three: '3' });
    await b.close();
    assert.deepEqual(all(await open(file)), { four: 'new', one: '1', three: '3' }, 'the recovered writes are journaled');
    const again = await (await open(file)).recoverSetAside();
    assert.deepEqual(again.files, []);
  });

  it('moves a damaged ledger aside, names it, and starts afresh', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const a0 = await open(file);
    await put(a0, 'lost', '1');
    await a0.checkpoint();
    await a0.close();
    // The SQLite header and our application id survive; the pages after them do not.
    const damaged = Buffer.concat([fs.readFileSync(file).subarray(0, 100), Buffer.alloc(4096, 0xee)]);
    fs.writeFileSync(file, damaged);
    const a = await open(file);
    assert.equal(a.notices.length, 1);
    const moved = fs.readdirSync(dir).find((f) => f.startsWith('data.db.corrupt-'));
    assert.ok(moved, fs.readdirSync(dir).join(', '));
    assert.ok(a.notices[0]!.includes(path.join(dir, moved)), a.notices[0]);
    assert.deepEqual(fs.readFileSync(path.join(dir, moved)), damaged);
    await put(a, 'fresh', '1');
    assert.deepEqual(all(a), { fresh: '1' });
  });

  it('moves a snapshot that is not SQLite aside only when our journal sits beside it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const a0 = await open(file);
    await put(a0, 'k', '1');
    await a0.close();
    fs.writeFileSync(file, 'overwritten by accident');
    const a = await open(file);
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('data.db.corrupt-')));
    assert.equal(a.notices.length, 1);
  });

  it("refuses a file that is not a ledger (a person's text file) and changes nothing", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, "definitely not a sqlite database, but somebody's data ".repeat(10));
    const original = fs.readFileSync(file);
    await assert.rejects(
      open(file),
      (err: unknown) => err instanceof LedgerError && err.code === 'invalid_argument' && err.message.includes(file) && /not an Agent Progress ledger/.test(err.message),
    );
    assert.deepEqual(fs.readFileSync(file), original);
    assert.deepEqual(fs.readdirSync(dir), ['notes.txt']);
  });

  it('refuses a SQLite file that is not a ledger, and leaves it untouched', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'app.db');
    const { default: init } = await import('sql.js');
    const SQL = await init();
    const other = new SQL.Database();
    other.run('CREATE TABLE customers (id INTEGER)');
    fs.writeFileSync(file, other.export());
    const before = fs.readFileSync(file);
    await assert.rejects(open(file), (err: unknown) => err instanceof LedgerError && /not an Agent Progress ledger/.test(err.message));
    assert.deepEqual(fs.readFileSync(file), before);
    assert.deepEqual(fs.readdirSync(dir), ['app.db']);
  });

  it('refuses a journal that is not ours and changes nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    fs.writeFileSync(`${file}.journal`, "a person's own file that happens to have this name");
    await assert.rejects(open(file), (err: unknown) => err instanceof LedgerError && err.message.includes(`${file}.journal`) && /not an Agent Progress journal/.test(err.message));
    assert.deepEqual(fs.readdirSync(dir), ['data.db.journal']);
  });

  it('moves a damaged journal of ours aside and continues from the snapshot', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const a = await open(file);
    await put(a, 'in-snapshot', '1');
    await a.checkpoint();
    await a.close();
    const journal = fs.readFileSync(`${file}.journal`);
    journal[10] = journal[10]! ^ 0xff; // our magic number, a header checksum that no longer matches
    fs.writeFileSync(`${file}.journal`, journal);
    const b = await open(file);
    assert.deepEqual(all(b), { 'in-snapshot': '1' });
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('data.db.journal.unreadable-')));
    assert.ok(b.notices.some((n) => n.includes('unreadable')));
    await put(b, 'after', '2');
    await b.close();
    assert.deepEqual(all(await open(file)), { after: '2', 'in-snapshot': '1' });
  });

  it('finishes a snapshot rotation that a crash cut short, losing nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const a = await open(file);
    await put(a, 'one', '1');
    await put(a, 'two', '2');
    const oldJournal = fs.readFileSync(`${file}.journal`);
    await a.checkpoint();
    await a.close();
    // As if the process died after the snapshot was renamed into place but before the new journal was.
    fs.writeFileSync(`${file}.journal`, oldJournal);
    const b = await open(file);
    assert.deepEqual(all(b), { one: '1', two: '2' });
    await put(b, 'three', '3');
    await b.close();
    assert.deepEqual(all(await open(file)), { one: '1', three: '3', two: '2' });
  });

  it('migrates forward on open and journals the migration for other processes', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    await put(a, 'k', 'hello');
    await a.checkpoint();
    await put(a, 'k2', 'hi');
    const b = await open(file, { schemas: [{ name: 'kv', migrations: [V1, V2] }] });
    assert.deepEqual(
      b.read((tx) => tx.all('SELECT k, len FROM kv ORDER BY k')),
      [
        { k: 'k', len: 5 },
        { k: 'k2', len: 2 },
      ],
    );
    // The old handle replays the migration, then knows it cannot use the ledger any more.
    assert.throws(() => all(a), /kv schema version 2, newer than this Agent Progress understands \(1\)/);
    await assert.rejects(open(file), /newer than this Agent Progress understands/);
  });

  it('versions each part of the schema on its own, and opens a ledger with parts it does not know', async () => {
    const file = path.join(tempDir(), 'data.db');
    const other = { name: 'other', migrations: [{ version: 1, description: 'x', statements: ['CREATE TABLE other (x INTEGER)'] }] };
    const both = await open(file, { schemas: [{ name: 'kv', migrations: [V1] }, other] });
    await put(both, 'k', 'v');
    await both.close();
    const kvOnly = await open(file);
    assert.deepEqual(all(kvOnly), { k: 'v' });
    assert.deepEqual(
      kvOnly.read((tx) => tx.all("SELECT key, value FROM _meta WHERE key LIKE 'schema_version.%' ORDER BY key")),
      [
        { key: 'schema_version.kv', value: '1' },
        { key: 'schema_version.other', value: '1' },
      ],
    );
  });

  it('breaks a lock left by a process that died', async () => {
    const file = path.join(tempDir(), 'data.db');
    const log = capture();
    // A lock timeout longer than the test's: the write can only succeed by breaking the lock, never by waiting it out.
    const a = await open(file, { logger: log.logger, lockTimeoutMs: 600_000 });
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: os.hostname(), at: Date.now(), token: 'dead' }));
    await put(a, 'k', 'v');
    assert.equal(all(a).k, 'v');
    assert.ok(log.lines.some((l) => l.includes('Broke a stale ledger lock')));
    assert.equal(fs.existsSync(`${file}.lock`), false);
  });

  it('gives up on a lock held by a live process with a retryable error', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file, { lockTimeoutMs: 150 });
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now(), token: 'held' }));
    await assert.rejects(put(a, 'k', 'v'), (err: unknown) => err instanceof LedgerError && err.code === 'unavailable' && err.retryable && /busy/.test(err.message));
    fs.unlinkSync(`${file}.lock`);
    await put(a, 'k', 'v');
    assert.equal(all(a).k, 'v');
  });

  it('with lockLingerMs (a ledger host), keeps the lock across writes, and lets it go when idle and on close', async () => {
    const file = path.join(tempDir(), 'data.db');
    const lock = `${file}.lock`;
    const a = await open(file, { lockLingerMs: 600_000, lockMaxHoldMs: 600_000 });
    await put(a, 'k1', 'v1');
    assert.ok(fs.existsSync(lock), 'the lock is kept after the write');
    const owner = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number; token: string };
    assert.equal(owner.pid, process.pid);
    const lockIno = fs.statSync(lock).ino;
    await put(a, 'k2', 'v2');
    await a.checkpoint();
    assert.equal(fs.statSync(lock).ino, lockIno, 'no lock file made and removed per write or snapshot');
    assert.equal((JSON.parse(fs.readFileSync(lock, 'utf8')) as { token: string }).token, owner.token);
    await a.close();
    assert.equal(fs.existsSync(lock), false, 'closing lets the lock go');
    // With a short linger, the lock goes once the writes stop.
    const b = await open(file, { lockLingerMs: 20 });
    await put(b, 'k3', 'v3');
    await waitFor(() => !fs.existsSync(lock), 'the lock let go after the linger', 10_000);
    assert.deepEqual(all(b), { k1: 'v1', k2: 'v2', k3: 'v3' });
  });

  it('with lockLingerMs (a ledger host), answers a durable write before it commits in memory, and a write alone takes no savepoint', async () => {
    const file = path.join(tempDir(), 'data.db');
    const order: string[] = [];
    const spy = (engine: SqliteEngine): void => onControl(engine, (sql) => order.push(sql));
    const host = await open(file, { lockLingerMs: 600_000, lockMaxHoldMs: 600_000 });
    spy(host);
    let seen: Record<string, string> = {};
    await put(host, 'a', '1').then(() => {
      order.push('answered a');
      // In the answer's own turn: the write is read back (one connection), and the next write queues behind the commit.
      seen = all(host);
      return put(host, 'b', '2');
    });
    order.push('answered b');
    await Promise.all([put(host, 'c', '3'), put(host, 'd', '4')]);
    order.push('answered c, d');
    const journalBytes = fs.statSync(`${file}.journal`).size;
    await assert.rejects(
      host.write((tx) => {
        tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['e', '5']);
        throw new Error('refused');
      }),
      /refused/,
    );
    order.push('refused e');
    assert.equal(fs.statSync(`${file}.journal`).size, journalBytes, 'the refused write left no record');
    await put(host, 'f', '6');
    order.push('answered f');
    await host.close();
    assert.deepEqual(seen, { a: '1' });
    assert.deepEqual(order, [
      'BEGIN',
      'answered a',
      'COMMIT',
      'BEGIN',
      'answered b',
      'COMMIT',
      // Writes queued together: a savepoint each, one commit after both are answered.
      'BEGIN',
      'SAVEPOINT w',
      'RELEASE w',
      'SAVEPOINT w',
      'RELEASE w',
      'answered c, d',
      'COMMIT',
      // A write alone that fails: the transaction is rolled back, nothing is journaled.
      'BEGIN',
      'ROLLBACK',
      'BEGIN',
      'COMMIT',
      'refused e',
      'BEGIN',
      'answered f',
      'COMMIT',
    ]);
    const reopened = await open(file);
    assert.deepEqual(all(reopened), { a: '1', b: '2', c: '3', d: '4', f: '6' });
    // A handle without a lingering lock (a direct writer) commits before it answers, and lets the lock go.
    order.length = 0;
    spy(reopened);
    await put(reopened, 'g', '7');
    order.push('answered g');
    assert.deepEqual(order, ['BEGIN', 'COMMIT', 'answered g']);
    assert.equal(fs.existsSync(`${file}.lock`), false);
  });

  it('with lockLingerMs, holds an answered write when its commit in memory fails: the ledger is read again from its files', async () => {
    const file = path.join(tempDir(), 'data.db');
    const log = capture();
    const host = await open(file, { logger: log.logger, lockLingerMs: 600_000, lockMaxHoldMs: 600_000 });
    await put(host, 'a', '1');
    let failures = 1;
    onControl(host, (sql) => {
      if (sql === 'COMMIT' && failures-- > 0) throw new Error('out of memory');
    });
    await put(host, 'b', '2');
    await put(host, 'c', '3');
    assert.deepEqual(all(host), { a: '1', b: '2', c: '3' });
    assert.ok(
      log.lines.some((l) => l.includes('Could not commit a journaled write in memory (out of memory)')),
      log.lines.join('\n'),
    );
    await host.close();
    assert.deepEqual(all(await open(file)), { a: '1', b: '2', c: '3' });
  });

  it('never removes the lock file of a folder that replaced its own while its lock lingered (a ledger host)', async () => {
    const folder = path.join(tempDir(), 'ledger');
    fs.mkdirSync(folder, { mode: 0o700 });
    const file = path.join(folder, 'data.db');
    const engine = await open(file, { folder: folderIdentity(folder)!, lockLingerMs: 600_000, lockMaxHoldMs: 600_000 });
    await put(engine, 'a', '1');
    assert.ok(fs.existsSync(`${file}.lock`), 'the lock lingers');
    fs.renameSync(folder, `${folder}-old`);
    fs.mkdirSync(folder, { mode: 0o700 });
    const theirs = JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now(), token: 'theirs' });
    fs.writeFileSync(`${file}.lock`, theirs);
    await engine.close();
    assert.equal(fs.readFileSync(`${file}.lock`, 'utf8'), theirs, "the new folder's lock is left alone");
  });

  it('never removes a lock file at its path that is not its own holding (taken by another after its lock was broken)', async () => {
    const file = path.join(tempDir(), 'data.db');
    const engine = await open(file, { lockLingerMs: 600_000, lockMaxHoldMs: 600_000 });
    await put(engine, 'a', '1');
    assert.ok(fs.existsSync(`${file}.lock`), 'the lock lingers');
    // Another process judged the lock stale, broke it and took its own (same folder, same path).
    fs.unlinkSync(`${file}.lock`);
    const theirs = JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now(), token: 'theirs' });
    fs.writeFileSync(`${file}.lock`, theirs);
    await engine.close();
    assert.equal(fs.readFileSync(`${file}.lock`, 'utf8'), theirs, "the other holder's lock is left alone");
  });

  it('lets a direct writer in beside a handle whose lock lingers, and that handle reads its write before writing', async () => {
    const file = path.join(tempDir(), 'data.db');
    // Lingers after each write, and under steady writes lets go every 50 ms for a waiter.
    const host = await open(file, { lockLingerMs: 10_000, lockMaxHoldMs: 50 });
    const direct = await open(file, { lockTimeoutMs: 30_000 });
    await put(host, 'h0', 'x');
    let stop = false;
    let n = 0;
    const steady = (async () => {
      while (!stop) await put(host, `h${++n}`, 'x');
    })();
    await put(direct, 'd', 'y');
    stop = true;
    await steady;
    await put(host, 'after', 'z');
    const seen = all(host);
    assert.equal(seen.d, 'y', "the host's next write caught up on the direct one");
    assert.equal(seen.after, 'z');
    assert.equal(Object.keys(seen).length, n + 3);
    const reopened = await open(file);
    assert.deepEqual(all(reopened), seen, 'every write is in the journal once, in sequence');
  });

  it('writes one fresh snapshot for the writes of two processes, not one each', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file, { checkpoint: { freshMs: 5_000 } });
    const b = await open(file, { checkpoint: { freshMs: 5_000 } });
    const before = a.stats().checkpoints + b.stats().checkpoints;
    await put(a, 'a', '1');
    await put(b, 'b', '2');
    await waitFor(() => !a.stats().freshPending && !b.stats().freshPending, 'both writes in a snapshot', 60_000);
    assert.equal(a.stats().checkpoints + b.stats().checkpoints - before, 1, 'the first timer to fire covers both writes');
    const c = await open(file);
    assert.deepEqual(all(c), { a: '1', b: '2' });
    assert.equal(c.stats().journalBytes, 0, 'both writes are in the snapshot, none only in the journal');
  });

  it('writes a snapshot on its own once the journal grows past the threshold', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file, { checkpoint: { minBytes: 4096, snapshotRatio: 0, idleMs: 60_000, idleMinBytes: 1 << 30 } });
    for (let i = 0; i < 40; i++) await put(a, `k${i}`, 'x'.repeat(200));
    await waitFor(() => a.stats().checkpoints > 0, 'an automatic snapshot', 30_000);
    assert.ok(fs.existsSync(file));
  });
});
