// What the phrase-words pass after open costs on PostgreSQL (progressRepo.ts markPhraseWords), on a
// throwaway cluster: over --size entries that a bulk INSERT wrote without phrase words (as a
// server of an older build or bench/pgLoad.mjs leaves them), over a tail of 1,000 such entries
// written since the last pass, and when nothing was written since. Each kind is measured --runs
// times, interleaved; the load average is printed with every figure.
//   node bench/pgPhraseWords.mjs [--size 100000] [--runs 3]
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import pg from 'pg';
import { createCorpus } from './corpus.mjs';
import { createDatabase, startCluster } from './pgCluster.mjs';
import { loadPostgres } from './pgLoad.mjs';

const argv = process.argv.slice(2);
const option = (n, f) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : f);
const SIZE = Number(option('--size', '100000'));
const RUNS = Number(option('--runs', '3'));
const TAIL = 1000;
const load = () => os.loadavg()[0].toFixed(1);
const say = (s) => console.log(`[${new Date().toISOString().slice(11, 19)} load ${load()}] ${s}`);
const cleanups = [];
const corpus = createCorpus({ total: SIZE });
// Entries whose vectors lose positions (300 of a word, then the phrase), which the pass marks.
const LONG = 5;

try {
  const admin = await startCluster(cleanups);
  const url = await createDatabase(admin);
  say(`loading ${SIZE} entries without phrase words`);
  const harness = await loadPostgres(url, corpus, SIZE, say);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const insertLong = async (k) =>
    c.query(
      `INSERT INTO log_entries (id, project_id, created_at, title, title_fold, content, search)
       SELECT $1, project_id, created_at, 'long', 'long', $2, setweight(to_tsvector('simple', 'long'), 'A') || setweight(to_tsvector('simple', $2), 'B') FROM log_entries ORDER BY n DESC LIMIT 1`,
      [`long-${k}`, `${'ping '.repeat(300)}pong`],
    );
  for (let k = 0; k < LONG; k++) await insertLong(k);
  await c.query('VACUUM ANALYZE log_entries');
  const found = async (l) => (await l.progress.searchEntries({ projectId: undefined, text: '"ping pong"', limit: 50 })).total;
  /** Opens the ledger, waits for its pass: open ms, pass ms (after open), entries marked, "ping pong" hits. */
  async function openAndPass() {
    const t0 = performance.now();
    const l = await harness.openLedger({ file: '/unused', databaseUrl: url });
    const t1 = performance.now();
    const marked = await l.progress.phraseWordsPass;
    const t2 = performance.now();
    const hits = await found(l);
    await l.close();
    return { open: t1 - t0, pass: t2 - t1, marked, hits };
  }
  const row = (label, r) => say(`${label}: open ${r.open.toFixed(0)} ms, pass ${r.pass.toFixed(0)} ms, marked ${r.marked}, "ping pong" hits ${r.hits}`);
  let next = SIZE;
  for (let run = 1; run <= RUNS; run++) {
    // The whole ledger unchecked: as after an upgrade from a build without the mark.
    await c.query("DELETE FROM ap_meta WHERE key IN ('phrase_words_checked', 'phrase_words_pass')");
    await c.query("UPDATE log_entries SET phrase_words = NULL WHERE id LIKE 'long-%'");
    row(`run ${run}, ${SIZE + LONG + (next - SIZE)} entries unchecked`, await openAndPass());
    row(`run ${run}, nothing new`, await openAndPass());
    await loadPostgres(url, corpus, TAIL - 1, () => undefined, next);
    next += TAIL - 1;
    await insertLong(`t${run}`);
    row(`run ${run}, a tail of ${TAIL} entries (1 to mark)`, await openAndPass());
  }
  await c.end();
  say(
    `uptime: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const f of cleanups.reverse()) await f();
}
