// A measured try for issue 15, not a feature: PostgreSQL's ranked search answered from an index held
// in memory, with ts_rank computed as PostgreSQL computes it. The index is read from the entries'
// tsvectors (per entry and lexeme, its positions and how many are title (A) and content (B) ones,
// and per entry its number of positions); a query then scores every hit as
// ts_rank(RANK_WEIGHTS, search, query, 1) does (tsrank.c, in single precision, operands in
// PostgreSQL's order): words, prefixes and OR by calc_rank_or; AND, negation and phrases of two
// words by calc_rank_and, ranking the shortest hits first and stopping once no hit left can reach
// the 20th (a rank is at most 1 over its length normalization). It keeps the 20 best, checked
// against PostgreSQL's own ts_rank over every hit: the same total and the same 20 in the same
// order, or it says how many differ. Phrases of more than two words are not covered. Times the
// build (reading, parsing), its memory, and p50 per query in process (no MCP, no socket).
//   node bench/pgMemoryIndex.mjs [--size 100000] [--url postgres://...]   (no --url: a throwaway cluster loaded with --size bench entries)
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import pg from 'pg';
import { BENCH_PROJECT, createCorpus } from './corpus.mjs';
import { createDatabase, startCluster } from './pgCluster.mjs';
import { loadPostgres } from './pgLoad.mjs';

const argv = process.argv.slice(2);
const option = (n, fallback) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : fallback);
const SIZE = Number(option('--size', '100000'));
const URL = option('--url', undefined);
const say = (s) => console.error(`[${new Date().toISOString().slice(11, 19)} load ${os.loadavg()[0].toFixed(1)}] ${s}`);
/** src/core/storage/postgres/search.ts RANK_WEIGHTS: D, C, B, A. */
const RANK_WEIGHTS = '{0.1, 0.2, 0.5, 1.0}';
const f = Math.fround;
const WEIGHT = { A: f(1.0), B: f(0.5), C: f(0.2), D: f(0.1) };
const QUERIES = [
  'the',
  'durable',
  'upgraded',
  'catchvalue',
  'acquireheader',
  'upgr:*',
  'dur:*',
  'durable | upgraded',
  'catchvalue | upgr:*',
  'durable & upgraded',
  'catchvalue & durable',
  'durable & the',
  'durable & !upgraded',
  'the <-> durable',
  'of <-> the',
];
const cleanups = [];

/** Byte order, as a tsvector keeps its lexemes and PostgreSQL sorts a query's operands. */
const byBytes = (x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y));

