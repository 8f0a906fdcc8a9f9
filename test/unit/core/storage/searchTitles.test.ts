// The specification's `query` (title substring) with every combination of its filters (project, start and
// end dates, one or two tags, a second page), checked against a plain filter over the same entries,
// also after entries are appended by another handle and after a deletion; and a ledger made before
// the search epoch migration opens, migrates and searches the same way. The same comparison runs on
// PostgreSQL, where `query` is a LIKE that the pg_trgm index answers (and scans without it).

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import pg from 'pg';
import { openLedger } from '../../../../src/core/storage/openLedger';
import { SqliteEngine } from '../../../../src/core/storage/sqlite/engine';
import { SCHEMAS } from '../../../../src/core/storage/sqlite/schemas';
import type { TitleIndex } from '../../../../src/core/storage/sqlite/titleIndex';
import type { Ledger } from '../../../../src/core/storage/store';
import { fold } from '../../../../src/core/text';
import { PG_TEST_PASSWORD, usePostgres } from '../../../helpers/postgres';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { waitFor } from '../../../helpers/wait';

interface Doc {
  id: string;
  projectId: string;
  title: string;
  tags: string[];
  createdAt: string;
  seq: number;
}

const WORDS = ['the', 'Fixed', 'testing', 'cache', 'queue', 'Über', 'ÉCOLE', 'ｗｉｄｅ', 'ed', 'login', 'tokens', 'and', 'renamed', 'x', '50%_off', 'a\\b'];
const TAGS = ['auth', 'UI', 'db', 'ci', 'Perf', 'docs'];
const BASE = Date.UTC(2025, 0, 1);

function corpus(count: number, seed: number, from = 0): Doc[] {
  let s = seed;
  const random = (): number => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const title = Array.from({ length: 2 + Math.floor(random() * 5) }, () => WORDS[Math.floor(random() ** 1.6 * WORDS.length)]).join(' ');
    const tags = TAGS.filter(() => random() < 0.3);
    // Some entries share a minute (ordered by insertion), some are dated earlier than their neighbours.
    const minute = Math.floor(i / 2) - (i % 13 === 0 ? 500 : 0);
    return { id: `t${seed}-${i}`, projectId: random() < 0.7 ? 'p' : 'q', title, tags, createdAt: new Date(BASE + minute * 60_000).toISOString(), seq: 0 };
  });
}

interface Filter {
  query: string;
  projectId?: string;
  startDate?: string;
  endDate?: string;
  tags?: string[];
  offset?: number;
}

function reference(docs: readonly Doc[], f: Filter, limit: number): { total: number; ids: string[] } {
  const q = fold(f.query);
  const tags = (f.tags ?? []).map((t) => fold(t));
  const hits = docs
    .filter((d) => fold(d.title).includes(q))
    .filter((d) => f.projectId === undefined || d.projectId === f.projectId)
    .filter((d) => f.startDate === undefined || d.createdAt >= f.startDate)
    .filter((d) => f.endDate === undefined || d.createdAt <= f.endDate)
    .filter((d) => tags.every((t) => d.tags.some((own) => fold(own) === t)))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.seq - a.seq));
  const offset = f.offset ?? 0;
  return { total: hits.length, ids: hits.slice(offset, offset + limit).map((d) => d.id) };
}

function filters(): Filter[] {
  const out: Filter[] = [];
  const at = (minute: number): string => new Date(BASE + minute * 60_000).toISOString();
  for (const query of ['the', 'ed', 'TEST', 'über', 'école', 'wide', 'e', 'and the', 'nowhere', '%_', '_', '0%', 'a\\'])
    for (const projectId of [undefined, 'p', 'q'])
      for (const [startDate, endDate] of [
        [undefined, undefined],
        [at(40), undefined],
        [undefined, at(120)],
        [at(40), at(120)],
      ] as const)
        for (const tags of [undefined, ['AUTH'], ['auth', 'ui']]) for (const offset of [0, 10]) out.push({ query, projectId, startDate, endDate, tags, offset });
  return out;
}

