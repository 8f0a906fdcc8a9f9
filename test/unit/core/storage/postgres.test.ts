// What only the PostgreSQL backend has to prove: several servers on one database at once
// (migrations under the advisory lock, request_task with SKIP LOCKED from many connections, the
// reaper on every instance), LISTEN/NOTIFY change events, and a password that never shows.
// The behaviour both backends share is in ledgerContract.test.ts.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import pg from 'pg';
import { ledgerLabel, loadConfig } from '../../../../src/core/config';
import { isLedgerError, type LedgerError } from '../../../../src/core/errors';
import { createLogger } from '../../../../src/core/log';
import { numberPlaceholders, type PgEngine } from '../../../../src/core/storage/postgres/engine';
import { PgProgressStore } from '../../../../src/core/storage/postgres/progressRepo';
import { entrySearch, fullTextCondition, fullTextTsQuery, phraseRegex, searchWords } from '../../../../src/core/storage/postgres/search';
import { checkPostgresUrl, isPostgresUrl, redactUrl, urlPassword } from '../../../../src/core/storage/postgres/url';
import { copyLedger } from '../../../../src/core/storage/copyLedger';
import { openLedger } from '../../../../src/core/storage/openLedger';
import type { AddOutcome } from '../../../../src/core/storage/queueStore';
import type { Ledger } from '../../../../src/core/storage/store';
import { PG_TEST_PASSWORD, usePostgres } from '../../../helpers/postgres';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { waitFor } from '../../../helpers/wait';

const operator = { kind: 'operator' as const, name: 'tester' };

