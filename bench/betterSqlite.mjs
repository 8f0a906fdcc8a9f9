// The reference store: the same schema, full-text index and insert as the ledger, in better-sqlite3
// (native SQLite) with WAL and synchronous=FULL, the durable configuration. The DDL is the
// ledger's own migrations (taken from the bundled source), and insertEntry runs the statements of
// SqliteProgressStore.insertEntry one for one, in one transaction.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const benchDir = path.dirname(new URL(import.meta.url).pathname);

/**
 * Loads better-sqlite3 from bench/node_modules, installing it there on first use. Returns
 * { Database } or { error } (a sentence for the table) when it cannot be had.
 */
export function loadBetterSqlite({ install = true, log = (line) => process.stderr.write(line + '\n') } = {}) {
  const require = createRequire(path.join(benchDir, 'package.json'));
  const tryLoad = () => {
    try {
      const Database = require('better-sqlite3');
      new Database(':memory:').close(); // the native binding loads
      return { Database, version: require('better-sqlite3/package.json').version };
    } catch (err) {
      return { error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
    }
  };
  let loaded = tryLoad();
  if (!loaded.error || !install) return loaded;
  const missing = !existsSync(path.join(benchDir, 'node_modules', 'better-sqlite3'));
  log(
    missing
      ? 'bench: better-sqlite3 (the reference store) is not installed; installing it into bench/node_modules (npm install --prefix bench).\n' +
          'bench: it is a native module, so npm builds it with node-gyp against the local Node headers; this takes a minute or two, once.'
      : `bench: better-sqlite3 is installed but does not load (${loaded.error}); rebuilding it (npm rebuild --prefix bench).`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = missing ? ['install', '--prefix', benchDir, '--no-audit', '--no-fund', '--loglevel', 'error'] : ['rebuild', '--prefix', benchDir, 'better-sqlite3'];
  const started = Date.now();
  const run = spawnSync(npm, args, { cwd: benchDir, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) {
    return { error: `npm ${args[0]} --prefix bench failed (exit ${run.status ?? run.signal}); run it by hand to see why` };
  }
  log(`bench: better-sqlite3 ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  // A fresh require: the failed attempt above is not cached for a module that was missing.
  loaded = tryLoad();
  return loaded;
}

/** Opens (creating) a better-sqlite3 twin of the ledger at `file`. */
export function openTwin(Database, file, harness) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  const migrated = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log_entries'").get();
  if (!migrated) {
    db.transaction(() => {
      for (const migration of harness.MIGRATIONS) for (const statement of migration.statements) db.exec(statement);
    })();
  }
  const exists = db.prepare('SELECT 1 AS x FROM log_entries WHERE id = ?');
  const project = db.prepare('INSERT OR IGNORE INTO projects (project_id, name, created_at) VALUES (?, ?, ?)');
  const entry = db.prepare('INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const trigrams = db.prepare('INSERT INTO log_entries_tri (docid, tri) SELECT rowid, ? FROM log_entries WHERE id = ?');
  const tag = db.prepare('INSERT OR IGNORE INTO entry_tags (tag_fold, entry_rowid, tag) SELECT ?, rowid, ? FROM log_entries WHERE id = ?');
  const count = db.prepare('SELECT count(*) AS n FROM log_entries');

  const insertOne = (e) => {
    const titleFold = harness.fold(e.title);
    if (exists.get(e.id)) throw new Error(`An entry with id ${e.id} already exists`);
    project.run(e.projectId, e.projectId, e.createdAt);
    entry.run(e.id, e.projectId, e.createdAt, e.title, titleFold, JSON.stringify(e.tags), e.agentId, e.content);
    trigrams.run(harness.titleTrigramDoc(titleFold), e.id);
    for (const t of e.tags) tag.run(harness.fold(t), t, e.id);
  };
  const insertTx = db.transaction(insertOne);
  const insertManyTx = db.transaction((entries) => {
    for (const e of entries) insertOne(e);
  });

  return {
    /** One durable transaction, as the ledger's insertEntry. */
    insertEntry: (e) => insertTx(e),
    /** Bulk load: one transaction, not synced (loading is not what is measured). */
    insertMany(entries) {
      db.pragma('synchronous = OFF');
      try {
        insertManyTx(entries);
      } finally {
        db.pragma('synchronous = FULL');
      }
    },
    setSynchronous: (mode) => db.pragma(`synchronous = ${mode}`),
    count: () => count.get().n,
    checkpoint: () => db.pragma('wal_checkpoint(TRUNCATE)'),
    close: () => db.close(),
  };
}
