// The bench corpus loaded into a PostgreSQL ledger in bulk (bench/search.mjs, bench/pgTopPostings.mjs).
import pg from 'pg';

/**
 * `size` entries of `corpus` into the PostgreSQL ledger at `url`: its schema made by openLedger, rows
 * 1,000 per statement, vectors and tags as insertEntry writes them (but no phrase words: what a
 * bulk INSERT or an older build leaves to the pass after open). Entries `from` on, so that a
 * second call appends the next ones. Returns the bench harness used.
 */
export async function loadPostgres(url, corpus, size, say, from = 0) {
  const { loadHarness } = await import('./harnessLoader.mjs');
  const harness = await loadHarness();
  const ledger = await harness.openLedger({ file: '/unused', databaseUrl: url });
  await ledger.close();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (let i = from; i < from + size; i += 1000) {
      const rows = [];
      for (let k = i; k < Math.min(from + size, i + 1000); k++) rows.push({ ...corpus.make(k), id: `h${String(k).padStart(9, '0')}` });
      const col = (f) => rows.map(f);
      await c.query('BEGIN');
      for (const p of new Set(col((r) => r.projectId)))
        await c.query('INSERT INTO projects (project_id, name, created_at) VALUES ($1, $1, $2) ON CONFLICT DO NOTHING', [p, rows[0].createdAt]);
      await c.query(
        `INSERT INTO log_entries (id, project_id, created_at, title, title_fold, tags, agent_id, content, search)
         SELECT id, p, c, t, tf, tg, a, ct, setweight(to_tsvector('simple', tw), 'A') || setweight(to_tsvector('simple', cw), 'B')
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) AS u(id, p, c, t, tf, tg, a, ct, tw, cw)`,
        [
          col((r) => r.id),
          col((r) => r.projectId),
          col((r) => r.createdAt),
          col((r) => r.title),
          col((r) => harness.fold(r.title)),
          col((r) => JSON.stringify(r.tags)),
          col((r) => r.agentId),
          col((r) => r.content),
          col((r) => harness.searchWords(r.title)),
          col((r) => harness.searchWords(r.content)),
        ],
      );
      const tags = rows.flatMap((r) => r.tags.map((t) => [r.id, t]));
      await c.query(
        `INSERT INTO entry_tags (tag_fold, project_id, created_at, entry_n, tag)
         SELECT u.tf, e.project_id, e.created_at, e.n, u.tag FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, tag, tf) JOIN log_entries e ON e.id = u.id
         ON CONFLICT DO NOTHING`,
        [tags.map((t) => t[0]), tags.map((t) => t[1]), tags.map((t) => harness.fold(t[1]))],
      );
      await c.query('COMMIT');
      if ((i / 1000) % 20 === 19) say(`  PostgreSQL: loaded ${i + 1000}`);
    }
  } finally {
    await c.end();
  }
  return harness;
}