describe('PostgreSQL backend helpers', () => {
  useTempDirs();

  it('takes the connection string from the environment, else a trusted config file (with ${VAR}), and refuses another scheme', () => {
    const dir = tempDir();
    assert.equal(loadConfig({ env: {}, cwd: dir }).databaseUrl, undefined);
    assert.equal(loadConfig({ env: { AGENT_PROGRESS_DATABASE_URL: 'postgres://ap@db/x' }, cwd: dir }).databaseUrl, 'postgres://ap@db/x');
    fs.writeFileSync(path.join(dir, 'agent-progress.config.json'), JSON.stringify({ databaseUrl: 'postgres://ap:${AP_DB_PW}@db/team' }));
    assert.equal(loadConfig({ env: { AP_DB_PW: 'pw-from-env' }, cwd: dir }).databaseUrl, undefined, "not from a working folder's file");
    const fromFile = loadConfig({ env: { AP_DB_PW: 'pw-from-env', AGENT_PROGRESS_CONFIG: path.join(dir, 'agent-progress.config.json') }, cwd: dir });
    assert.equal(fromFile.databaseUrl, 'postgres://ap:pw-from-env@db/team');
    assert.equal(ledgerLabel(fromFile), 'PostgreSQL postgres://ap:[redacted]@db/team');
    assert.equal(loadConfig({ env: { AGENT_PROGRESS_DATABASE_URL: 'postgres://ap@db/env' }, cwd: dir }).databaseUrl, 'postgres://ap@db/env', 'the environment wins');
    assert.throws(
      () => loadConfig({ env: { AGENT_PROGRESS_DATABASE_URL: 'mysql://u:hunter22@db/x' }, cwd: dir }),
      (err: Error) => /must be a PostgreSQL connection string/.test(err.message) && !err.message.includes('hunter22'),
    );
  });

  it('recognises and redacts connection strings, whatever the scheme', () => {
    assert.equal(isPostgresUrl('postgres://a@h/db'), true);
    assert.equal(isPostgresUrl(' postgresql://a@h/db'), true);
    assert.equal(isPostgresUrl('/home/me/data.db'), false);
    assert.equal(redactUrl('postgres://ap:s3cret@db:5432/ledger'), 'postgres://ap:[redacted]@db:5432/ledger');
    assert.equal(redactUrl('postgres://db/ledger?user=ap&password=s3cret'), 'postgres://db/ledger?user=ap&password=[redacted]');
    assert.equal(redactUrl('mysql://root:hunter22@db/x'), 'mysql://root:[redacted]@db/x');
    assert.equal(urlPassword('postgres://ap:p%40ss@db/x'), 'p@ss');
    assert.throws(
      () => checkPostgresUrl('mysql://root:hunter22@db/x', 'AGENT_PROGRESS_DATABASE_URL'),
      (err: Error) => /must be a PostgreSQL connection string/.test(err.message) && !err.message.includes('hunter22'),
    );
  });

  it("redacts a connection string's password in every log line", () => {
    const lines: string[] = [];
    const logger = createLogger({ sink: (l) => lines.push(l) });
    logger.info('ledger postgres://ap:s3cret-pass@db:5432/ledger ready');
    assert.deepEqual(lines.length, 1);
    assert.ok(!lines[0]!.includes('s3cret-pass') && lines[0]!.includes('[redacted]'), lines[0]);
  });

  it("builds text-search queries with the embedded engine's syntax", () => {
    assert.equal(fullTextTsQuery('jwt tokens'), "('jwt' & 'tokens')");
    assert.equal(fullTextTsQuery('"exact phrase" auth*'), "((('exact':A <-> 'phrase':A) | ('exact':B <-> 'phrase':B)) & 'auth':*)");
    assert.equal(fullTextTsQuery('log_entr*'), "(('log':A <-> 'entr':*A) | ('log':B <-> 'entr':*B))");
    assert.equal(fullTextTsQuery('jwt -session'), "('jwt') & !('session')");
    // OR binds loosest, as in FTS4: (a AND b) OR c.
    assert.equal(fullTextTsQuery('a b OR c'), "('a' & 'b') | 'c'");
    assert.equal(fullTextTsQuery("'); DROP TABLE log_entries; --"), "('drop' & 'table' & (('log':A <-> 'entries':A) | ('log':B <-> 'entries':B)))");
    assert.equal(fullTextTsQuery('-only'), undefined);
    assert.equal(searchWords('Fixed OAuth-login, v2!'), 'fixed oauth login v2');
    assert.equal(numberPlaceholders("SELECT ? WHERE x = '?' AND y = ?"), "SELECT $1 WHERE x = '?' AND y = $2");
  });

  it('matches phrases in the stored words of entries whose vector may lack positions, and words as before', () => {
    // No phrase of two words: the condition and its parameter are the tsquery alone, as before.
    for (const text of ['jwt tokens', 'auth* -session', 'a b OR c', '"one"', 'café -"crème"']) {
      assert.deepEqual(fullTextCondition(text), { sql: "e.search @@ to_tsquery('simple', ?)", params: [fullTextTsQuery(text)], tsquery: fullTextTsQuery(text) });
    }
    const c = fullTextCondition('"ping pong" tab* OR a-b-c* -"x y" -z')!;
    assert.equal(c.tsquery, fullTextTsQuery('"ping pong" tab* OR a-b-c* -"x y" -z'));
    assert.equal(
      c.sql,
      "e.search @@ to_tsquery('simple', ?) AND CASE WHEN e.phrase_words IS NULL THEN e.search @@ to_tsquery('simple', ?) ELSE " +
        "((e.phrase_words ~ ? AND e.search @@ to_tsquery('simple', ?)) OR (e.phrase_words ~ ?)) AND NOT (e.phrase_words ~ ? OR e.search @@ to_tsquery('simple', ?)) END",
    );
    assert.deepEqual(c.params, [
      "('ping' & 'pong' & 'tab':*) | ('a' & 'b' & 'c':*)",
      c.tsquery,
      '(^|[ \n])ping pong([ \n]|$)',
      "'tab':*",
      '(^|[ \n])a b c',
      '(^|[ \n])x y([ \n]|$)',
      "'z'",
    ]);
    // Words are folded as the vectors are; whatever reaches a pattern is escaped.
    assert.equal(fullTextCondition('"Crème Brûlée"')!.params[2], '(^|[ \n])creme brulee([ \n]|$)');
    assert.equal(phraseRegex(['a.b', 'c*(d)'], true), '(^|[ \n])a\\.b c\\*\\(d\\)');
    // Phrase words only where the vector may lack positions: a word 256 times in the title and the
    // content together, or 16,000 words.
    const rep = (w: string, k: number): string => Array.from({ length: k }, () => w).join(' ');
    assert.equal(entrySearch('Title', 'plain words').phraseWords, null);
    assert.deepEqual(entrySearch('Títle', 'a, b').params, ['title', 'a b']);
    assert.equal(entrySearch(rep('ping', 100), `${rep('ping', 155)} pong`).phraseWords, null);
    assert.equal(entrySearch(rep('ping', 100), `${rep('ping', 156)} Pong`).phraseWords, `${rep('ping', 100)}\n${rep('ping', 156)} pong`);
    const distinct = (k: number): string => Array.from({ length: k }, (_, i) => `w${i}`).join(' ');
    assert.equal(entrySearch('t', distinct(15_998)).phraseWords, null);
    assert.equal(entrySearch('t', distinct(15_999)).phraseWords?.length, `t\n${distinct(15_999)}`.length);
  });
});

