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

/**
 * Turns free text into a safe FTS4 MATCH expression (sql.js builds FTS with the enhanced query
 * syntax): words are ANDed, "quoted phrases" kept, a trailing * makes a prefix, OR between words
 * and a leading - to exclude are honoured; any other syntax is treated as text. Returns undefined
 * when nothing searchable is left.
 */
export function fullTextMatch(text: string): string | undefined {
  const positives: string[] = [];
  const negatives: string[] = [];
  const re = /(-?)"([^"]*)"|(\S+)/g;
  for (const m of text.matchAll(re)) {
    let negate: boolean;
    let body: string;
    if (m[2] !== undefined) {
      negate = m[1] === '-';
      const words = m[2].match(RUN);
      if (!words) continue;
      body = `"${words.join(' ')}"`;
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
      body = `"${words.join(' ')}${raw.endsWith('*') ? '*' : ''}"`;
    }
    (negate ? negatives : positives).push(body);
  }
  while (positives[positives.length - 1] === 'OR') positives.pop();
  if (positives.length === 0) return undefined;
  if (negatives.length === 0) return positives.join(' ');
  // NOT binds tighter than AND and OR, and FTS4 refuses a chain of a dozen NOTs as too deep: exclude
  // once, from the whole query, whatever its OR branches.
  const include = positives.includes('OR') ? `(${positives.join(' ')})` : positives.join(' ');
  const exclude = negatives.length === 1 ? negatives[0]! : `(${negatives.join(' OR ')})`;
  return `${include} NOT ${exclude}`;
}

/** Column weights for BM25 over (title, content). */
const WEIGHTS = [2.0, 1.0];

/**
 * BM25 from FTS4 matchinfo(..., 'pcnalx'). Higher is better. Registered as a SQL function; used
 * only in SELECTs, never in journaled statements.
 */
export function bm25(blob: unknown): number {
  if (!(blob instanceof Uint8Array) || blob.byteLength < 12) return 0;
  const aligned = blob.byteOffset % 4 === 0 ? blob : blob.slice();
  const m = new Uint32Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.byteLength / 4));
  const p = m[0]!;
  const c = m[1]!;
  const n = m[2]!;
  const k1 = 1.2;
  const b = 0.75;
  let score = 0;
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < c; j++) {
      const x = 3 + 2 * c + 3 * (j + i * c);
      const tf = m[x]!;
      if (tf === 0) continue;
      const docsWithHit = m[x + 2]!;
      const avg = m[3 + j]! || 1;
      const len = m[3 + c + j]!;
      const idf = Math.max(1e-6, Math.log((n - docsWithHit + 0.5) / (docsWithHit + 0.5) + 1));
      score += (WEIGHTS[j] ?? 1) * idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg)));
    }
  }
  return score;
}
