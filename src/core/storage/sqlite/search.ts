// Search helpers for the embedded engine: title trigrams (so a substring query is answered from an
// index instead of a scan), safe FTS4 query building from free text, and BM25 ranking.

const RUN = /[\p{L}\p{N}\p{M}]+/gu;

function trigramsOf(folded: string): Set<string> {
  const out = new Set<string>();
  for (const match of folded.matchAll(RUN)) {
    const chars = Array.from(match[0]);
    for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(''));
  }
  return out;
}

/** The document indexed for a folded title: its distinct letter/digit trigrams, space-separated. */
export function titleTrigramDoc(foldedTitle: string): string {
  return [...trigramsOf(foldedTitle)].join(' ');
}

/**
 * An FTS MATCH expression whose hits include every title containing `foldedQuery`, or undefined
 * when the query has no indexable trigram (then the caller scans). Exactness comes from a
 * substring check on the candidates.
 */
export function titleTrigramMatch(foldedQuery: string, maxTerms = 12): string | undefined {
  const all = [...trigramsOf(foldedQuery)];
  if (all.length === 0) return undefined;
  const step = Math.max(1, Math.ceil(all.length / maxTerms));
  const picked = all.filter((_, i) => i % step === 0).slice(0, maxTerms);
  return picked.map((t) => `"${t}"`).join(' ');
}

/** One quoted phrase of a full-text query: its words, the last one a prefix when `prefix`. */
export interface Phrase {
  words: string[];
  prefix: boolean;
}

/**
 * A full-text query as FTS4 evaluates the MATCH expression built from it: OR of AND-groups of
 * phrases (OR binds loosest), then NOT any of `negatives`. `phrases` is the order in which
 * matchinfo() numbers them: the positive ones, left to right; excluded phrases are not counted.
 */
export interface FullTextQuery {
  match: string;
  groups: Phrase[][];
  negatives: Phrase[];
  phrases: Phrase[];
}

/**
 * Turns free text into a safe FTS4 MATCH expression (sql.js builds FTS with the enhanced query
 * syntax): words are ANDed, "quoted phrases" kept, a trailing * makes a prefix, OR between words
 * and a leading - to exclude are honoured; any other syntax is treated as text. Returns undefined
 * when nothing searchable is left.
 */
export function parseFullText(text: string): FullTextQuery | undefined {
  const positives: (Phrase | 'OR')[] = [];
  const negatives: Phrase[] = [];
  const re = /(-?)"([^"]*)"|(\S+)/g;
  for (const m of text.matchAll(re)) {
    let negate: boolean;
    let phrase: Phrase;
    if (m[2] !== undefined) {
      negate = m[1] === '-';
      const words = m[2].match(RUN);
      if (!words) continue;
      phrase = { words, prefix: false };
    } else {
      const raw = m[3]!;
      if (raw === 'AND') continue; // words are ANDed anyway
      if (raw === 'OR') {
        if (positives.length > 0 && positives[positives.length - 1] !== 'OR') positives.push('OR');
        continue;
      }
      negate = raw.startsWith('-') && raw.length > 1;
      const words = raw.match(RUN);
      if (!words) continue;
      phrase = { words, prefix: raw.endsWith('*') };
    }
    if (negate) negatives.push(phrase);
    else positives.push(phrase);
  }
  while (positives[positives.length - 1] === 'OR') positives.pop();
  if (positives.length === 0) return undefined;
  const quote = (p: Phrase): string => `"${p.words.join(' ')}${p.prefix ? '*' : ''}"`;
  const parts = positives.map((p) => (p === 'OR' ? 'OR' : quote(p)));
  const groups: Phrase[][] = [[]];
  for (const p of positives) {
    if (p === 'OR') groups.push([]);
    else groups[groups.length - 1]!.push(p);
  }
  const phrases = positives.filter((p): p is Phrase => p !== 'OR');
  let match: string;
  if (negatives.length === 0) match = parts.join(' ');
  else {
    // NOT binds tighter than AND and OR, and FTS4 refuses a chain of a dozen NOTs as too deep:
    // exclude once, from the whole query, whatever its OR branches.
    const include = positives.includes('OR') ? `(${parts.join(' ')})` : parts.join(' ');
    const exclude = negatives.length === 1 ? quote(negatives[0]!) : `(${negatives.map(quote).join(' OR ')})`;
    match = `${include} NOT ${exclude}`;
  }
  return { match, groups, negatives, phrases };
}

/** The MATCH expression of `parseFullText`, or undefined when nothing searchable is left. */
export function fullTextMatch(text: string): string | undefined {
  return parseFullText(text)?.match;
}

/** Column weights for BM25 over (title, content). */
const WEIGHTS = [2.0, 1.0];

const K1 = 1.2;
const B = 0.75;

/**
 * BM25 over (title, content) from the numbers FTS4's matchinfo(..., 'pcnalx') gives: `m` holds
 * them in that layout. Shared by the SQL function and the ranked-hits cache, so that both compute
 * every score with the same floating-point operations in the same order (ties compare equal).
 */
export function bm25Of(m: ArrayLike<number>): number {
  const p = m[0]!;
  const c = m[1]!;
  const n = m[2]!;
  let score = 0;
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < c; j++) {
      const x = 3 + 2 * c + 3 * (j + i * c);
      const tf = m[x]!;
      if (tf === 0) continue;
      score += bm25Part(j, bm25Idf(n, m[x + 2]!), tf, m[3 + c + j]!, m[3 + j]!);
    }
  }
  return score;
}

/** BM25's idf of a phrase found in `docsWithHit` of `n` documents (in one column). */
export function bm25Idf(n: number, docsWithHit: number): number {
  return Math.max(1e-6, Math.log((n - docsWithHit + 0.5) / (docsWithHit + 0.5) + 1));
}

/**
 * One phrase's share of the score in column `j`: `tf` occurrences in a column of `len` tokens,
 * `avg` tokens on average (matchinfo's rounded figure). bm25Of sums these in phrase, then column
 * order; the term index (termIndex.ts) does the same, so equal inputs give equal scores.
 */
export function bm25Part(j: number, idf: number, tf: number, len: number, avg: number): number {
  return (WEIGHTS[j] ?? 1) * idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (avg || 1))));
}

/** A matchinfo blob as 32-bit numbers. */
export function matchinfoWords(blob: unknown): Uint32Array | undefined {
  if (!(blob instanceof Uint8Array) || blob.byteLength < 12) return undefined;
  const aligned = blob.byteOffset % 4 === 0 ? blob : blob.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.byteLength / 4));
}

/**
 * BM25 from FTS4 matchinfo(..., 'pcnalx'). Higher is better. Registered as a SQL function; used
 * only in SELECTs, never in journaled statements.
 */
export function bm25(blob: unknown): number {
  const m = matchinfoWords(blob);
  return m ? bm25Of(m) : 0;
}

let collector: ((docid: number, blob: unknown) => void) | undefined;

/**
 * Runs `query` with ap_collect(docid, blob) handing each row's values to `collect` (SQLite calls
 * it synchronously, row by row): rows reach JavaScript without building a result row each.
 */
export function collecting<T>(collect: (docid: number, blob: unknown) => void, query: () => T): T {
  const previous = collector;
  collector = collect;
  try {
    return query();
  } finally {
    collector = previous;
  }
}

/** The SQL functions of the embedded engine's searches (queries only, never journaled statements). */
export const SEARCH_FUNCTIONS = {
  ap_bm25: (blob: unknown): number => bm25(blob),
  ap_collect: (docid: unknown, blob: unknown): number => {
    collector?.(Number(docid), blob);
    return 0;
  },
};
