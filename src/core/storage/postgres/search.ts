// Full-text search on PostgreSQL with the same query language as the embedded engine (words ANDed,
// "quoted phrases", a trailing * for a prefix, OR between words, a leading - to exclude). Words are
// split here, in JavaScript, on both sides (the indexed text and the query) with the rule FTS4's
// unicode61 tokenizer follows (runs of letters and digits, diacritics removed, lowercased), so the
// two backends agree on what a word is: "café" and "cafe" are one word on both. PostgreSQL's
// 'simple' configuration then only lowercases, with no stemming and no stop words, like unicode61.

const RUN = /[\p{L}\p{N}]+/gu;

/** The words of a text as unicode61 reads them: diacritics removed, lowercased. */
export function wordsOf(text: string): string[] {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(RUN) ?? [];
}

/** The words of a text, space-separated: what to_tsvector('simple', ...) indexes. */
export function searchWords(text: string): string {
  return wordsOf(text).join(' ');
}

/**
 * Version of searchWords that built the stored vectors (ap_meta `search_words`): 1 kept diacritics;
 * rows with non-ASCII text are re-indexed once on open (progressRepo.ts reindexWords).
 */
export const SEARCH_WORDS_VERSION = 2;

function lexeme(word: string): string {
  return `'${word.toLowerCase().replace(/'/g, "''")}'`;
}

function phrase(words: string[], prefix: boolean): string {
  const parts = words.map(lexeme);
  if (prefix) parts[parts.length - 1] += ':*';
  if (parts.length === 1) return parts[0]!;
  // The title's and the content's words are one tsvector, the content's positions following the
  // title's: a phrase is matched within one column (weight A, or B), as FTS4 matches it.
  const within = (weight: 'A' | 'B'): string => parts.map((p) => (p.endsWith(':*') ? `${p.slice(0, -2)}:*${weight}` : `${p}:${weight}`)).join(' <-> ');
  return `((${within('A')}) | (${within('B')}))`;
}

/**
 * Free text as a to_tsquery('simple', ...) expression, or undefined when nothing searchable is
 * left. As in FTS4, OR binds loosest: `a b OR c` means (a AND b) OR c.
 */
export function fullTextTsQuery(text: string): string | undefined {
  const positives: (string | 'OR')[] = [];
  const negatives: string[] = [];
  const re = /(-?)"([^"]*)"|(\S+)/g;
  for (const m of text.matchAll(re)) {
    let negate: boolean;
    let body: string;
    if (m[2] !== undefined) {
      negate = m[1] === '-';
      const words = wordsOf(m[2]);
      if (words.length === 0) continue;
      body = phrase(words, false);
    } else {
      const raw = m[3]!;
      if (raw === 'AND') continue;
      if (raw === 'OR') {
        if (positives.length > 0 && positives[positives.length - 1] !== 'OR') positives.push('OR');
        continue;
      }
      negate = raw.startsWith('-') && raw.length > 1;
      const words = wordsOf(raw);
      if (words.length === 0) continue;
      body = phrase(words, raw.endsWith('*'));
    }
    (negate ? negatives : positives).push(body);
  }
  while (positives[positives.length - 1] === 'OR') positives.pop();
  if (positives.length === 0) return undefined;
  // AND-groups between the ORs, then OR the groups.
  const groups: string[][] = [[]];
  for (const p of positives) {
    if (p === 'OR') groups.push([]);
    else groups[groups.length - 1]!.push(p);
  }
  const include = groups.map((g) => (g.length === 1 ? g[0]! : `(${g.join(' & ')})`)).join(' | ');
  if (negatives.length === 0) return include;
  return `(${include}) & !(${negatives.join(' | ')})`;
}

/** Rank weights {D, C, B, A}: a word in the title (A) counts twice one in the content (B), as in the embedded BM25. */
export const RANK_WEIGHTS = '{0.1, 0.2, 0.5, 1.0}';
