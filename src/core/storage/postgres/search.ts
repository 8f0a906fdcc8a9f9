// Full-text search on PostgreSQL with the same query language as the embedded engine (words ANDed,
// "quoted phrases", a trailing * for a prefix, OR between words, a leading - to exclude). Words are
// split here, in JavaScript, on both sides (the indexed text and the query) with the rule FTS4's
// unicode61 tokenizer follows (runs of letters and digits, diacritics removed, lowercased), so the
// two backends agree on what a word is: "café" and "cafe" are one word on both. PostgreSQL's
// 'simple' configuration then only lowercases, with no stemming and no stop words, like unicode61.

import { parseFullText, type FullTextQuery, type Phrase } from '../sqlite/search';

const RUN = /[\p{L}\p{N}]+/gu;

/** Text with its diacritics removed, lowercased: as unicode61 folds a word. */
export function unaccented(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The words of a text as unicode61 reads them: diacritics removed, lowercased. */
function wordsOf(text: string): string[] {
  return unaccented(text).match(RUN) ?? [];
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

/**
 * Positions a tsvector keeps of one word: to_tsvector keeps 255 of a text's, `||` at most 256 of
 * the title's and the content's together. It stores none past 16,383 (a later word is given that
 * one), so an entry of PHRASE_WORDS_FROM words or more may have lost positions too.
 */
export const TSVECTOR_MAX_POSITIONS = 256;
export const PHRASE_WORDS_FROM = 16_000;

/**
 * The parameters of ENTRY_SEARCH_SQL for an entry's title and content, and its phrase words (the
 * phrase_words column, schema migration 6): the title's words on one line and the content's on
 * the next, as searchWords writes them, for an entry whose vector may have lost positions (a word
 * TSVECTOR_MAX_POSITIONS times or more in the title and content together, or PHRASE_WORDS_FROM
 * words or more), else null. Phrases of such an entry are matched in those words instead of the
 * vector's positions (fullTextCondition); null costs a normal row nothing.
 */
export function entrySearch(title: string, content: string): { params: [string, string]; phraseWords: string | null } {
  const t = wordsOf(title);
  const c = wordsOf(content);
  const params: [string, string] = [t.join(' '), c.join(' ')];
  return { params, phraseWords: positionsLost(t, c) ? `${params[0]}\n${params[1]}` : null };
}

/** Whether the vector of an entry with these words may lack positions of some word (conservatively). */
function positionsLost(title: readonly string[], content: readonly string[]): boolean {
  const total = title.length + content.length;
  if (total >= PHRASE_WORDS_FROM) return true;
  if (total < TSVECTOR_MAX_POSITIONS) return false;
  const counts = new Map<string, number>();
  for (const list of [title, content]) {
    for (const w of list) {
      const k = (counts.get(w) ?? 0) + 1;
      if (k >= TSVECTOR_MAX_POSITIONS) return true;
      counts.set(w, k);
    }
  }
  return false;
}

/**
 * A necessary condition on an entry `e` for entrySearch to give it phrase words, cheap enough to
 * check on every row once (progressRepo.ts markPhraseWords) where reading each vector's positions
 * (unnest) is not. The vector's size with and without its positions (a lexeme adds 2 bytes for
 * its count, up to 1 of padding and 2 per position) bounds its positions P from above: P <= that
 * difference / 2 less its lexemes L. An entry entrySearch marks has a lexeme at 255 positions or
 * more (so P >= L + 254), or, with none cut, one position per word up to the 16,000th (P >=
 * 16,000). The sizes are those of a copy of the vector (the stored one may be compressed). Texts
 * too short to hold 256 words (2 bytes a word, less the title's and the content's last space)
 * are passed over without reading the vector.
 */
export const PHRASE_WORDS_CANDIDATE_SQL = `octet_length(e.title) + octet_length(e.content) >= ${2 * TSVECTOR_MAX_POSITIONS - 2}
  AND (pg_column_size(e.search || ''::tsvector) - pg_column_size(strip(e.search))) / 2 - e.search_size >= least(e.search_size + ${TSVECTOR_MAX_POSITIONS - 2}, ${PHRASE_WORDS_FROM})`;

function lexeme(word: string): string {
  return `'${word.toLowerCase().replace(/'/g, "''")}'`;
}

/** A phrase's words as tsquery lexemes, the last one a prefix (`:*`) when `prefix`. */
function lexemes(words: readonly string[], prefix: boolean): string[] {
  const parts = words.map(lexeme);
  if (prefix) parts[parts.length - 1] += ':*';
  return parts;
}

function phrase(words: string[], prefix: boolean): string {
  const parts = lexemes(words, prefix);
  if (parts.length === 1) return parts[0]!;
  // The title's and the content's words are one tsvector, the content's positions following the
  // title's: a phrase is matched within one column (weight A, or B), as FTS4 matches it.
  const within = (weight: 'A' | 'B'): string => parts.map((p) => (p.endsWith(':*') ? `${p.slice(0, -2)}:*${weight}` : `${p}:${weight}`)).join(' <-> ');
  return `((${within('A')}) | (${within('B')}))`;
}

/** A phrase's words as the stored vectors and phrase words hold them (diacritics removed). */
export function phraseWords(p: Phrase): string[] {
  // The parser keeps a word's diacritics; the stored vectors have them removed (wordsOf).
  const words = wordsOf(p.words.join(' '));
  return words.length > 0 ? words : p.words.map((w) => w.toLowerCase());
}

/**
 * Free text as a to_tsquery('simple', ...) expression, or undefined when nothing searchable is
 * left. The text is read by the embedded engine's parser, so both backends take it alike: OR binds
 * loosest (`a b OR c` means (a AND b) OR c), and excluded phrases apply to the whole query.
 */
export function fullTextTsQuery(text: string): string | undefined {
  const query = parseFullText(text);
  return query ? tsQueryOf(query) : undefined;
}

function tsQueryOf(query: FullTextQuery): string {
  const body = (p: Phrase): string => phrase(phraseWords(p), p.prefix);
  // AND-groups between the ORs, then OR the groups.
  const include = query.groups.map((g) => (g.length === 1 ? body(g[0]!) : `(${g.map(body).join(' & ')})`)).join(' | ');
  if (query.negatives.length === 0) return include;
  return `(${include}) & !(${query.negatives.map(body).join(' | ')})`;
}

/** A full-text search as a condition on an entry `e`, its parameters, and the tsquery it ranks by. */
export interface FullTextCondition {
  sql: string;
  params: string[];
  tsquery: string;
}

const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/g;

/**
 * A phrase of two words or more as a regular expression (PostgreSQL's) over an entry's phrase
 * words: the words side by side on one line (the title's or the content's, as FTS4 matches a
 * phrase within a column), the last one a prefix when `prefix`.
 */
export function phraseRegex(words: readonly string[], prefix: boolean): string {
  const body = words.map((w) => w.replace(REGEX_SPECIAL, (c) => `\\${c}`)).join(' ');
  return `(^|[ \n])${body}${prefix ? '' : '([ \n]|$)'}`;
}

/**
 * Free text as a condition on an entry `e`, or undefined when nothing searchable is left. Without
 * a phrase of two words or more it is the vector matching the tsquery. With one, entries whose
 * vector may lack positions (their phrase words are stored, entrySearch) are matched otherwise:
 * the GIN index first finds the entries holding the words of the query's included part (each
 * phrase's words ANDed, exclusions left out, which needs no recheck of the vector), then an entry
 * without phrase words is checked against the tsquery as before, and one with them evaluates the
 * same query with each phrase of two words or more as a regular expression over its phrase words
 * and each single word through its vector (a word is never lost from it, only positions).
 */
export function fullTextCondition(text: string): FullTextCondition | undefined {
  const query = parseFullText(text);
  return query && fullTextConditionOf(query);
}

/** fullTextCondition of a query parsed already. */
export function fullTextConditionOf(query: FullTextQuery): FullTextCondition {
  const tsquery = tsQueryOf(query);
  const multi = (p: Phrase): boolean => phraseWords(p).length > 1;
  if (!query.phrases.some(multi) && !query.negatives.some(multi)) return { sql: "e.search @@ to_tsquery('simple', ?)", params: [tsquery], tsquery };
  const relaxed = query.groups.map((g) => `(${g.flatMap((p) => lexemes(phraseWords(p), p.prefix)).join(' & ')})`).join(' | ');
  const params: string[] = [relaxed, tsquery];
  const condition = (p: Phrase): string => {
    const words = phraseWords(p);
    if (words.length > 1) {
      params.push(phraseRegex(words, p.prefix));
      return 'e.phrase_words ~ ?';
    }
    params.push(phrase(words, p.prefix));
    return "e.search @@ to_tsquery('simple', ?)";
  };
  const include = query.groups.map((g) => `(${g.map(condition).join(' AND ')})`).join(' OR ');
  const exact = query.negatives.length === 0 ? include : `(${include}) AND NOT (${query.negatives.map(condition).join(' OR ')})`;
  return {
    sql: `e.search @@ to_tsquery('simple', ?) AND CASE WHEN e.phrase_words IS NULL THEN e.search @@ to_tsquery('simple', ?) ELSE ${exact} END`,
    params,
    tsquery,
  };
}

/** Rank weights {D, C, B, A}: a word in the title (A) counts twice one in the content (B), as in the embedded BM25. */
export const RANK_WEIGHTS = '{0.1, 0.2, 0.5, 1.0}';