describe('PostgreSQL backend with several servers on one database', function () {
  this.timeout(120_000);
  const server = usePostgres();
  const opened: Ledger[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()!.close();
  });
  const open = async (url: string, watch = false): Promise<Ledger> => {
    const ledger = await openLedger({ file: '', databaseUrl: url, watch });
    opened.push(ledger);
    return ledger;
  };

  it('migrates once when six servers open an empty database at the same moment', async () => {
    const url = await server().createDatabase();
    const ledgers = await Promise.all(Array.from({ length: 6 }, () => open(url)));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const versions = (await client.query<{ key: string; value: string }>("SELECT key, value FROM ap_meta WHERE key LIKE 'schema_version.%' ORDER BY key")).rows;
      assert.deepEqual(
        versions.map((r) => r.key),
        ['schema_version.archive', 'schema_version.host', 'schema_version.progress', 'schema_version.queue', 'schema_version.review', 'schema_version.workflow'],
      );
    } finally {
      await client.end();
    }
    await ledgers[0]!.progress.insertEntry({ id: 'm1', projectId: 'p', title: 't', content: 'c', createdAt: new Date().toISOString(), tags: [], agentId: null });
    assert.equal((await ledgers[5]!.progress.findEntry('m1'))?.title, 't');
  });

  it('hands each task to one agent when 12 agents on three servers request at once', async () => {
    const url = await server().createDatabase();
    const servers = await Promise.all([open(url), open(url), open(url)]);
    const at = (): string => new Date().toISOString();
    await servers[0]!.queue.createProject(
      { projectId: 'p', description: '', config: { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 10, reaperIntervalMinutes: 1 }, at: at() },
      operator,
    );
    await servers[0]!.queue.addTasks(
      'p',
      Array.from({ length: 240 }, (_, i) => ({ id: `t${i}`, typeId: '', instructions: `task ${i}`, variables: null, variablesKey: null })),
      at(),
      operator,
    );
    const agents = Array.from({ length: 12 }, (_, i) => `agent-${i}`);
    for (const name of agents) await servers[0]!.queue.registerAgent({ name, projectId: 'p', keyHash: name, sessionId: null, at: at() }, operator);
    const taken = await Promise.all(
      agents.map(async (name, i) => {
        const q = servers[i % 3]!.queue;
        const mine: string[] = [];
        for (;;) {
          const r = await q.requestTask('p', name, at());
          if (r.kind !== 'assigned') return mine;
          mine.push(r.task.id);
          await q.completeTask(r.task.id, name, 'ok', at());
        }
      }),
    );
    const all = taken.flat();
    assert.equal(all.length, 240);
    assert.equal(new Set(all).size, 240, 'no task handed out twice');
    assert.ok(taken.filter((t) => t.length > 0).length >= 6, `the work was shared: ${taken.map((t) => t.length).join(', ')}`);
  });

  it("creates a project's default task type once when writers race to it, and answers a create that races another with the taken name", async () => {
    const url = await server().createDatabase();
    const ledger = await open(url);
    const at = (): string => new Date().toISOString();
    const config = { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 10, reaperIntervalMinutes: 1 };
    await ledger.queue.createProject({ projectId: 'p', description: '', config, at: at() }, operator);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    // Another writer's transaction has inserted the row and not committed; the call under test must
    // be waiting on it (PostgreSQL holds the insert on the unique key) when it commits.
    const racing = async <T>(insert: string, params: unknown[], call: () => Promise<T>): Promise<PromiseSettledResult<T>> => {
      await other.query('BEGIN');
      await other.query(insert, params);
      const pending = Promise.allSettled([call()]).then(([settled]) => settled!);
      await waitFor(async () => {
        const waiting = await other.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        return Number(waiting.rows[0]!.n) === 1;
      }, 'the call to wait for the other insert');
      await other.query('COMMIT');
      return pending;
    };
    const refused = (outcome: PromiseSettledResult<unknown>, said: RegExp): void => {
      assert.equal(outcome.status, 'rejected', 'the create that lost the race is refused');
      const err = (outcome as PromiseRejectedResult).reason as LedgerError;
      assert.equal(err.code, 'conflict');
      assert.match(err.message, said);
      assert.doesNotMatch(err.message, /duplicate key|constraint/);
    };
    try {
      const typeColumns = 'INSERT INTO task_types (type_id, project_id, name, variables, duplicate_handling, max_retries, lease_minutes, created_at)';
      const added = await racing(`${typeColumns} VALUES ('held', 'p', 'default', '[]', 'allow', 3, 10, $1)`, [at()], () =>
        ledger.queue.addTasks('p', [{ id: 't1', typeId: '', instructions: 'first task', variables: null, variablesKey: null }], at(), operator),
      );
      assert.equal(added.status, 'fulfilled', added.status === 'rejected' ? String(added.reason) : '');
      const [outcome] = (added as PromiseFulfilledResult<AddOutcome[]>).value;
      assert.equal(outcome!.kind, 'created');
      assert.equal((outcome as { task: { typeId: string } }).task.typeId, 'held', 'the task took the default type the other writer made');
      assert.deepEqual(
        (await ledger.queue.listTaskTypes('p')).map((t) => [t.id, t.name]),
        [['held', 'default']],
      );

      refused(
        await racing(`${typeColumns} VALUES ('held2', 'p', 'review', '[]', 'allow', 3, 10, $1)`, [at()], () =>
          ledger.queue.createTaskType(
            {
              id: 'mine',
              projectId: 'p',
              name: 'review',
              template: null,
              variables: [],
              duplicateHandling: 'allow',
              maxRetries: undefined,
              leaseDurationMinutes: undefined,
              at: at(),
            },
            operator,
          ),
        ),
        /Task type "review" already exists in project p/,
      );
      refused(
        await racing("INSERT INTO projects (project_id, name, created_at, status) VALUES ('q', 'q', $1, 'active')", [at()], () =>
          ledger.queue.createProject({ projectId: 'q', description: '', config, at: at() }, operator),
        ),
        /Project q already exists/,
      );
      refused(
        await racing("INSERT INTO agents (project_id, name, key_hash, status, connected_at, last_seen) VALUES ('p', 'a1', 'k', 'idle', $1, $1)", [at()], () =>
          ledger.queue.registerAgent({ name: 'a1', projectId: 'p', keyHash: 'mine', sessionId: null, at: at() }, operator),
        ),
        /Agent name "a1" is already registered in project p/,
      );
      // Nothing of the refused calls was written: the rows are the other writer's.
      assert.deepEqual((await ledger.queue.listTaskTypes('p')).map((t) => t.id).sort(), ['held', 'held2']);
      assert.equal((await ledger.queue.agentAuth('p', 'a1'))?.keyHash, 'k');
      const audit = await other.query<{ action: string }>('SELECT action FROM queue_audit ORDER BY id');
      assert.deepEqual(
        audit.rows.map((r) => r.action),
        ['project_created', 'task_added'],
      );
    } finally {
      await other.end();
    }
  });

  it('reaps each expired lease once when the reaper runs on every server at once', async () => {
    const url = await server().createDatabase();
    const servers = await Promise.all([open(url), open(url), open(url), open(url)]);
    const q0 = servers[0]!.queue;
    const start = '2026-01-01T00:00:00.000Z';
    await q0.createProject({ projectId: 'r', description: '', config: { defaultMaxRetries: 3, defaultLeaseDurationMinutes: 1, reaperIntervalMinutes: 1 }, at: start }, operator);
    await q0.addTasks(
      'r',
      Array.from({ length: 60 }, (_, i) => ({ id: `r${i}`, typeId: '', instructions: 'x', variables: null, variablesKey: null })),
      start,
      operator,
    );
    for (let i = 0; i < 60; i++) {
      await q0.registerAgent({ name: `a${i}`, projectId: 'r', keyHash: `k${i}`, sessionId: null, at: start }, operator);
      assert.equal((await q0.requestTask('r', `a${i}`, start)).kind, 'assigned');
    }
    const later = '2026-01-01T00:05:00.000Z';
    const results = await Promise.all(servers.flatMap((s) => [s.queue.reapExpired(later), s.queue.reapExpired(later)]));
    assert.equal(
      results.reduce((n, r) => n + r.requeued, 0),
      60,
      `requeued in all: ${JSON.stringify(results)}`,
    );
    assert.equal(
      results.reduce((n, r) => n + r.failed, 0),
      0,
    );
    const { tasks } = await q0.listTasks('r', { limit: 100, offset: 0 });
    assert.ok(
      tasks.every((t) => t.status === 'queued' && t.retryCount === 1),
      'each lease reaped once: one retry counted',
    );
    for (const t of tasks.slice(0, 5))
      assert.deepEqual(
        (await q0.taskHistory(t.id))?.map((a) => a.status),
        ['timeout'],
      );
  });

  it('announces a write on one server to the others through LISTEN/NOTIFY, as foreign', async () => {
    const url = await server().createDatabase();
    const writer = await open(url);
    const view = await open(url, true);
    const seen: { foreign: boolean; maintenance: boolean }[] = [];
    view.onDidChange((c) => seen.push(c));
    const own: { foreign: boolean }[] = [];
    writer.onDidChange((c) => own.push(c));
    await writer.progress.insertEntry({ id: 'n1', projectId: 'p', title: 't', content: 'c', createdAt: new Date().toISOString(), tags: [], agentId: null });
    const deadline = Date.now() + 30_000;
    while (!seen.some((c) => c.foreign) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, [{ foreign: true, maintenance: false }]);
    assert.deepEqual(own, [{ foreign: false, maintenance: false }]);
  });

  it("answers a repeated search from its saved answer while the project's entries are unchanged, and like a fresh server after another server changes them", async () => {
    const url = await server().createDatabase();
    const a = await open(url);
    const b = await open(url);
    const at = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const entry = (id: string, projectId: string, i: number, title: string, content: string, tags: string[] = []) =>
      ({ id, projectId, title, content, createdAt: at(i), tags, agentId: null }) as const;
    for (let i = 0; i < 30; i++) {
      await a.progress.insertEntry(entry(`p${i}`, 'p', i, `note ${i} alpha`, `alpha beta ${'gamma '.repeat(i % 4)}delta ${i}`, i % 3 === 0 ? ['auth'] : []));
    }
    for (let i = 0; i < 5; i++) await a.progress.insertEntry(entry(`q${i}`, 'q', i, `other ${i}`, 'alpha elsewhere'));
    const queries = [
      { projectId: 'p', text: 'alpha', limit: 10 },
      { projectId: 'p', text: '"alpha beta" gamma', limit: 5, offset: 5 },
      { projectId: 'p', text: 'delta -gamma', limit: 10 },
      { projectId: 'p', query: 'note', limit: 10 },
      { projectId: 'p', query: 'note', tags: ['auth'], startDate: at(3), limit: 10 },
      { projectId: 'p', text: 'nothingmatches', limit: 10 },
      { projectId: undefined, text: 'alpha', limit: 10 },
      { projectId: 'q', text: 'alpha', limit: 10 },
      { projectId: 'p', query: 'note', tags: ['auth'], limit: 20 },
    ];
    type Stats = { savedAnswers: number; grown: number };
    const stats = (l: Ledger): Stats => ({ ...(l.progress as unknown as { stats: Stats }).stats });
    /** Each query on `a` and on a server opened now, which has saved nothing: the same pages; how `a` answered each. */
    const check = async (label: string): Promise<string[]> => {
      const fresh = await open(url);
      const how: string[] = [];
      for (const q of queries) {
        const before = stats(a);
        assert.deepEqual(await a.progress.searchEntries(q), await fresh.progress.searchEntries(q), `${label}: ${JSON.stringify(q)}`);
        const after = stats(a);
        how.push(after.grown > before.grown ? 'grown' : after.savedAnswers > before.savedAnswers ? 'saved' : 'fresh');
      }
      const again = stats(a).savedAnswers;
      for (const q of queries) assert.deepEqual(await a.progress.searchEntries(q), await fresh.progress.searchEntries(q), `${label}, again: ${JSON.stringify(q)}`);
      assert.equal(stats(a).savedAnswers - again, queries.length, `${label}: every answer saved after`);
      return how;
    };
    assert.deepEqual(await check('first'), Array(queries.length).fill('fresh'));
    const pageOf = async (l: Ledger) => (await l.progress.searchEntries(queries[0]!)).entries;
    assert.equal((await pageOf(a)).length, 10);

    // Another server adds an entry to project p, newest and best for "alpha": the searches it
    // changes are answered afresh; those it leaves as they were (not a hit, or none at all) grow
    // their saved answer; project q's and every project's are saved and afresh.
    await b.progress.insertEntry(entry('p-new', 'p', 40, 'note new alpha alpha', 'alpha beta gamma delta new'));
    const afterNew = await check('after an insert by another server');
    assert.deepEqual(
      [0, 2, 3, 4, 5, 6, 7].map((i) => afterNew[i]),
      ['fresh', 'grown', 'fresh', 'grown', 'grown', 'fresh', 'saved'],
      afterNew.join(' '),
    );
    assert.ok(
      (await pageOf(a)).some((e) => e.id === 'p-new'),
      'the new entry ranks on the first page',
    );

    // An entry older than every other, whose only "alpha" is deep in a long text: it orders after
    // the pages of "alpha" and of "note", which grow to count it.
    await b.progress.insertEntry(entry('p-old', 'p', -5, 'note old', `${'filler words here '.repeat(40)}alpha`));
    const afterOld = await check('after an insert ordered last');
    assert.deepEqual([afterOld[0], afterOld[3], afterOld[7]], ['grown', 'grown', 'saved'], afterOld.join(' '));

    // A hit ordered after the last row of a page that was not full belongs on it: afresh. The
    // full page of "note" grows.
    await b.progress.insertEntry(entry('p-tagged', 'p', -6, 'note tagged', 'tagged', ['auth']));
    const afterTagged = await check('after a hit ordered last, below a page not full');
    assert.deepEqual([afterTagged[3], afterTagged[8]], ['grown', 'fresh'], afterTagged.join(' '));

    // Two entries written at once by two servers, one of them a hit ordered last: grown too.
    await Promise.all([b.progress.insertEntry(entry('p-two-1', 'p', -4, 'note two', 'nothing here')), a.progress.insertEntry(entry('p-two-2', 'p', -3, 'other', 'zeta'))]);
    assert.equal((await check('after two inserts at once'))[3], 'grown');

    // A summary written elsewhere shows on a saved answer (it is read again every time).
    const listed = (await pageOf(a))[0]!;
    assert.equal(listed.hasSummary, false);
    await b.progress.saveSummary('p', listed.id, 'summarised', 'fallback');
    assert.equal((await pageOf(a))[0]!.hasSummary, true);

    // A deletion answers every search of the project afresh (the epoch moved).
    const afterDelete = await check('after a deletion');
    assert.deepEqual(afterDelete.slice(0, 6), Array(6).fill('saved'));
    await b.transfer.deleteEntriesBefore({ before: at(10), projectId: 'p' });
    assert.deepEqual((await check('after a deletion')).slice(0, 7), Array(7).fill('fresh'));

    // A search vector changed in place (as re-indexing on open does).
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("UPDATE log_entries SET search = setweight(to_tsvector('simple', 'renamed'), 'A') WHERE id = 'p20'");
      assert.deepEqual((await check('after a re-index')).slice(0, 7), Array(7).fill('fresh'));
      // An entry numbered below the largest the answers saw, committed after them (as a writer
      // whose number was drawn first but whose transaction ended last): not among the entries
      // above that number, so the count tells, and the title search it heads is answered afresh.
      await client.query(
        `INSERT INTO log_entries (n, id, project_id, created_at, title, title_fold, tags, content, search)
         VALUES (-5, 'p-late', 'p', $1, 'note late', 'note late', '[]', 'nothing', setweight(to_tsvector('simple', 'note late'), 'A') || setweight(to_tsvector('simple', 'nothing'), 'B'))`,
        [at(50)],
      );
      const afterLate = await check('after an entry numbered below those seen');
      assert.deepEqual([afterLate[0], afterLate[3]], ['fresh', 'fresh'], afterLate.join(' '));
      // An entry gone without its project's version moving (triggers off, as no writer of ours
      // does): the saved answer finds its row missing and the search is answered afresh.
      await client.query('BEGIN');
      await client.query("SET LOCAL session_replication_role = 'replica'");
      await client.query("DELETE FROM log_entries WHERE id = 'p-new'");
      await client.query('COMMIT');
      const before = stats(a).savedAnswers;
      assert.ok(!(await pageOf(a)).some((e) => e.id === 'p-new'));
      assert.equal(stats(a).savedAnswers, before);
    } finally {
      await client.end();
    }
  });

  it('grows a saved ranked answer past its candidates only while the page stays as a fresh search orders it', async () => {
    const url = await server().createDatabase();
    const a = await open(url);
    const b = await open(url);
    // Five candidates, so that a dozen hits go past them (the store ranks 1,000).
    const storeOf = (l: Ledger): PgProgressStore => new PgProgressStore((l.progress as unknown as { engine: PgEngine }).engine, 5);
    const saving = storeOf(a);
    const at = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    let made = 0;
    const add = (title: string, content: string, i: number) =>
      b.progress.insertEntry({ id: `e${made++}`, projectId: 'p', title, content, createdAt: at(i), tags: [], agentId: null });
    // Three title hits whose long texts rank them low, and nine short content hits that rank
    // above them: the five candidates (chosen by the title first) are the three and two short
    // ones, and those two head the ranked order, on the first page.
    const long = (from: number): string => Array.from({ length: 150 }, (_, i) => `w${from + i}`).join(' ');
    for (let i = 0; i < 3; i++) await add('alpha', long(i * 1000), i);
    for (let i = 3; i < 12; i++) await add(`plain ${i}`, `alpha word ${i}`, i);
    const pages = [...[0, 3, 6, 9].map((offset) => ({ projectId: 'p', text: 'alpha', limit: 3, offset })), { projectId: 'p', text: 'alpha', limit: 1 }];
    const how = async (label: string): Promise<string[]> => {
      const fresh = storeOf(await open(url));
      const out: string[] = [];
      for (const q of pages) {
        const before = { ...saving.stats };
        assert.deepEqual(await saving.searchEntries(q), await fresh.searchEntries(q), `${label}: ${JSON.stringify(q)}`);
        out.push(saving.stats.grown > before.grown ? 'grown' : saving.stats.savedAnswers > before.savedAnswers ? 'saved' : 'fresh');
      }
      return out;
    };
    assert.deepEqual(await how('first'), Array(5).fill('fresh'));
    assert.deepEqual(await how('again'), Array(5).fill('saved'));
    // A long text with one "alpha" and no title hit: last in the first stage's order, it goes to
    // the end of the other hits, and every page grows.
    await add('plain', `${long(9000)} alpha`, -10);
    assert.deepEqual(await how('a hit ordered last'), Array(5).fill('grown'));
    // A title hit ranked as low as the others: it joins the candidates and pushes out their last,
    // which is on the first page, so that page is answered afresh (and so is the second, which
    // reaches past the candidates).
    await add('alpha', long(5000), -9);
    // The one-row page holds only the best hit: it grows, and its answer no longer knows which
    // candidate is last.
    const joined = await how('a hit that pushes out a candidate on the page');
    assert.deepEqual([joined[0], joined[1], joined[4]], ['fresh', 'fresh', 'grown'], joined.join(' '));
    // So the next hit, wherever it orders, answers the one-row page afresh.
    await add('plain more', `${long(8000)} alpha`, -11);
    assert.equal((await how('a hit past candidates whose last is not known'))[4], 'fresh');
    // Each kind again, over answers saved afresh and grown: every page still as a fresh search orders it.
    await add('plain again', `${long(7000)} alpha`, -8);
    await how('another hit ordered last');
    await add('alpha alpha', 'alpha alpha', -7);
    await how('a hit ranked first');
    assert.ok(saving.stats.grown >= 2, `grown ${saving.stats.grown}`);
  });

  it('copies a ledger file into a database that holds other records only with force, adding to them, counts checked', async () => {
    const file = path.join(tempDir(), 'local.db');
    const local = await openLedger({ file, checkpoint: false });
    for (let i = 0; i < 5; i++)
      await local.progress.insertEntry({
        id: `l${i}`,
        projectId: 'mine',
        title: `Local ${i}`,
        content: 'c',
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        tags: ['x'],
        agentId: null,
      });
    await local.close();
    const url = await server().createDatabase();
    const team = await open(url);
    await team.progress.insertEntry({ id: 't0', projectId: 'team', title: 'Already there', content: 'c', createdAt: new Date().toISOString(), tags: [], agentId: null });
    await assert.rejects(
      copyLedger({ from: file, to: url }),
      (err: unknown) => isLedgerError(err) && err.code === 'conflict' && /entries: 1/.test(err.message) && !err.message.includes(PG_TEST_PASSWORD),
    );
    assert.equal((await team.progress.listProjects()).length, 1, 'nothing was copied');
    const result = await copyLedger({ from: file, to: url, force: true });
    const entries = result.counts.find((c) => c.collection === 'entries')!;
    assert.deepEqual([entries.source, entries.before, entries.copied, entries.after], [5, 1, 5, 6]);
    assert.ok(!result.to.includes(PG_TEST_PASSWORD) && result.to.includes('[redacted]'));
    assert.deepEqual((await team.progress.listProjects()).map((p) => [p.projectId, p.entryCount]).sort(), [
      ['mine', 5],
      ['team', 1],
    ]);
    assert.equal((await team.progress.searchEntries({ projectId: 'mine', tags: ['x'], limit: 10 })).total, 5, 'tags come across');
    await assert.rejects(copyLedger({ from: url, to: url }), /same ledger/);
  });

  it('refuses a wrong password or an unreachable server with a clear error that never shows the password', async () => {
    const good = await server().createDatabase();
    const wrong = good.replace(PG_TEST_PASSWORD, 'wrong-password-123');
    await assert.rejects(openLedger({ file: '', databaseUrl: wrong }), (err: unknown) => {
      assert.ok(isLedgerError(err));
      assert.equal(err.code, 'permission_denied');
      assert.match(err.message, /refused the login for postgres:\/\/postgres:\[redacted\]@/);
      assert.ok(!err.message.includes('wrong-password-123'));
      return true;
    });
    await assert.rejects(openLedger({ file: '', databaseUrl: `postgres://ap:${PG_TEST_PASSWORD}@127.0.0.1:1/x` }), (err: unknown) => {
      assert.ok(isLedgerError(err));
      assert.equal(err.code, 'unavailable');
      assert.ok(!err.message.includes(PG_TEST_PASSWORD));
      return true;
    });
    // A user who may connect but not create tables (PostgreSQL 15 grants no CREATE on public).
    const admin = new pg.Client({ connectionString: good });
    await admin.connect();
    try {
      await admin.query("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ap_reader') THEN CREATE ROLE ap_reader LOGIN PASSWORD 'reader-pw-123'; END IF; END $$");
    } finally {
      await admin.end();
    }
    const reader = good.replace(`postgres:${PG_TEST_PASSWORD}@`, 'ap_reader:reader-pw-123@');
    await assert.rejects(openLedger({ file: '', databaseUrl: reader }), (err: unknown) => {
      assert.ok(isLedgerError(err));
      assert.equal(err.code, 'permission_denied');
      assert.match(err.message, /needs to own the database, or have CREATE on its schema/);
      assert.ok(!err.message.includes('reader-pw-123'));
      return true;
    });
    const missing = good.replace(/\/[^/]+$/, '/no_such_db');
    await assert.rejects(openLedger({ file: '', databaseUrl: missing }), /does not exist: create it/);
    const ledger = await open(good);
    assert.equal((await ledger.stats()).backend, 'postgres');
    assert.ok(!ledger.location.includes(PG_TEST_PASSWORD));
    assert.ok(!JSON.stringify(await ledger.stats()).includes(PG_TEST_PASSWORD));
  });
});