describe('title search against a plain filter', function () {
  this.timeout(120_000);
  useTempDirs();
  const opened: Ledger[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });
  const open = async (file: string): Promise<Ledger> => {
    const l = await openLedger({ file, checkpoint: false });
    opened.push(l);
    return l;
  };
  const stats = (l: Ledger): TitleIndex['stats'] => ({ ...(l.progress as unknown as { titles: TitleIndex }).titles.stats });
  let seq = 0;
  const insert = async (l: Ledger, docs: Doc[]): Promise<void> => {
    for (const d of docs) {
      d.seq = seq++;
      await l.progress.insertEntry({ id: d.id, projectId: d.projectId, title: d.title, content: 'body', createdAt: d.createdAt, tags: d.tags, agentId: null });
    }
  };
  const compare = async (l: Ledger, docs: readonly Doc[], label: string): Promise<void> => {
    for (const f of filters()) {
      const want = reference(docs, f, 10);
      const got = await l.progress.searchEntries({ projectId: undefined, ...f, limit: 10 });
      assert.equal(got.total, want.total, `${label}: total of ${JSON.stringify(f)}`);
      assert.deepEqual(
        got.entries.map((e) => e.id),
        want.ids,
        `${label}: ${JSON.stringify(f)}`,
      );
    }
  };

  it('answers every filter combination like the reference, through appends and a deletion', async () => {
    const file = path.join(tempDir(), 'data.db');
    const a = await open(file);
    const docs = corpus(400, 11);
    await insert(a, docs);
    await compare(a, docs, 'first');
    assert.equal(stats(a).builds, 1);

    const b = await open(file);
    const more = corpus(40, 12, 400);
    await insert(b, more);
    docs.push(...more);
    await compare(a, docs, 'appended');
    assert.deepEqual(stats(a), { builds: 1, followed: 1 });

    const cut = new Date(BASE + 60 * 60_000).toISOString();
    await b.transfer.deleteEntriesBefore({ before: cut });
    await compare(
      a,
      docs.filter((d) => d.createdAt >= cut),
      'deleted',
    );
    assert.equal(stats(a).builds, 2);
  });

  it('opens a ledger made before the search epoch, migrates it and searches it', async () => {
    const file = path.join(tempDir(), 'data.db');
    // The progress stream as it shipped before this change: migration 1 only.
    const old = SCHEMAS.map((s) => (s.name === 'progress' ? { ...s, migrations: s.migrations.filter((m) => m.version === 1) } : s));
    const engine = await SqliteEngine.open({ file, schemas: old, checkpoint: false });
    const docs = corpus(120, 21);
    await engine.write((tx) => {
      for (const d of docs) {
        d.seq = seq++;
        tx.run('INSERT OR IGNORE INTO projects (project_id, name, created_at) VALUES (?, ?, ?)', [d.projectId, d.projectId, d.createdAt]);
        tx.run('INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, content) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)', [
          d.id,
          d.projectId,
          d.createdAt,
          d.title,
          fold(d.title),
          JSON.stringify(d.tags),
          'body',
        ]);
        for (const t of d.tags)
          tx.run('INSERT INTO entry_tags (tag_fold, project_id, created_at, entry_rowid, tag) SELECT ?, project_id, created_at, rowid, ? FROM log_entries WHERE id = ?', [
            fold(t),
            t,
            d.id,
          ]);
      }
    });
    assert.equal(
      engine.read((tx) => tx.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'search_epoch'")),
      undefined,
    );
    await engine.close();

    const l = await open(file);
    await compare(l, docs, 'migrated');
    const before = stats(l).builds;
    await l.transfer.deleteEntriesBefore({ before: new Date(BASE + 30 * 60_000).toISOString() });
    await compare(
      l,
      docs.filter((d) => d.createdAt >= new Date(BASE + 30 * 60_000).toISOString()),
      'migrated, deleted',
    );
    assert.equal(stats(l).builds, before + 1);
  });
});

