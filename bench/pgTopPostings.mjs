// Probe for task h16-pg: what a top-K postings design for PostgreSQL costs and gains at --size
// entries, measured in SQL on a throwaway cluster (no MCP). Per frequent word (in >= --frac of the
// entries) word_top keeps every entry whose ts_rank for that word is >= the word's cut (the rank
// of its K-th best entry when built); word_cut holds the cuts. Invariant: word_top holds ALL
// entries with rank >= cut, so a page of offset+limit rows read from it (after filters) is exact;
// a short page falls back to the present path. Totals from the GIN index (count). No counter rows.
//   node bench/pgTopPostings.mjs [--size 100000] [--variants K:fraction,...]   (default 1000:0.01)
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import pg from 'pg';
import { BENCH_PROJECT, createCorpus } from './corpus.mjs';
import { createDatabase, startCluster } from './pgCluster.mjs';
import { loadPostgres } from './pgLoad.mjs';

const argv = process.argv.slice(2);
const option = (n, f) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : f);
const SIZE = Number(option('--size', '100000'));
// Variants K:fraction, each built and measured in turn on the same ledger.
const VARIANTS = option('--variants', '1000:0.01')
  .split(',')
  .map((v) => v.split(':').map(Number));
const say = (s) => console.log(`[${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(1)}] ${s}`);
const W = "'{0.1, 0.2, 0.5, 1.0}'";
const cleanups = [];
const corpus = createCorpus({ total: SIZE });

async function timed(c, sql, params, n = 10) {
  const t = [];
  let r;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    r = await c.query(sql, params);
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { p50: t[Math.floor(n / 2)], first: t[0], rows: r.rows };
}

const MAIN_ORDER = `WITH hits AS MATERIALIZED (
   SELECT e.n, e.created_at, e.search_size, ts_rank(${W}, e.title_search, to_tsquery('simple', $1), 0) AS pre FROM log_entries e WHERE e.project_id = $2 AND e.search @@ to_tsquery('simple', $1)),
 cand AS MATERIALIZED (SELECT n FROM hits ORDER BY pre DESC, search_size, created_at DESC, n DESC LIMIT 100),
 ordered AS (SELECT c.n, 0 AS grp, ts_rank(${W}, e.search, to_tsquery('simple', $1), 1) AS rank, 0::real AS pre, 0 AS search_size, e.created_at FROM cand c JOIN log_entries e ON e.n = c.n)
 SELECT n, (SELECT count(*) FROM hits) AS total FROM ordered ORDER BY grp, rank DESC, pre DESC, search_size, created_at DESC, n DESC LIMIT 20`;
const COUNT = `SELECT count(*) AS total FROM log_entries e WHERE e.project_id = $2 AND e.search @@ to_tsquery('simple', $1)`;
const TOP = `SELECT w.entry_n AS n FROM word_top w JOIN log_entries e ON e.n = w.entry_n WHERE w.word = $1 AND e.project_id = $2
  ORDER BY w.rank DESC, e.created_at DESC, e.n DESC LIMIT 20`;
const EXACT = `SELECT e.n FROM log_entries e WHERE e.project_id = $2 AND e.search @@ to_tsquery('simple', $1)
  ORDER BY ts_rank(${W}, e.search, to_tsquery('simple', $1), 1) DESC, e.created_at DESC, e.n DESC LIMIT 20`;

