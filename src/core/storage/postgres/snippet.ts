// The snippet of an entry in a ranked search on PostgreSQL, made here from the entry's text and
// the query as both backends parse it (parseFullText), instead of by ts_headline: the words are
// read as the search vectors hold them (searchWords: runs of letters and digits, diacritics
// removed, lowercased), so "café" in a text is found by "cafe" as the search found it, and
// PostgreSQL no longer parses each listed entry's whole text again for its headline (2-4 ms of a
// page of 20 for a phrase). The shape is the embedded engine's (FTS4's snippet(): up to 14 words around
// the query's words, an ellipsis where the text goes on): the content when it holds a whole AND
// group of the query, else the title.

import type { FullTextQuery } from '../sqlite/search';
import { phraseWords, unaccented } from './search';

/** Words a snippet shows at most (the embedded engine's snippet() takes 14 tokens). */
export const SNIPPET_WORDS = 14;
/** Words shown before the first word found, when the text has them. */
const LEAD = 3;

/** A run of letters, digits and marks in a text, and the word searchWords reads from it. */
interface Token {
  word: string;
  start: number;
  end: number;
}

/** One occurrence of a query phrase: its index in the query's phrases and its tokens [start, end). */
interface Found {
  phrase: number;
  start: number;
  end: number;
}

/** A phrase as matched here: its words, the last a prefix when `prefix`. */
interface Words {
  words: string[];
  prefix: boolean;
}

const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const ASCII_RUN = /[A-Za-z0-9]+/g;
const NOT_ASCII = /[\u0080-\uffff]/;

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  // Most texts are ASCII: their words need no normalization (a snippet of 150 words in 23 µs instead of 39).
  const ascii = !NOT_ASCII.test(text);
  for (const m of text.matchAll(ascii ? ASCII_RUN : RUN)) {
    // Marks go, as searchWords removes them: a run of marks alone is no word.
    const word = ascii ? m[0].toLowerCase() : unaccented(m[0]);
    if (word !== '') tokens.push({ word, start: m.index, end: m.index + m[0].length });
  }
  return tokens;
}

/** Every occurrence of each phrase in `tokens`, ordered by where it starts. */
function occurrences(tokens: readonly Token[], phrases: readonly Words[]): Found[] {
  const found: Found[] = [];
  for (let i = 0; i < tokens.length; i++) {
    phrases.forEach((p, k) => {
      const n = p.words.length;
      if (n === 0 || i + n > tokens.length) return;
      for (let j = 0; j < n; j++) {
        const word = tokens[i + j]!.word;
        const want = p.words[j]!;
        if (p.prefix && j === n - 1 ? !word.startsWith(want) : word !== want) return;
      }
      found.push({ phrase: k, start: i, end: i + n });
    });
  }
  return found;
}

/** Whether every phrase of some AND group occurs (the negatives left aside). */
function holdsAGroup(found: readonly Found[], groups: readonly number[][]): boolean {
  const present = new Set(found.map((f) => f.phrase));
  return groups.some((g) => g.every((k) => present.has(k)));
}

/**
 * The window of SNIPPET_WORDS tokens that shows the most distinct phrases, then the most
 * occurrences, the first such one; each window tried starts LEAD tokens before an occurrence.
 */
function bestWindow(count: number, found: readonly Found[]): [number, number] {
  const size = Math.min(SNIPPET_WORDS, count);
  let best: [number, number] = [0, size];
  let bestDistinct = -1;
  let bestTotal = -1;
  let lo = 0;
  for (const anchor of found) {
    // Starts never decrease from one anchor to the next (the occurrences are ordered).
    const start = Math.max(0, Math.min(anchor.start - LEAD, count - size));
    const end = start + size;
    while (found[lo]!.start < start) lo++;
    const shown = new Set<number>();
    let total = 0;
    for (let i = lo; i < found.length && found[i]!.start < end; i++) {
      if (found[i]!.end > end) continue;
      shown.add(found[i]!.phrase);
      total++;
    }
    if (shown.size > bestDistinct || (shown.size === bestDistinct && total > bestTotal)) {
      bestDistinct = shown.size;
      bestTotal = total;
      best = [start, end];
    }
  }
  return best;
}

/** The snippet of one text: its window's words with what lies between them, an ellipsis where it is cut. */
function cut(text: string, tokens: readonly Token[], [start, end]: [number, number]): string {
  if (tokens.length === 0) return text.replace(/\s+/g, ' ').trim().slice(0, 200);
  // The whole text's start and end when shown (punctuation before the first word and after the last).
  const from = start > 0 ? tokens[start]!.start : 0;
  const to = end < tokens.length ? tokens[end - 1]!.end : text.length;
  const body = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < tokens.length ? '…' : ''}`;
}

/** The snippet of an entry for a query: of its content when it holds a whole AND group, else of its title. */
export function snippetOf(query: FullTextQuery, title: string, content: string): string {
  const phrases: Words[] = [];
  const groups = query.groups.map((g) =>
    g.map((p) => {
      phrases.push({ words: phraseWords(p), prefix: p.prefix });
      return phrases.length - 1;
    }),
  );
  const inContent = tokensOf(content);
  const foundInContent = occurrences(inContent, phrases);
  if (holdsAGroup(foundInContent, groups) || title.trim() === '') return cut(content, inContent, bestWindow(inContent.length, foundInContent));
  const inTitle = tokensOf(title);
  return cut(title, inTitle, bestWindow(inTitle.length, occurrences(inTitle, phrases)));
}