describe('title search against a plain filter on PostgreSQL', function () {
  this.timeout(180_000);
  const server = usePostgres();
  const opened: Ledger[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });
  const open = async (url: string): Promise<Ledger> => {
    const l = await openLedger({ file: '/unused', databaseUrl: url });
    opened.push(l);
    return l;
  };
  let seq = 0;
  const insert = async (l: Ledger, docs: Doc[]): Promise<void> => {
    for (const d of docs) {
      d.seq = seq++;
      await l.progress.insertEntry({ id: d.id, projectId: d.projectId, title: d.title, content: 'body', createdAt: d.createdAt, tags: d.tags, agentId: null });
    }
  };
  const compare = async (l: Ledger, docs: readonly Doc[], label: string): Promise<void> => {
    for (const f of filters()) {
      const want = reference(docs, f, 10);
      const got = await l.progress.searchEntries({ projectId: undefined, ...f, limit: 10 });
      assert.equal(got.total, want.total, `${label}: total of ${JSON.stringify(f)}`);
      assert.deepEqual(
        got.entries.map((e) => e.id),
        want.ids,
        `${label}: ${JSON.stringify(f)}`,
      );
    }
  };
  const sql = async <T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(text, params)).rows;
    } finally {
      await client.end();
    }
  };
  const titleIndex = async (url: string): Promise<string[]> =>
    (await sql<{ indexdef: string }>(url, "SELECT indexdef FROM pg_indexes WHERE tablename = 'log_entries' AND indexname = 'idx_entries_title_trgm'")).map((r) => r.indexdef);

  it('answers every filter combination like the reference, through the pg_trgm index, after appends and a deletion', async () => {
    const url = await server().createDatabase();
    // Index scans only, so that every title search below goes through the trigram index.
    const name = new URL(url).pathname.slice(1);
    await sql(server().adminUrl, `ALTER DATABASE ${name} SET enable_seqscan = off`);
    const a = await open(url);
    assert.deepEqual(await titleIndex(url), ['CREATE INDEX idx_entries_title_trgm ON public.log_entries USING gin (title_fold gin_trgm_ops)']);
    const docs = corpus(400, 11);
    await insert(a, docs);
    await compare(a, docs, 'first');
    const b = await open(url);
    const more = corpus(40, 12, 400);
    await insert(b, more);
    docs.push(...more);
    await compare(a, docs, 'appended');
    const cut = new Date(BASE + 60 * 60_000).toISOString();
    await b.transfer.deleteEntriesBefore({ before: cut });
    await compare(
      a,
      docs.filter((d) => d.createdAt >= cut),
      'deleted',
    );
    // The searches used the index (statistics reach other sessions within about a second).
    await waitFor(
      async () => Number((await sql<{ n: string }>(url, "SELECT idx_scan AS n FROM pg_stat_user_indexes WHERE indexrelname = 'idx_entries_title_trgm'"))[0]?.n ?? 0) > 0,
      'a scan of idx_entries_title_trgm',
      15_000,
      100,
    );
  });

  it('searches the same way without pg_trgm when the ledger user may not install it', async () => {
    const url = await server().createDatabase();
    const name = new URL(url).pathname.slice(1);
    // A user with rights on the schema but not CREATE on the database: CREATE EXTENSION is refused.
    const role = `ap_plain_${process.pid}`;
    await sql(server().adminUrl, `DO $$ BEGIN CREATE ROLE ${role} LOGIN PASSWORD '${PG_TEST_PASSWORD}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await sql(server().adminUrl, `REVOKE CREATE ON DATABASE ${name} FROM PUBLIC`);
    await sql(url, `GRANT ALL ON SCHEMA public TO ${role}`);
    const plain = url.replace('postgres://postgres:', `postgres://${role}:`);
    const l = await open(plain);
    assert.deepEqual(await titleIndex(url), [], 'no trigram index');
    assert.deepEqual(await sql(url, "SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'"), []);
    const docs = corpus(200, 13);
    await insert(l, docs);
    await compare(l, docs, 'without pg_trgm');
  });
});
