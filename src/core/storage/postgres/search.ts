// Full-text search on PostgreSQL with the same query language as the embedded engine (words ANDed,
// "quoted phrases", a trailing * for a prefix, OR between words, a leading - to exclude). Words are
// split here, in JavaScript, on both sides (the indexed text and the query) with the rule FTS4's
// unicode61 tokenizer follows (runs of letters and digits, diacritics removed, lowercased), so the
// two backends agree on what a word is: "café" and "cafe" are one word on both. PostgreSQL's
// 'simple' configuration then only lowercases, with no stemming and no stop words, like unicode61.

import { parseFullText, type Phrase } from '../sqlite/search';

const RUN = /[\p{L}\p{N}]+/gu;

/** The words of a text as unicode61 reads them: diacritics removed, lowercased. */
function wordsOf(text: string): string[] {
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

/** The tsvector of an entry: title words weighted A, content words B. */
export const ENTRY_SEARCH_SQL = "setweight(to_tsvector('simple', ?), 'A') || setweight(to_tsvector('simple', ?), 'B')";

/** The parameters of ENTRY_SEARCH_SQL for a title and content. */
export function entrySearchParams(title: string, content: string): [string, string] {
  return [searchWords(title), searchWords(content)];
}

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
 * left. The text is read by the embedded engine's parser, so both backends take it alike: OR binds
 * loosest (`a b OR c` means (a AND b) OR c), and excluded phrases apply to the whole query.
 */
export function fullTextTsQuery(text: string): string | undefined {
  const query = parseFullText(text);
  if (!query) return undefined;
  // The parser keeps a word's diacritics; the stored vectors have them removed (wordsOf).
  const body = (p: Phrase): string => {
    const words = wordsOf(p.words.join(' '));
    return phrase(words.length > 0 ? words : p.words.map((w) => w.toLowerCase()), p.prefix);
  };
  // AND-groups between the ORs, then OR the groups.
  const include = query.groups.map((g) => (g.length === 1 ? body(g[0]!) : `(${g.map(body).join(' & ')})`)).join(' | ');
  if (query.negatives.length === 0) return include;
  return `(${include}) & !(${query.negatives.map(body).join(' | ')})`;
}

/** Rank weights {D, C, B, A}: a word in the title (A) counts twice one in the content (B), as in the embedded BM25. */
export const RANK_WEIGHTS = '{0.1, 0.2, 0.5, 1.0}';