/** The first index in [0, n) for which `before(i)` is false (`before` true then false along the range). */
function lowerBound(n, before) {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The 20 best of `candidates` by `rank` (then `n`, descending), ranking them in turn; with `bound`
 * (the most a candidate can rank, not rising along them), it stops once none left can reach the 20th.
 */
function keepBest(index, candidates, rankOf, bound) {
  const better = (x, y) => y.rank - x.rank || index.docN[y.d] - index.docN[x.d];
  const best = [];
  for (const d of candidates) {
    const worst = best.length === 20 ? best[19] : undefined;
    if (worst && bound && bound(d) < worst.rank) break;
    const rank = rankOf(d);
    // Not better than the 20th: a lower rank, or the same rank and a lower n.
    if (worst && (rank < worst.rank || (rank === worst.rank && index.docN[d] <= index.docN[worst.d]))) continue;
    best.push({ d, rank });
    best.sort(better);
    if (best.length > 20) best.pop();
  }
  return best.map((b) => index.docN[b.d]);
}

/**
 * Reads every entry's vector in batches; per lexeme, the entries that have it with their counts of
 * A and B positions (A first: the title's vector comes first in `search`). Returns the index.
 */
async function build(c) {
  const postings = new Map();
  const docN = [];
  const docLength = [];
  let last = 0;
  let fetchMs = 0;
  let parseMs = 0;
  for (;;) {
    let t = performance.now();
    const { rows } = await c.query('SELECT n, search::text AS s FROM log_entries WHERE project_id = $1 AND n > $2 ORDER BY n LIMIT 5000', [BENCH_PROJECT, last]);
    fetchMs += performance.now() - t;
    if (rows.length === 0) break;
    t = performance.now();
    for (const row of rows) {
      const doc = docN.length;
      docN.push(Number(row.n));
      last = Number(row.n);
      docLength.push(
        parseVector(row.s, (lexeme, a, b, positions) => {
          let p = postings.get(lexeme);
          if (!p) postings.set(lexeme, (p = { docs: [], a: [], b: [], positions: [] }));
          p.docs.push(doc);
          p.a.push(a);
          p.b.push(b);
          for (const position of positions) p.positions.push(position);
        }),
      );
    }
    parseMs += performance.now() - t;
  }
  // The lexemes in the vector's order (bytes), as a prefix's are summed; typed arrays from here on.
  const lexemes = [...postings.keys()].sort(byBytes);
  const lists = new Map();
  for (const lexeme of lexemes) {
    const p = postings.get(lexeme);
    lists.set(lexeme, { docs: Int32Array.from(p.docs), a: Uint16Array.from(p.a), b: Uint16Array.from(p.b), positions: Uint16Array.from(p.positions) });
  }
  postings.clear(); // the lists' arrays, garbage from here on (the heap figure is taken after a collection)
  return { lexemes, lists, docN: Float64Array.from(docN), norm: Float64Array.from(docLength, (l) => Math.log(l + 1) / Math.log(2.0)), fetchMs, parseMs };
}

/**
 * Calls `add(lexeme, A positions, B positions, the positions)` per lexeme of a tsvector's text
 * (the positions array is reused); returns its number of positions (cnt_length).
 */
function parseVector(s, add) {
  let length = 0;
  const positions = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] !== "'") {
      i++;
      continue;
    }
    let j = i + 1;
    let lexeme = '';
    for (;;) {
      const quote = s.indexOf("'", j);
      if (s[quote + 1] === "'") {
        lexeme += s.slice(j, quote + 1);
        j = quote + 2;
      } else {
        lexeme += s.slice(j, quote);
        j = quote + 1;
        break;
      }
    }
    lexeme = lexeme.replace(/\\\\/g, '\\');
    let a = 0;
    let b = 0;
    positions.length = 0;
    if (s[j] === ':') {
      j++;
      for (;;) {
        const from = j;
        while (s[j] >= '0' && s[j] <= '9') j++;
        positions.push(Number(s.slice(from, j)));
        const weight = s[j] === 'A' || s[j] === 'B' || s[j] === 'C' ? s[j++] : 'D';
        if (weight === 'A' && b > 0) throw new Error(`a title position after a content one in ${lexeme}`);
        if (weight === 'A') a++;
        else if (weight === 'B') b++;
        else throw new Error(`weight ${weight} in ${lexeme}: only A and B are written`);
        if (s[j] !== ',') break;
        j++;
      }
      length += a + b;
    } else length += 1;
    add(lexeme, a, b, positions);
    i = j;
  }
  return length;
}

/**
 * calc_rank_or's term for one lexeme of an entry: `a` positions weighted A, then `b` weighted B; a
 * lexeme without positions counts as one position of weight D, as PostgreSQL's POSNULL does.
 */
function lexemeScore(a, b) {
  if (a + b === 0) return f(f(WEIGHT.D + WEIGHT.D) - WEIGHT.D) / 1.64493406685;
  const top = a > 0 ? WEIGHT.A : WEIGHT.B;
  let sum = f(0);
  for (let j = 0; j < a + b; j++) sum = f(sum + f((j < a ? WEIGHT.A : WEIGHT.B) / ((j + 1) * (j + 1))));
  return f(f(top + sum) - top) / 1.64493406685;
}

/** word_distance in tsrank.c. */
function wordDistance(distance) {
  if (distance > 100) return f(1e-30);
  return f(1.0 / (1.005 + 0.05 * Math.exp(f(distance) / 1.5 - 2)));
}

/** Where an entry's postings start in a list's positions: running sums of its counts, made on first use. */
function starts(list) {
  if (!list.starts) {
    list.starts = new Int32Array(list.docs.length + 1);
    for (let i = 0; i < list.docs.length; i++) list.starts[i + 1] = list.starts[i] + list.a[i] + list.b[i];
  }
  return list.starts;
}

/** The index of `doc` in a list's entries, or -1. */
function find(list, doc) {
  const at = lowerBound(list.docs.length, (i) => list.docs[i] < doc);
  return list.docs[at] === doc ? at : -1;
}

