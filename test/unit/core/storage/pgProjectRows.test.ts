// The statements a search or a listing runs on PostgreSQL read the projects table by its primary
// key when the table holds more pages than rows: what a ledger copied in one transaction leaves
// (every entry written updates its project's row, and the old versions' pages stay after VACUUM
// while the live row is the last one written). A plain scan of them is paid by every search that
// reads every project: 2,201 pages at 100k copied entries (progressRepo.ts, PROJECT_ROWS). The
// statements the store really sends are recorded from the driver and explained by PostgreSQL's
// own planner on such a table.

import * as assert from 'node:assert/strict';
import pg from 'pg';
import { openLedger } from '../../../../src/core/storage/openLedger';
import type { PgEngine } from '../../../../src/core/storage/postgres/engine';
import { PgProgressStore } from '../../../../src/core/storage/postgres/progressRepo';
import type { Ledger } from '../../../../src/core/storage/store';
import { usePostgres } from '../../../helpers/postgres';

interface Sent {
  text: string;
  values: unknown[];
}

/** Runs `fn` and returns the statements with parameters every pg client of this process sent meanwhile. */
async function recorded(fn: () => Promise<void>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] === 'string' && Array.isArray(args[1])) sent.push({ text: args[0], values: args[1] as unknown[] });
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.query = original;
  }
  return sent;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe('PostgreSQL searches read the projects table by its key, whatever its dead rows', function () {
  this.timeout(120_000);
  const server = usePostgres();
  let ledger: Ledger | undefined;
  let admin: pg.Client | undefined;
  afterEach(async () => {
    await ledger?.close();
    ledger = undefined;
    await admin?.end();
    admin = undefined;
  });

  it('sends no sequential scan of a bloated projects table in ranked searches, listings and the project list', async () => {
    const url = await server().createDatabase();
    ledger = await openLedger({ file: '/unused', databaseUrl: url });
    const words = ['amber', 'basalt', 'cobalt', 'dune', 'ember'];
    for (let i = 0; i < 40; i++) {
      await ledger.progress.insertEntry({
        id: `e${i}`,
        projectId: i % 2 === 0 ? 'p' : 'q',
        title: `${words[i % 5]} step ${i}`,
        content: `the ${words[(i + 1) % 5]} and the ${words[(i + 2) % 5]} of run ${i}`,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        tags: [],
        agentId: null,
      });
    }
    // What a copy in one transaction leaves: many versions of a project's row, the live one last.
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("DO $$ BEGIN FOR i IN 1..4000 LOOP UPDATE projects SET name = name WHERE project_id = 'p'; END LOOP; END $$");
    await admin.query('VACUUM projects');
    const size = (await admin.query<{ pages: string; rows: string }>("SELECT pg_relation_size('projects') / 8192 AS pages, (SELECT count(*) FROM projects) AS rows")).rows[0]!;
    assert.equal(Number(size.rows), 2);
    assert.ok(Number(size.pages) >= 40, `the projects table kept ${size.pages} pages after VACUUM: not the table this test needs`);

    const engine = (ledger.progress as unknown as { engine: PgEngine }).engine;
    const indexed = new PgProgressStore(engine, 100, { memoryIndex: true });
    await indexed.prepareSearch();
    const plain = new PgProgressStore(engine, 100);
    const sent = await recorded(async () => {
      // The index's searches (one project, every project), SQL's, a listing of every project, the project list.
      for (const projectId of ['p', undefined]) {
        const page = await indexed.searchEntries({ projectId, text: 'amber', limit: 5 });
        assert.ok(page.total > 0);
        const sql = await plain.searchEntries({ projectId, text: 'basalt', limit: 5 });
        assert.ok(sql.total > 0);
      }
      assert.equal((await plain.searchEntries({ projectId: undefined, limit: 5 })).total, 40);
      assert.equal((await indexed.listProjects()).length, 2);
    });
    assert.equal(indexed.stats.indexAnswers, 2, 'the index answered both of its searches');

    const reading = sent.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.text) && /\bprojects\b/.test(s.text));
    assert.ok(reading.length >= 5, `only ${reading.length} statements reading projects were sent`);
    const scans: string[] = [];
    for (const s of reading) {
      const plan = (await admin.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${s.text}`, s.values)).rows[0]!['QUERY PLAN'][0]!.Plan;
      if (nodes(plan).some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'projects')) scans.push(s.text.replace(/\s+/g, ' ').slice(0, 160));
    }
    assert.deepEqual(scans, [], 'statements that scan every page of projects');
  });
});