try {
  const admin = await startCluster(cleanups);
  const url = await createDatabase(admin);
  say(`loading ${SIZE}`);
  let t0 = performance.now();
  await loadPostgres(url, corpus, SIZE, say);
  say(`loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('VACUUM ANALYZE log_entries');
  const size = async (rel) => Number((await c.query(`SELECT pg_total_relation_size('${rel}') AS b`)).rows[0].b);
  say(`log_entries ${(await size('log_entries')) / 1e6} MB`);
  const cnt = Number((await c.query('SELECT count(*) FROM log_entries')).rows[0].count);
  // Which words are frequent: document frequency of every lexeme (reads every vector once).
  t0 = performance.now();
  await c.query(`CREATE TABLE df AS SELECT word, ndoc FROM ts_stat('SELECT search FROM log_entries')`);
  const dfMs = performance.now() - t0;
  for (const [K, FRAC] of VARIANTS) {
    say(`variant K ${K}, words in >= ${FRAC * 100}% of the entries`);
    const freq = (await c.query('SELECT word, ndoc FROM df WHERE ndoc >= $1 ORDER BY ndoc DESC', [Math.ceil(cnt * FRAC)])).rows;
    const allPostings = Number((await c.query('SELECT sum(ndoc) AS s FROM df')).rows[0].s);
    say(`df of every word in ${dfMs.toFixed(0)} ms; ${freq.length} words in >= ${FRAC * 100}% of ${cnt} entries; all postings ${allPostings}`);
    await c.query('DROP TABLE IF EXISTS word_top, word_cut');
    await c.query('DROP FUNCTION IF EXISTS ap_word_top_add');
    await c.query(`CREATE TABLE word_cut (word TEXT COLLATE "C" PRIMARY KEY, cut REAL NOT NULL)`);
    await c.query(`CREATE TABLE word_top (word TEXT COLLATE "C" NOT NULL, entry_n BIGINT NOT NULL REFERENCES log_entries (n) ON DELETE CASCADE, rank REAL NOT NULL)`);
    await c.query('CREATE INDEX idx_word_top_rank ON word_top (word, rank DESC)');
    await c.query('CREATE INDEX idx_word_top_entry ON word_top (entry_n)');
    // Built one word per transaction (a background job could do the same between searches).
    t0 = performance.now();
    const perWord = [];
    for (const { word } of freq) {
      const w0 = performance.now();
      await c.query('BEGIN');
      await c.query(
        `WITH r AS (SELECT e.n, ts_rank(${W}, e.search, quote_literal($1)::tsquery, 1) AS rank FROM log_entries e WHERE e.search @@ quote_literal($1)::tsquery),
              cut AS (SELECT rank FROM r ORDER BY rank DESC LIMIT 1 OFFSET ${K - 1}),
              ins AS (INSERT INTO word_top (word, entry_n, rank) SELECT $1, n, rank FROM r WHERE rank >= coalesce((SELECT rank FROM cut), '-infinity'::real))
         INSERT INTO word_cut (word, cut) VALUES ($1, coalesce((SELECT rank FROM cut), '-infinity'::real))`,
        [word],
      );
      await c.query('COMMIT');
      perWord.push(performance.now() - w0);
    }
    const buildMs = performance.now() - t0;
    await c.query('ANALYZE word_top, word_cut');
    perWord.sort((a, b) => a - b);
    const rows = Number((await c.query('SELECT count(*) FROM word_top')).rows[0].count);
    say(
      `built in ${buildMs.toFixed(0)} ms (per word p50 ${perWord[perWord.length >> 1]?.toFixed(0)} max ${perWord[perWord.length - 1]?.toFixed(0)} ms); ${rows} rows = ${((100 * rows) / allPostings).toFixed(2)}% of all postings; word_top ${(await size('word_top')) / 1e6} MB, word_cut ${(await size('word_cut')) / 1e6} MB`,
    );
    // Per-row trigger: a new entry's frequent words above their cut.
    await c.query(`CREATE FUNCTION ap_word_top_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO word_top (word, entry_n, rank)
          SELECT x.word, NEW.n, x.rank FROM (SELECT k.word, k.cut, ts_rank(${W}, NEW.search, quote_literal(k.word)::tsquery, 1) AS rank
            FROM unnest(tsvector_to_array(NEW.search)) u(lexeme) JOIN word_cut k ON k.word = u.lexeme) x WHERE x.rank >= x.cut;
        RETURN NULL;
      END $$`);
    const words = { the: 'the', durable: 'durable', upgraded: 'upgraded', catchvalue: 'catchvalue' };
    const out = [];
    for (const w of Object.values(words)) {
      const inTop = (await c.query('SELECT cut FROM word_cut WHERE word = $1', [w])).rows[0];
      const a = await timed(c, MAIN_ORDER, [w, BENCH_PROJECT]);
      const b = await timed(c, COUNT, [w, BENCH_PROJECT]);
      await c.query('SET enable_seqscan = off');
      const b2 = await timed(c, COUNT, [w, BENCH_PROJECT]);
      await c.query('RESET enable_seqscan');
      const d = inTop ? await timed(c, TOP, [w, BENCH_PROJECT]) : undefined;
      const ex = await timed(c, EXACT, [w, BENCH_PROJECT], 1);
      const same = d ? JSON.stringify(d.rows.map((r) => r.n)) === JSON.stringify(ex.rows.map((r) => r.n)) : 'n/a';
      const line = `${w}: hits ${b.rows[0].total}; main order+count ${a.p50.toFixed(1)} ms; count as planned ${b.p50.toFixed(1)} ms, from the GIN bitmap ${b2.p50.toFixed(1)} ms; top page ${d ? d.p50.toFixed(1) : '-'} ms; top page = exact ts_rank order: ${same}; load ${os.loadavg()[0].toFixed(1)}`;
      say(line);
      out.push(line);
    }
    // log_progress cost: one-row inserts, alternating without and with the trigger.
    const ins = `INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, content, search)
       SELECT $1, $2, $3, $4, $4, '[]', 'a', $5, setweight(to_tsvector('simple', $4), 'A') || setweight(to_tsvector('simple', $5), 'B')`;
    const times = { off: [], on: [] };
    let id = 0;
    for (let block = 0; block < 6; block++) {
      const on = block % 2 === 1;
      if (on) await c.query('CREATE TRIGGER log_entries_word_top AFTER INSERT ON log_entries FOR EACH ROW EXECUTE FUNCTION ap_word_top_add()');
      else await c.query('DROP TRIGGER IF EXISTS log_entries_word_top ON log_entries');
      for (let i = 0; i < 50; i++) {
        const e = corpus.make(i * 7 + block);
        const t = performance.now();
        await c.query(ins, [`x${K}-${FRAC}-${id++}`, BENCH_PROJECT, new Date().toISOString(), e.title, e.content]);
        times[on ? 'on' : 'off'].push(performance.now() - t);
      }
    }
    const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    const l2 = `one-row insert (autocommit, fsync on) p50: without trigger ${med(times.off).toFixed(2)} ms, with ${med(times.on).toFixed(2)} ms (150 each, alternating blocks of 50); load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')}`;
    say(l2);
    await c.query('DROP TRIGGER IF EXISTS log_entries_word_top ON log_entries');
  }
  await c.end();
} finally {
  for (const f of cleanups.reverse()) await f();
}