/**
 * calc_rank_and for one entry: every pair of positions of two different operands (negated ones
 * too, as PostgreSQL counts them), in its order, combined as 1 - prod(1 - w). -1 when no pair.
 */
function andScore(lists, doc) {
  let res = f(-1);
  const held = [];
  for (let i = 0; i < lists.length; i++) {
    const list = lists[i];
    const at = list ? find(list, doc) : -1;
    if (at < 0) {
      held.push(undefined);
      continue;
    }
    const from = starts(list)[at];
    const mine = { positions: list.positions.subarray(from, from + list.a[at] + list.b[at]), a: list.a[at] };
    if (mine.positions.length === 0) throw new Error('a lexeme without positions in an AND: not covered');
    for (let k = 0; k < i; k++) {
      const other = held[k];
      if (!other) continue;
      for (let l = 0; l < mine.positions.length; l++)
        for (let p = 0; p < other.positions.length; p++) {
          const distance = Math.abs(mine.positions[l] - other.positions[p]);
          if (!distance) continue;
          const w = f(f(f(l < mine.a ? WEIGHT.A : WEIGHT.B) * f(p < other.a ? WEIGHT.A : WEIGHT.B)) * wordDistance(distance));
          const current = f(Math.sqrt(w));
          res = res < 0 ? current : f(1.0 - (1.0 - res) * (1.0 - current));
        }
    }
    held.push(mine);
  }
  return res;
}

/** Whether the entry at `at` in `first` has a position just before one of `second`'s at `at2` (`a <-> b`); a vector keeps positions sorted. */
function adjacent(first, at, second, at2) {
  const p = first.positions;
  const q = second.positions;
  const pEnd = starts(first)[at + 1];
  const qEnd = starts(second)[at2 + 1];
  for (let i = starts(first)[at], j = starts(second)[at2]; i < pEnd && j < qEnd; ) {
    if (q[j] === p[i] + 1) return true;
    if (q[j] < p[i] + 1) j++;
    else i++;
  }
  return false;
}

/**
 * `a & b & !c`: the entries with every word and none of the negated ones; `a <-> b`: the entries
 * where b follows a. Both ranked by calc_rank_and.
 */
function searchAnd(index, query) {
  const phrase = query.includes('<->');
  const parts = query.split(phrase ? '<->' : '&').map((w) => w.trim());
  const words = parts.map((w) => w.replace(/^!/, ''));
  // The ranking's operands: every word, negated or not, sorted and deduplicated.
  const items = [...new Set(words)].sort(byBytes);
  if (items.length < 2) throw new Error('one word: use search');
  const lists = items.map((w) => index.lists.get(w));
  const wanted = parts.filter((w) => !w.startsWith('!'));
  const count = new Uint8Array(index.docN.length);
  for (const w of wanted) {
    const list = index.lists.get(w);
    if (list) for (const d of list.docs) count[d]++;
  }
  for (const w of parts.filter((x) => x.startsWith('!'))) {
    const list = index.lists.get(w.slice(1));
    if (list) for (const d of list.docs) count[d] = 0;
  }
  const rarest = wanted.map((w) => index.lists.get(w)).sort((x, y) => (x?.docs.length ?? 0) - (y?.docs.length ?? 0))[0];
  let docs = rarest ? [...rarest.docs].filter((d) => count[d] === wanted.length) : [];
  if (phrase) {
    const [a, b] = wanted.map((w) => index.lists.get(w));
    docs = docs.filter((d) => adjacent(a, find(a, d), b, find(b, d)));
  }
  // A rank is at most 1 / the entry's length normalization (calc_rank_and's result is at most 1):
  // entries are ranked shortest first, and the ranking stops once no entry left can reach the 20th.
  // With fewer than two words not negated, no entry has two operands: every one ranks 1e-20.
  const ranked = new Set(wanted).size >= 2;
  const order = docs.sort((x, y) => index.norm[x] - index.norm[y] || index.docN[y] - index.docN[x]);
  const rankOf = (d) => {
    const res = ranked ? andScore(lists, d) : f(-1);
    return f((res < 0 ? f(1e-20) : res) / index.norm[d]);
  };
  return { total: docs.length, ns: keepBest(index, order, rankOf, (d) => f(1 / index.norm[d])) };
}

/** Operands as PostgreSQL sorts them (SortAndUniqItems): by bytes, duplicates dropped. */
function operands(query) {
  const words = [...new Set(query.split('|').map((w) => w.trim()))];
  return words.sort(byBytes).map((w) => (w.endsWith(':*') ? { word: w.slice(0, -2), prefix: true } : { word: w, prefix: false }));
}

function search(index, query) {
  const ops = operands(query);
  const score = new Float32Array(index.docN.length);
  const hit = new Uint8Array(index.docN.length);
  const docs = [];
  for (const op of ops) {
    const lists = [];
    if (op.prefix) {
      for (let k = lowerBound(index.lexemes.length, (i) => byBytes(index.lexemes[i], op.word) < 0); k < index.lexemes.length && index.lexemes[k].startsWith(op.word); k++)
        lists.push(index.lists.get(index.lexemes[k]));
    } else if (index.lists.has(op.word)) lists.push(index.lists.get(op.word));
    for (const list of lists)
      for (let i = 0; i < list.docs.length; i++) {
        const d = list.docs[i];
        if (!hit[d]) {
          hit[d] = 1;
          docs.push(d);
        }
        score[d] = f(score[d] + lexemeScore(list.a[i], list.b[i]));
      }
  }
  return { total: docs.length, ns: keepBest(index, docs, (d) => f(f(score[d] / ops.length) / index.norm[d])) };
}

try {
  let url = URL;
  if (!url) {
    const admin = await startCluster(cleanups);
    url = await createDatabase(admin);
    say(`loading ${SIZE} bench entries`);
    const t0 = performance.now();
    await loadPostgres(url, createCorpus({ total: SIZE }), SIZE, say);
    say(`loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const entries = Number((await c.query('SELECT count(*) AS n FROM log_entries WHERE project_id = $1', [BENCH_PROJECT])).rows[0].n);
  globalThis.gc?.();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const index = build(c);
  const built = await index;
  const buildMs = performance.now() - t0;
  globalThis.gc?.();
  const after = process.memoryUsage();
  const postings = [...built.lists.values()].reduce((n, l) => n + l.docs.length, 0);
  const lines = [
    `PostgreSQL ranked search from an index in memory (\`bench/pgMemoryIndex.mjs\`), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; ${entries} entries, ${built.lexemes.length} lexemes, ${postings} postings.`,
    '',
    `Build: ${(buildMs / 1000).toFixed(1)} s (reading the vectors ${(built.fetchMs / 1000).toFixed(1)} s, parsing their text ${(built.parseMs / 1000).toFixed(1)} s); held in typed arrays: ${((after.arrayBuffers - before.arrayBuffers) / 1048576).toFixed(0)} MB${globalThis.gc ? `, heap +${((after.heapUsed - before.heapUsed) / 1048576).toFixed(0)} MB` : ''} (run with --expose-gc for the heap).`,
    '',
    '| query | hits (PostgreSQL) | p50 in memory, ms (15 runs) | PostgreSQL, ts_rank over every hit, ms | top 20 as PostgreSQL orders them |',
    '|---|---|---|---|---|',
  ];
  for (const query of QUERIES) {
    const times = [];
    let answer;
    for (let k = 0; k < 15; k++) {
      const t = performance.now();
      answer = query.includes('&') || query.includes('<->') ? searchAnd(built, query) : search(built, query);
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    const t = performance.now();
    const exact = await c.query(
      `SELECT n, count(*) OVER () AS total FROM log_entries WHERE project_id = $2 AND search @@ to_tsquery('simple', $1)
        ORDER BY ts_rank('${RANK_WEIGHTS}', search, to_tsquery('simple', $1), 1) DESC, n DESC LIMIT 20`,
      [query, BENCH_PROJECT],
    );
    const pgMs = performance.now() - t;
    const total = Number(exact.rows[0]?.total ?? 0);
    const same = exact.rows.filter((r, i) => answer.ns[i] === Number(r.n)).length;
    lines.push(
      `| \`${query.replaceAll('|', '\\|')}\` | ${answer.total} (${total}) | ${times[7].toFixed(2)} | ${pgMs.toFixed(0)} | ${same}/${exact.rows.length}${answer.total === total ? '' : ', totals differ'} |`,
    );
  }
  await c.end();
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
