// Ranked full-text search of words and prefixes from an in-memory term index, so that the first
// search of a query is as fast as a repeated one. FTS4 ranks only through a function called per
// matching row (matchinfo, then BM25 in JavaScript), which costs a second or more for a word found
// in half of 100k entries, and typing in the palette makes every key a new query. What this index
// cannot answer (see `page`) goes to the saved hits of rankedHits.ts, then to the SQL plan.
//
// The index is read from FTS4's own segments (%_segdir, %_segments): per term, per document, the
// number of positions in the title and in the content, which is all BM25 over matchinfo needs of
// a phrase of one word, and the positions themselves, for phrases of several words. Tokens are FTS4's own (unicode61, any script), so no tokenizer is written
// here; column lengths come from %_docsize and the index-wide totals from %_stat, as matchinfo
// reads them. A prefix is the range of terms that start with it in the sorted dictionary (FTS4
// sums the positions of every matching term, and a document has the phrase if any term matches).
// Scores are computed by bm25Part/bm25Idf, the same operations in the same order as bm25Of, so
// the order, ties included, is the SQL path's.
//
// Layout: each term's postings are varint-coded runs (one run per segment the term occurs in:
// docid delta, then tf of the content * 8 + tf of the title, capped at 7 with the rest after),
// in one byte buffer, chained per term oldest segment first; their positions, in a second byte
// buffer, per posting its title then its content positions, each the varint of its distance from
// the one before in its column (FTS4's own deltas; 31 MB for 33 MB of postings at 100k entries).
// Every 128th posting of a run has a skip entry (the docid before it, where it and its positions
// start; 1.6 MB at 100k), and each run its last docid. A phrase is read document at a time: the
// rarest word's documents in order, every other word's found by passing whole runs, then whole
// blocks, then postings (so only the candidates' positions are read); in a document all have, the
// starts the rarest word gives are kept where every other word confirms them at its offset,
// within one column (FTS4 keeps positions per column: no phrase spans title and content). A
// phrase with a term whose runs overlap, or a prefix of more than 64 terms, is read term by term
// (each term's postings whole). A phrase of two of the 16 most frequent terms is read from that
// pair's own postings instead (`paired`). A term whose runs overlap (a
// document deleted or re-indexed in a newer segment, an empty position list marking a deletion)
// is resolved newest first when read. Built on the first ranked search that it can answer (one
// pass over the segments); followed: segments written since are read for documents above the last
// one held (appends); a deletion or a change of text (search_epoch) rebuilds it. After building or
// following, every document's positions summed over terms must equal its %_docsize lengths, and
// the documents and tokens %_stat's totals, or the index is not used (the saved hits answer).
//
// A query's words outside ASCII are tokenized by unicode61 itself (an fts3tokenize table in a
// scratch database), as the MATCH expression has FTS4 do it: folding and diacritics are its own.

import { crc32 } from './crc32';
import type { ReadTx } from './engine';
import { averages, epochOf, orderCandidates, readTotals, topCandidates, type RankedPage, type RowFilter, type Totals } from './rankedHits';
import { bm25Idf, bm25Part, collecting, type FullTextQuery, type Phrase } from './search';

/** FTS4 keeps prefix indexes at levels from 1024 on (the table declares none; skipped if any). */
const PREFIX_LEVELS = 1024;
/** Per-docid arrays: a ledger whose rowids go beyond this is left to the saved hits. */
const MAX_DOCID = 50_000_000;
/** Postings and runs held at most; a larger index is not built (the saved hits answer). */
const MAX_BYTES = 512 * 1024 * 1024;

/** Documents, and leaf blocks, read between two pauses of a build in steps. */
const DOCS_PER_STEP = 512;
const BLOCKS_PER_STEP = 4;
/** Bytes of one leaf read between two pauses (a common term's doclist is one leaf of megabytes). */
const LEAF_BYTES_PER_STEP = 1 << 16;

/** A run keeps a skip entry every this many postings (1.6 MB at 100k entries, 17M postings). */
const SKIP = 128;

/**
 * Phrases whose counts are kept for a repeated search (each 12 bytes per docid: 1.2 MB at 100k):
 * a first search of a phrase of words in most entries, other than two common terms (`paired`),
 * still costs tens of ms of CPU at 100k.
 */
const MAX_PHRASES = 4;
/** Spare count arrays and flag arrays kept between searches, of each. */
const MAX_SPARE = 4;

/**
 * The most frequent terms (by bytes of postings at build time) whose adjacent pairs keep their own
 * postings, so that a phrase of two of them is one short read instead of two long position lists.
 */
const COMMON = 16;

/** Past the last posting. */
const END = 2 ** 31;
/** A phrase's prefix of more terms than this is read term by term (one reader each per document costs more). */
const MAX_PREFIX_TERMS = 64;

const ASCII_WORD = /^[\x21-\x7e]+$/;
/** A phrase start's key: its column times this, plus its position. */
const COLUMN = 2 ** 32;

class Bytes {
  data: Uint8Array;
  length = 0;
  constructor(size = 1 << 16) {
    this.data = new Uint8Array(size);
  }
  varint(v: number): void {
    if (this.length + 10 > this.data.length) {
      // Doubling up to 8 MB, then by an eighth at a time: no single copy of tens of megabytes
      // (a pause of the host's event loop while the index is built in steps).
      const next = new Uint8Array(this.length < 1 << 23 ? this.data.length * 2 : this.length + 10 + Math.max(1 << 20, this.length >> 3));
      next.set(this.data);
      this.data = next;
    }
    while (v >= 0x80) {
      this.data[this.length++] = v % 0x80 | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.data[this.length++] = v;
  }
  /**
   * Gives back what growing left unused, keeping a sixteenth as room: the entries that follow a
   * build are appended without a copy (the first write after a build copied all 64 MB of a 100k
   * index into fresh pages, 1.2 to 2 s of page faults on a loaded machine).
   */
  trim(): void {
    const keep = this.length + Math.max(1 << 16, this.length >> 4);
    if (this.data.length > keep) this.data = this.data.slice(0, keep);
  }
}

class Ints {
  data: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): number {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length] = v;
    return this.length++;
  }
  grow(size: number): void {
    if (size <= this.data.length) return;
    // Doubling up to 1M entries, then by an eighth: a trimmed array that grows again is not doubled.
    const n = this.data.length;
    const next = new Int32Array(Math.max(size, n < 1 << 20 ? n * 2 : n + (n >> 3)));
    next.set(this.data);
    this.data = next;
  }
  /** As Bytes.trim: a sixteenth kept as room for what follows a build. */
  trim(): void {
    const keep = this.length + Math.max(1024, this.length >> 4);
    if (this.data.length > keep) this.data = this.data.slice(0, keep);
  }
}

/** Gives back what the byte buffers and the per-run and skip arrays hold beyond their length, once built. */
function trimmed(s: State): void {
  s.bytes.trim();
  s.pos.trim();
  for (const a of [s.runStart, s.runEnd, s.runNext, s.runPos, s.runLast, s.runSkip, s.skipDoc, s.skipAt, s.skipPos]) a.trim();
}

interface Segment {
  key: string;
  start: number;
  leavesEnd: number;
  root: Uint8Array;
}

/** The index of one ledger at one search_epoch. */
interface State {
  epoch: number;
  /** The largest docid held; documents above it were appended since. */
  upto: number;
  totals: Totals;
  segments: Set<string>;
  ids: Map<string, number>;
  terms: string[];
  /** Term ids in string order, for prefixes. */
  sorted: Uint32Array;
  head: Ints;
  tail: Ints;
  /** Last docid of each term's runs so far. */
  last: Ints;
  /** Terms whose runs overlap or mark deletions: resolved newest first when read. */
  mixed: Uint8Array;
  runStart: Ints;
  runEnd: Ints;
  runNext: Ints;
  /** Where each run's positions start in `pos`. */
  runPos: Ints;
  /** The last docid of each run. */
  runLast: Ints;
  /** Each run's first skip entry (its entries run up to the next run's first, or the last entry). */
  runSkip: Ints;
  /**
   * Skip entries: every SKIP-th posting of a run, the docid before it (the base its delta adds
   * to), where it starts in `bytes` and where its positions start in `pos`.
   */
  skipDoc: Ints;
  skipAt: Ints;
  skipPos: Ints;
  bytes: Bytes;
  /**
   * Positions, per posting in run order: its title positions then its content positions (tf0 and
   * tf1 of them), each a varint of the distance from the previous one in its column (the first
   * from 0), as FTS4's position lists hold them less 2.
   */
  pos: Bytes;
  /** Column lengths by docid. */
  len: [Uint32Array, Uint32Array];
  /** The common pairs' postings (see `paired`), or undefined when not kept (a common term mixed). */
  pairs: Pairs | undefined;
}

/**
 * Per pair of common terms (first * COMMON + second), its documents with the pair adjacent in
 * one column: varints of the docid gap, the occurrences in the title, those in the content.
 */
interface Pairs {
  /** The common terms, and each one's place among them by term id. */
  terms: number[];
  rank: Map<number, number>;
  /** By pair; undefined for a pair never seen adjacent. */
  lists: ({ bytes: Bytes; last: number } | undefined)[];
  /** `paired`'s work arrays, kept from one follow (one write) to the next; zeroed after each document. */
  work: PairWork;
}

interface PairWork {
  /** Per position of the current document, its common term plus one. */
  mark: Uint8Array;
  /** The current document's common positions (keys as startsOf writes them), and each one's term. */
  keys: Float64Array;
  wordOf: Uint8Array;
  /** Per pair and column, the current document's count; the pairs counted, to write and zero. */
  tf: Uint32Array;
  touched: Int32Array;
}

/** One phrase's occurrences per docid, the documents that have it, and per column how many (matchinfo's 'x'). */
interface Counts {
  tf0s: Uint32Array;
  tf1s: Uint32Array;
  /** The documents with the phrase: the first `found` of these. */
  docs: Uint32Array;
  found: number;
  withHit: [number, number];
}

/**
 * The query with each phrase's words as the index's terms, unicode61's tokens: ASCII words
 * lower-cased, others as `tokenize` (FTS4's tokenizer) makes them of the phrase's text, as the
 * MATCH expression quotes it. Undefined when this index does not answer it (a word outside ASCII
 * and no tokenizer, or a phrase unicode61 finds no token in).
 */
function tokenized(query: FullTextQuery, tokenize: ((text: string) => string[]) | undefined): FullTextQuery | undefined {
  let ok = true;
  const of = (p: Phrase): Phrase => {
    if (p.words.every((w) => ASCII_WORD.test(w))) return { words: p.words.map((w) => w.toLowerCase()), prefix: p.prefix };
    const words = tokenize?.(p.words.join(' ')) ?? [];
    if (words.length === 0) ok = false;
    return { words, prefix: p.prefix };
  };
  const groups = query.groups.map((g) => g.map(of));
  const negatives = query.negatives.map(of);
  return ok ? { match: query.match, groups, negatives, phrases: groups.flat() } : undefined;
}

/**
 * A phrase's work arrays kept from one search to the next (TermIndex.spare): `slot` per docid,
 * all zero between searches; the others per start, grown as needed and written before read.
 */
interface StartBuffers {
  slot: Int32Array;
  docOf: Uint32Array;
  keyOf: Float64Array;
  keys: Float64Array;
  cands: Uint32Array;
  off: Int32Array;
  len: Int32Array;
  mark: Uint8Array;
}

function startBuffers(size: number): StartBuffers {
  return {
    slot: new Int32Array(size),
    docOf: new Uint32Array(1024),
    keyOf: new Float64Array(1024),
    keys: new Float64Array(0),
    cands: new Uint32Array(0),
    off: new Int32Array(0),
    len: new Int32Array(0),
    mark: new Uint8Array(0),
  };
}

/**
 * The starts of a phrase (`keys`, by document: `docOf`; in `order` when given) as one segment per
 * candidate document: `cands[j]`'s starts at keys[off[j], off[j] + len[j]), `slot[docid]` = j + 1
 * (b.slot, all zero before). Into `b`'s arrays, grown when short (fresh pages cost more than the
 * work here). Module-level, as each loop here, so that V8 optimizes it on its own.
 */
function grouped(b: StartBuffers, n: number, order: number[] | undefined) {
  const { docOf, keyOf, slot } = b;
  if (b.keys.length < n) b.keys = new Float64Array(n + (n >> 3));
  if (b.cands.length < n) b.cands = new Uint32Array(n + (n >> 3));
  if (b.off.length < n + 1) b.off = new Int32Array(n + 1 + (n >> 3));
  const keys = b.keys.subarray(0, n);
  const candsBuf = b.cands;
  const offBuf = b.off;
  let m = 0;
  let previous = -1;
  for (let x = 0; x < n; x++) {
    const from = order ? order[x]! : x;
    const d = docOf[from]!;
    keys[x] = keyOf[from]!;
    if (d !== previous) {
      candsBuf[m] = d;
      offBuf[m++] = x;
      slot[d] = m;
      previous = d;
    }
  }
  offBuf[m] = n;
  const cands = candsBuf.subarray(0, m);
  const off = offBuf.subarray(0, m + 1);
  if (b.len.length < m) b.len = new Int32Array(m + (m >> 3));
  const len = b.len.subarray(0, m);
  for (let j = 0; j < m; j++) len[j] = off[j + 1]! - off[j]!;
  return { keys, slot, cands, off, len };
}

/** Keeps, in each candidate's segment, the starts marked (clearing the marks). */
function keepMarked(keys: Float64Array, mark: Uint8Array, off: Int32Array, len: Int32Array): void {
  for (let j = 0; j < len.length; j++) {
    let w = off[j]!;
    const hi = off[j]! + len[j]!;
    for (let x = w; x < hi; x++) {
      if (mark[x]) {
        keys[w++] = keys[x]!;
        mark[x] = 0;
      }
    }
    len[j] = w - off[j]!;
  }
}

/**
 * A reader of one term's postings, moved forward only: `next` reads the next posting, `seek`
 * passes whole runs (by their last docid), then whole blocks of SKIP postings (by the skip
 * entries), then postings one by one. For a term not mixed: its runs chained in ascending
 * docids, no deletions. The posting read: `docid`, its counts `tf0`, `tf1` and where its
 * positions start in `s.pos` (`at`).
 */
class Postings {
  /** -1 before the first posting, END after the last. */
  docid = -1;
  tf0 = 0;
  tf1 = 0;
  at = 0;
  private r: number;
  /**
   * The next posting's header in `s.bytes`, its positions in `s.pos` (-1 until the current
   * posting's are passed: they are read once, by `startsOf` or when moving on), the docid its
   * delta adds to.
   */
  private p = 0;
  q = 0;
  private base = 0;
  private end = 0;
  private k = 0;
  private kEnd = 0;
  constructor(
    private readonly s: State,
    t: number,
  ) {
    this.r = s.head.data[t]!;
    if (this.r >= 0) this.enter();
  }

  private enter(): void {
    const s = this.s;
    const r = this.r;
    this.p = s.runStart.data[r]!;
    this.end = s.runEnd.data[r]!;
    this.q = s.runPos.data[r]!;
    this.base = 0;
    this.k = s.runSkip.data[r]!;
    this.kEnd = r + 1 < s.runStart.length ? s.runSkip.data[r + 1]! : s.skipDoc.length;
  }

  /** Reads the next posting; false at the end. */
  next(): boolean {
    if (this.r < 0) return this.ended();
    while (this.p >= this.end) {
      this.r = this.s.runNext.data[this.r]!;
      if (this.r < 0) return this.ended();
      this.enter();
    }
    const data = this.s.bytes.data;
    let q = this.q;
    if (q < 0) {
      const pos = this.s.pos.data;
      q = this.at;
      for (let left = this.tf0 + this.tf1; left > 0; q++) if (pos[q]! < 0x80) left--;
    }
    this.p = nextRecord(data, this.p);
    this.base += recGap;
    this.docid = this.base;
    this.tf0 = recTf0;
    this.tf1 = recTf1;
    this.at = q;
    this.q = -1;
    return true;
  }

  private ended(): false {
    this.r = -1;
    this.docid = END;
    return false;
  }

  /** Reads up to the first posting at or after `target`; false when there is none. */
  seek(target: number): boolean {
    if (this.docid >= target) return this.docid !== END;
    const s = this.s;
    if (this.r < 0) return this.ended();
    if (s.runLast.data[this.r]! < target) {
      do this.r = s.runNext.data[this.r]!;
      while (this.r >= 0 && s.runLast.data[this.r]! < target);
      if (this.r < 0) return this.ended();
      this.enter();
    }
    const skipDoc = s.skipDoc.data;
    while (this.k < this.kEnd && skipDoc[this.k]! < target) {
      const at = s.skipAt.data[this.k]!;
      if (at > this.p) {
        this.p = at;
        this.q = s.skipPos.data[this.k]!;
        this.base = skipDoc[this.k]!;
      }
      this.k++;
    }
    while (this.next()) if (this.docid >= target) return true;
    return false;
  }
}

/**
 * A word of a phrase as it is read document at a time: the postings of its terms (several for a
 * prefix), at the least docid any of them is at (`docid`).
 */
class WordPostings {
  docid = -1;
  /** The starts of `starts`. */
  keys = new Float64Array(64);
  private readonly readers: Postings[];
  constructor(s: State, terms: number[]) {
    this.readers = terms.map((t) => new Postings(s, t));
  }

  private least(): boolean {
    let d = END;
    for (const r of this.readers) if (r.docid < d) d = r.docid;
    this.docid = d;
    return d !== END;
  }

  /** Moves to the next document any of its terms has; false at the end. */
  next(): boolean {
    const at = this.docid;
    for (const r of this.readers) if (r.docid === at) r.next();
    return this.least();
  }

  /** Moves to the first document at or after `target` any of its terms has; false when there is none. */
  seek(target: number): boolean {
    if (this.docid >= target) return this.docid !== END;
    for (const r of this.readers) r.seek(target);
    return this.least();
  }

  /**
   * Writes into `keys` the phrase starts its positions in the current document give as the
   * phrase's word `i`, in ascending order; returns how many.
   */
  starts(pos: Uint8Array, i: number): number {
    let keys = this.keys;
    let n = 0;
    let from = 0;
    for (const r of this.readers) {
      if (r.docid !== this.docid) continue;
      if (n + r.tf0 + r.tf1 > keys.length) {
        const more = new Float64Array(2 * (n + r.tf0 + r.tf1));
        more.set(keys.subarray(0, n));
        keys = this.keys = more;
      }
      n = startsOf(pos, r.at, r.tf0, r.tf1, i, keys, n);
      r.q = cursor;
      from++;
    }
    // Several terms of a prefix in one document: their positions interleave.
    if (from > 1) keys.subarray(0, n).sort();
    return n;
  }
}

/**
 * Writes into `keys` (from `n`) the phrase starts that word `i`'s positions at `at` (tf0 in the
 * title, then tf1 in the content) give, in ascending order; returns how many there are then.
 */
function startsOf(pos: Uint8Array, at: number, tf0: number, tf1: number, i: number, keys: Float64Array, n: number): number {
  let q = at;
  for (let column = 0; column < 2; column++) {
    let p = 0;
    for (let m = column === 0 ? tf0 : tf1; m > 0; m--) {
      const b = pos[q++]!;
      if (b < 0x80) p += b;
      else {
        cursor = q - 1;
        p += varint(pos);
        q = cursor;
      }
      if (p >= i) keys[n++] = column * COLUMN + p - i;
    }
  }
  // Where the positions end, for the reader to move on from.
  cursor = q;
  return n;
}

/** Keeps the first `n` of `keys` that are among the first `m` of `other` (both ascending); returns how many. */
function intersected(keys: Float64Array, n: number, other: Float64Array, m: number): number {
  let w = 0;
  let y = 0;
  for (let x = 0; x < n && y < m; x++) {
    const key = keys[x]!;
    while (y < m && other[y]! < key) y++;
    if (y < m && other[y] === key) keys[w++] = key;
  }
  return w;
}

/** How rare each word of a phrase is: the bytes of its terms' postings. */
function postingBytes(s: State, termsOf: number[][]): number[] {
  return termsOf.map((ts) => {
    let sum = 0;
    for (const t of ts) for (let r = s.head.data[t]!; r >= 0; r = s.runNext.data[r]!) sum += s.runEnd.data[r]! - s.runStart.data[r]!;
    return sum;
  });
}

/**
 * The words of a phrase rarest first (`weight`: postingBytes), when phraseByDocument can read it:
 * no term of it mixed, no prefix of more than MAX_PREFIX_TERMS terms; undefined otherwise.
 */
function documentOrder(s: State, termsOf: number[][], weight: number[]): number[] | undefined {
  if (!termsOf.every((ts) => ts.length <= MAX_PREFIX_TERMS && ts.every((t) => !s.mixed[t]))) return undefined;
  return termsOf.map((_, i) => i).sort((a, b) => weight[a]! - weight[b]! || a - b);
}

/**
 * The counts of a phrase whose words' terms are none mixed, document at a time: the rarest
 * word's documents in order, each other word's found by `seek` (leapfrogging to the furthest
 * docid any of them is at), and in a document they all have, the rarest word's starts kept
 * where every other word confirms them. `order`: the words, rarest first.
 */
function phraseByDocument(s: State, termsOf: number[][], order: number[], c: Counts, from = 0): void {
  const words = order.map((i) => new WordPostings(s, termsOf[i]!));
  const lead = words[0]!;
  const pos = s.pos.data;
  // From a docid on (the documents appended since the counts were made): the lead word seeks it first.
  let target = from > 0 ? from : -1;
  for (;;) {
    if (!(target < 0 ? lead.next() : lead.seek(target))) return;
    target = lead.docid;
    let all = true;
    for (let w = 1; w < words.length; w++) {
      const word = words[w]!;
      if (!word.seek(target)) return;
      if (word.docid !== target) {
        target = word.docid;
        all = false;
        break;
      }
    }
    if (!all) continue;
    const d = target;
    target = -1;
    let n = lead.starts(pos, order[0]!);
    const keys = lead.keys;
    for (let w = 1; w < words.length && n > 0; w++) {
      const word = words[w]!;
      // starts() first: it may give the word a larger keys buffer.
      const m = word.starts(pos, order[w]!);
      n = intersected(keys, n, word.keys, m);
    }
    if (n === 0) continue;
    let tf0 = 0;
    while (tf0 < n && keys[tf0]! < COLUMN) tf0++;
    const tf1 = n - tf0;
    c.docs[c.found++] = d;
    c.tf0s[d] = tf0;
    c.tf1s[d] = tf1;
    if (tf0 > 0) c.withHit[0]++;
    if (tf1 > 0) c.withHit[1]++;
  }
}

/** The place of a phrase's pair among the common pairs' lists; undefined when it is not a pair of common terms (a prefix, other words, no pairs kept). */
function pairOf(s: State, phrase: Phrase): number | undefined {
  const pairs = s.pairs;
  if (!pairs || phrase.prefix || phrase.words.length !== 2) return undefined;
  const a = pairs.rank.get(s.ids.get(phrase.words[0]!) ?? -1);
  const b = pairs.rank.get(s.ids.get(phrase.words[1]!) ?? -1);
  return a === undefined || b === undefined ? undefined : a * COMMON + b;
}

/**
 * The counts of a phrase of two common terms from their pair's postings; false when the phrase is
 * not one (pairOf).
 */
function pairCounts(s: State, phrase: Phrase, c: Counts): boolean {
  const at = pairOf(s, phrase);
  if (at === undefined) return false;
  const list = s.pairs!.lists[at];
  if (!list) return true;
  const data = list.bytes.data;
  cursor = 0;
  let d = -1;
  while (cursor < list.bytes.length) {
    d += varint(data);
    const tf0 = varint(data);
    const tf1 = varint(data);
    c.docs[c.found++] = d;
    c.tf0s[d] = tf0;
    c.tf1s[d] = tf1;
    if (tf0 > 0) c.withHit[0]++;
    if (tf1 > 0) c.withHit[1]++;
  }
  return true;
}

/** The phrase's counts from the starts left: per column, and the documents with any. */
function counted(keys: Float64Array, cands: Uint32Array, off: Int32Array, len: Int32Array, c: Counts): void {
  for (let j = 0; j < cands.length; j++) {
    let tf0 = 0;
    let tf1 = 0;
    for (let x = off[j]!; x < off[j]! + len[j]!; x++) {
      if (keys[x]! < COLUMN) tf0++;
      else tf1++;
    }
    if (tf0 === 0 && tf1 === 0) continue;
    const d = cands[j]!;
    c.docs[c.found++] = d;
    c.tf0s[d] = tf0;
    c.tf1s[d] = tf1;
    if (tf0 > 0) c.withHit[0]++;
    if (tf1 > 0) c.withHit[1]++;
  }
}

type SegdirRow = { level: number; idx: number; start_block: number; leaves_end_block: number; end_block: unknown; root: unknown };

const SEGDIR = 'SELECT level, idx, start_block, leaves_end_block, end_block, root FROM log_entries_fts_segdir WHERE level < ? ORDER BY level DESC, idx ASC';

/** The segments of %_segdir rows, each keyed by what identifies its content. */
function segmentsOf(rows: SegdirRow[]): Segment[] {
  return rows.map((r) => {
    const root = r.root instanceof Uint8Array ? r.root : new Uint8Array(0);
    return {
      key: `${r.level}:${r.idx}:${r.start_block}:${r.leaves_end_block}:${String(r.end_block)}:${root.length}:${crc32(root)}`,
      start: Number(r.start_block),
      leavesEnd: Number(r.leaves_end_block),
      root,
    };
  });
}

function emptyCounts(size: number): Counts {
  return { tf0s: new Uint32Array(size), tf1s: new Uint32Array(size), docs: new Uint32Array(size), found: 0, withHit: [0, 0] };
}

function grown(a: Uint32Array, size: number): Uint32Array {
  if (size <= a.length) return a;
  const next = new Uint32Array(Math.max(size, a.length * 2));
  next.set(a);
  return next;
}

/** Where `varint` reads next (module-level, so that reading a number allocates nothing). */
let cursor = 0;

/** The varint at `cursor` (SQLite's: 7 bits a byte, low bits first), moving the cursor past it. */
function varint(data: Uint8Array): number {
  let b = data[cursor++]!;
  if (b < 0x80) return b;
  let v = b & 0x7f;
  let scale = 0x80;
  do {
    b = data[cursor++]!;
    v += (b & 0x7f) * scale;
    scale *= 0x80;
  } while (b & 0x80);
  return v;
}

/** What `nextRecord` read: the docid gap and the word's counts in the two columns. */
let recGap = 0;
let recTf0 = 0;
let recTf1 = 0;

/**
 * Reads the posting record at `p` (docid gap, then the counts: tf1 * 8 + min(tf0, 7), and the
 * rest of tf0 when it is 7) into recGap, recTf0 and recTf1; returns the offset after it. The
 * one-byte cases stay inline here, the common ones on every hot loop.
 */
function nextRecord(data: Uint8Array, p: number): number {
  let b = data[p++]!;
  if (b < 0x80) recGap = b;
  else {
    cursor = p - 1;
    recGap = varint(data);
    p = cursor;
  }
  b = data[p++]!;
  if (b >= 0x80) {
    cursor = p - 1;
    b = varint(data);
    p = cursor;
  }
  let tf0 = b & 7;
  recTf1 = (b - tf0) / 8;
  if (tf0 === 7) {
    cursor = p;
    tf0 += varint(data);
    p = cursor;
  }
  recTf0 = tf0;
  return p;
}

const utf8 = new TextDecoder();

/**
 * `fn()`, or undefined when it throws: segments this reader does not expect (a format it does not
 * know, damage) leave ranked search to the saved hits instead of failing it.
 */
function unthrown<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

function emptyState(epoch: number, totals: Totals): State {
  return {
    epoch,
    upto: -1,
    totals,
    segments: new Set(),
    ids: new Map(),
    terms: [],
    sorted: new Uint32Array(0),
    head: new Ints(),
    tail: new Ints(),
    last: new Ints(),
    mixed: new Uint8Array(1024),
    runStart: new Ints(1 << 14),
    runEnd: new Ints(1 << 14),
    runNext: new Ints(1 << 14),
    runPos: new Ints(1 << 14),
    runLast: new Ints(1 << 14),
    runSkip: new Ints(1 << 14),
    skipDoc: new Ints(1 << 12),
    skipAt: new Ints(1 << 12),
    skipPos: new Ints(1 << 12),
    bytes: new Bytes(),
    pos: new Bytes(),
    len: [new Uint32Array(1024), new Uint32Array(1024)],
    pairs: undefined,
  };
}

/**
 * Adds the documents above `after` to the common pairs' postings (choosing the common terms on
 * the first build): the common terms' positions read document at a time, each position marked
 * with its term, then every position whose next one holds a common term counted for the pair.
 * Yields every DOCS_PER_STEP documents.
 */
function* paired(s: State, after: number): Generator<void, void> {
  if (after < 0) {
    const weight = (t: number): number => {
      let sum = 0;
      for (let r = s.head.data[t]!; r >= 0; r = s.runNext.data[r]!) sum += s.runEnd.data[r]! - s.runStart.data[r]!;
      return sum;
    };
    const byWeight = s.terms.map((_, t) => t).filter((t) => !s.mixed[t]);
    const weights = byWeight.map(weight);
    const order = byWeight.map((_, i) => i).sort((a, b) => weights[b]! - weights[a]! || a - b);
    const terms = order.slice(0, COMMON).map((i) => byWeight[i]!);
    s.pairs = {
      terms,
      rank: new Map(terms.map((t, i) => [t, i])),
      lists: new Array<undefined>(COMMON * COMMON).fill(undefined),
      work: {
        mark: new Uint8Array(1024),
        keys: new Float64Array(1024),
        wordOf: new Uint8Array(1024),
        tf: new Uint32Array(2 * COMMON * COMMON),
        touched: new Int32Array(COMMON * COMMON),
      },
    };
  }
  const pairs = s.pairs;
  if (!pairs) return;
  if (pairs.terms.some((t) => s.mixed[t])) {
    s.pairs = undefined;
    return;
  }
  const words = pairs.terms.map((t) => new WordPostings(s, [t]));
  for (const w of words) w.seek(after + 1);
  const pos = s.pos.data;
  const { work, lists } = pairs;
  const { tf, touched } = work;
  let { mark, keys, wordOf } = work;
  for (let docs = 1; ; docs++) {
    let d = END;
    for (const w of words) if (w.docid < d) d = w.docid;
    if (d === END) {
      // After a build, what growing left unused given back (a sixteenth kept as room); a follow
      // copies nothing (a copy of every list on each write cost the search after it).
      if (after < 0) for (const list of lists) if (list) list.bytes.data = list.bytes.data.slice(0, list.bytes.length + Math.max(64, list.bytes.length >> 4));
      return;
    }
    const l0 = s.len[0][d]!;
    const size = l0 + s.len[1][d]! + 2;
    if (size > mark.length) mark = work.mark = new Uint8Array(2 * size);
    let m = 0;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (w.docid !== d) continue;
      const n = w.starts(pos, 0);
      if (m + n > keys.length) {
        const more = new Float64Array(2 * (m + n));
        more.set(keys.subarray(0, m));
        keys = work.keys = more;
        const of = new Uint8Array(2 * (m + n));
        of.set(wordOf.subarray(0, m));
        wordOf = work.wordOf = of;
      }
      const from = w.keys;
      // Title positions at p, content ones after the title's (l0 + 1 + p): never adjacent across.
      for (let x = 0; x < n; x++) {
        const k = from[x]!;
        keys[m] = k;
        wordOf[m++] = i;
        mark[k < COLUMN ? k : l0 + 1 + (k - COLUMN)] = i + 1;
      }
    }
    let pairsIn = 0;
    for (let x = 0; x < m; x++) {
      const k = keys[x]!;
      const next = mark[(k < COLUMN ? k : l0 + 1 + (k - COLUMN)) + 1]!;
      if (next === 0) continue;
      const pair = wordOf[x]! * COMMON + next - 1;
      if (tf[2 * pair] === 0 && tf[2 * pair + 1] === 0) touched[pairsIn++] = pair;
      const c = 2 * pair + (k < COLUMN ? 0 : 1);
      tf[c] = tf[c]! + 1;
    }
    mark.fill(0, 0, size);
    for (let j = 0; j < pairsIn; j++) {
      const pair = touched[j]!;
      let list = lists[pair];
      if (!list) list = lists[pair] = { bytes: new Bytes(64), last: -1 };
      list.bytes.varint(d - list.last);
      list.bytes.varint(tf[2 * pair]!);
      list.bytes.varint(tf[2 * pair + 1]!);
      list.last = d;
      tf[2 * pair] = 0;
      tf[2 * pair + 1] = 0;
    }
    for (const w of words) if (w.docid === d) w.next();
    if (docs % DOCS_PER_STEP === 0) yield;
  }
}

export class TermIndex {
  private state: State | undefined;
  /** The epoch and document count at which building or following failed its checks. */
  private failed: { epoch: number; n: number } | undefined;
  /** Searches answered here, and declined (the saved hits answered them: while building, entries pending, a failed check). */
  readonly stats = { builds: 0, followed: 0, answered: 0, declined: 0, phrasesExtended: 0 };
  /** True while prepareInSteps builds the index: searches are left to the saved hits meanwhile. */
  building = false;
  /** Work done between two pauses of prepareInSteps, in milliseconds. */
  sliceMs = 10;
  /** Called at each pause of prepareInSteps with the number of slices done so far; the build waits for what it returns. */
  progress: ((slices: number) => void | Promise<void>) | undefined;
  /**
   * The counts of the last phrases of several words searched, kept while the index object stays
   * the same: made when it held `n` documents, its docids up to `upto` (phraseAppended adds later ones).
   */
  private readonly phrases = new Map<string, { s: State; n: number; upto: number; counts: Counts }>();
  /**
   * Arrays a search uses and gives back, per docid (each as long as the index's per-docid arrays):
   * taken again by the next search instead of new ones. A new typed array is zeroed pages the
   * kernel must fault in, 4 to 17 ms per MB on the development machine: at 100k entries a
   * one-word search used 1.6 MB of them.
   */
  private spare: { size: number; counts: Counts[]; flags: Uint8Array[]; hits?: Uint32Array; scores: Float64Array; starts?: StartBuffers } = {
    size: 0,
    counts: [],
    flags: [],
    scores: new Float64Array(0),
  };

  /**
   * The total and one page of the ranked hits of `query`, or undefined when this index does not
   * answer it (the caller asks the saved hits): non-ASCII words without `tokenize`,
   * entries waiting to be indexed, or an index that failed its checks.
   */
  page(tx: ReadTx, query: FullTextQuery, offset: number, limit: number, only?: RowFilter, tokenize?: (text: string) => string[]): RankedPage | undefined {
    const terms = this.building ? undefined : tokenized(query, tokenize);
    const s = terms && !tx.get('SELECT 1 AS x FROM fts_pending LIMIT 1') ? this.current(tx) : undefined;
    if (!terms || !s) {
      this.stats.declined++;
      return undefined;
    }
    this.stats.answered++;
    return this.rank(tx, s, terms, offset, limit, only);
  }

  /** Bytes held by the index (typed arrays exactly; terms and their map estimated). */
  memoryBytes(): number {
    const s = this.state;
    if (!s) return 0;
    let strings = 0;
    for (const t of s.terms) strings += 2 * t.length + 32;
    const typed =
      s.bytes.data.byteLength +
      s.pos.data.byteLength +
      [s.head, s.tail, s.last, s.runStart, s.runEnd, s.runNext, s.runPos, s.runLast, s.runSkip, s.skipDoc, s.skipAt, s.skipPos].reduce((sum, a) => sum + a.data.byteLength, 0) +
      s.mixed.byteLength +
      s.sorted.byteLength +
      s.len[0].byteLength +
      s.len[1].byteLength;
    let pairs = 0;
    for (const list of s.pairs?.lists ?? []) if (list) pairs += list.bytes.data.byteLength + 64;
    return typed + strings + s.terms.length * 48 + pairs;
  }

  private current(tx: ReadTx): State | undefined {
    const epoch = epochOf(tx);
    const totals = readTotals(tx);
    if (!totals) return undefined;
    const s = this.state;
    if (s && s.epoch === epoch) {
      if (totals.n === s.totals.n && totals.tokens.every((t, j) => t === s.totals.tokens[j])) return s;
      if (unthrown(() => this.follow(tx, s, totals))) return s;
    }
    this.state = undefined;
    this.phrases.clear();
    if (this.failed?.epoch === epoch && this.failed.n === totals.n) return undefined;
    const built = unthrown(() => this.build(tx, epoch, totals));
    if (!built) this.failed = { epoch, n: totals.n };
    this.state = built;
    return built;
  }

  private build(tx: ReadTx, epoch: number, totals: Totals): State | undefined {
    this.stats.builds++;
    const s = emptyState(epoch, totals);
    if (!this.read(tx, s, totals, -1)) return undefined;
    trimmed(s);
    return s;
  }

  /**
   * Builds the index in steps of about `sliceMs` of work, each in its own read (`read` runs a
   * function in a read transaction), giving the event loop back in between (setImmediate), so
   * that calls arriving meanwhile are answered: searches by the saved hits while `building`.
   * A step that finds the ledger changed under it (a segment merged away, an entry deleted)
   * starts over, twice at most; then the first search builds it as before. Nothing is done while
   * entries wait to be indexed or when an index of this epoch is held (searches follow it).
   */
  async prepareInSteps(read: <T>(fn: (tx: ReadTx) => T) => T): Promise<void> {
    if (this.building) return;
    this.building = true;
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        let steps: Generator<void, boolean> | undefined;
        let at: { tx: ReadTx } | undefined;
        let s: State | undefined;
        // Each slice: steps until sliceMs have passed; true or false once the build is done.
        const slice = (tx: ReadTx): boolean | undefined => {
          const t0 = performance.now();
          try {
            at!.tx = tx;
            let step = steps!.next();
            while (!step.done && performance.now() - t0 < this.sliceMs) step = steps!.next();
            return step.done ? step.value : undefined;
          } catch {
            return false;
          }
        };
        let done = read((tx): boolean | undefined => {
          if (tx.get('SELECT 1 AS x FROM fts_pending LIMIT 1')) return false;
          const epoch = epochOf(tx);
          const totals = readTotals(tx);
          if (!totals || this.state?.epoch === epoch || (this.failed?.epoch === epoch && this.failed.n === totals.n)) return false;
          this.stats.builds++;
          s = emptyState(epoch, totals);
          at = { tx };
          steps = this.reading(at, s, totals, -1);
          return slice(tx);
        });
        if (!steps) return;
        let slices = 1;
        while (done === undefined) {
          await this.progress?.(slices++);
          await new Promise<void>((resolve) => setImmediate(resolve));
          done = read(slice);
        }
        if (done && s) {
          trimmed(s);
          this.state = s;
          this.phrases.clear();
          return;
        }
      }
    } finally {
      this.building = false;
    }
  }

  /** Brings the index up to date with documents appended since; false when it must be rebuilt. */
  private follow(tx: ReadTx, s: State, totals: Totals): boolean {
    if (!this.read(tx, s, totals, s.upto)) return false;
    this.stats.followed++;
    return true;
  }

  /**
   * Reads the documents above `after`: their lengths from %_docsize, their postings from the
   * segments not read before, then checks them against %_stat. Mutates `s` (dropped on false).
   */
  private read(tx: ReadTx, s: State, totals: Totals, after: number): boolean {
    const steps = this.reading({ tx }, s, totals, after);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `read` in steps: it pauses (yields) after each batch of documents or leaf blocks, and is
   * resumed with the same transaction (undefined) or a new one, in which every segment it set out
   * to read must still be there unchanged and the epoch the same (segments are written once; a
   * merge replaces them), else it stops (false). Documents are read up to the largest docid there
   * was at the start, so what it reads is the ledger as it was then.
   */
  private *reading(at: { tx: ReadTx }, s: State, totals: Totals, after: number): Generator<void, boolean> {
    let tx = at.tx;
    // Lengths of the new documents.
    let docs = 0;
    const tokens: [number, number] = [0, 0];
    const added: number[] = [];
    let bad = false;
    const bound = Number(tx.get<{ m: number | null }>('SELECT max(docid) AS m FROM log_entries_fts_docsize')?.m ?? -1);
    const segments = segmentsOf(tx.all<SegdirRow>(SEGDIR, [PREFIX_LEVELS]));
    const epoch = epochOf(tx);
    const resumed = (): boolean => {
      if (at.tx === tx) return true;
      tx = at.tx;
      if (epochOf(tx) !== epoch) return false;
      const now = new Set(segmentsOf(tx.all(SEGDIR, [PREFIX_LEVELS])).map((seg) => seg.key));
      return segments.every((seg) => now.has(seg.key));
    };
    for (let from = after; from < bound; ) {
      let last = from;
      collecting(
        (docid, blob) => {
          if (!(blob instanceof Uint8Array) || docid < 0 || docid > MAX_DOCID) {
            bad = true;
            return;
          }
          cursor = 0;
          const l0 = varint(blob);
          const l1 = varint(blob);
          if (docid >= s.len[0].length) s.len = [grown(s.len[0], docid + 1), grown(s.len[1], docid + 1)];
          s.len[0][docid] = l0;
          s.len[1][docid] = l1;
          tokens[0]! += l0;
          tokens[1]! += l1;
          docs++;
          added.push(docid);
          last = docid;
        },
        () =>
          tx.get('SELECT count(ap_collect(docid, size)) AS n FROM (SELECT docid, size FROM log_entries_fts_docsize WHERE docid > ? AND docid <= ? ORDER BY docid LIMIT ?)', [
            from,
            bound,
            DOCS_PER_STEP,
          ]),
      );
      if (bad || last === from) return false;
      from = last;
      yield;
      if (!resumed()) return false;
    }
    const held = after < 0 ? 0 : s.totals.n;
    if (held + docs !== totals.n) return false;
    if (!totals.tokens.every((t, j) => t === (after < 0 ? 0 : s.totals.tokens[j]!) + tokens[j]!)) return false;
    // Segments not read yet, oldest first (FTS4's order: higher levels, then lower idx, are older).
    const sums: [Uint32Array, Uint32Array] = [new Uint32Array(s.len[0].length), new Uint32Array(s.len[1].length)];
    const termsBefore = s.terms.length;
    const touched = new Set<number>();
    for (const seg of segments) {
      if (s.segments.has(seg.key)) continue;
      if (seg.start === 0) {
        if (!(yield* this.leaf(s, seg.root, after, sums, touched))) return false;
      } else {
        for (let block = seg.start; block <= seg.leavesEnd; block += BLOCKS_PER_STEP) {
          // Copied out first, so that a large leaf (a common term's doclist) is read in steps.
          const blocks: unknown[] = [];
          collecting(
            (_blockid, data) => {
              blocks.push(data);
            },
            () =>
              tx.get('SELECT count(ap_collect(blockid, block)) AS n FROM log_entries_fts_segments WHERE blockid BETWEEN ? AND ?', [
                block,
                Math.min(seg.leavesEnd, block + BLOCKS_PER_STEP - 1),
              ]),
          );
          for (const data of blocks) if (!(data instanceof Uint8Array) || !(yield* this.leaf(s, data, after, sums, touched))) return false;
          yield;
          if (!resumed()) return false;
        }
      }
      if (s.bytes.length + s.pos.length + 16 * s.runStart.length > MAX_BYTES) return false;
    }
    s.segments = new Set(segments.map((seg) => seg.key));
    // Terms whose runs overlap: what the sums counted twice or for deleted documents, corrected.
    for (const t of touched) {
      if (!s.mixed[t]) continue;
      yield;
      this.visit(s, t, false, (docid, tf0, tf1) => {
        if (docid > after) {
          sums[0][docid]! -= tf0;
          sums[1][docid]! -= tf1;
        }
      });
      this.visit(s, t, true, (docid, tf0, tf1) => {
        if (docid > after) {
          sums[0][docid]! += tf0;
          sums[1][docid]! += tf1;
        }
      });
    }
    // Every new document's positions, summed over its terms, are its lengths; nothing else was added.
    const isNew = new Uint8Array(sums[0].length);
    for (const d of added) {
      if (d >= sums[0].length || sums[0][d] !== s.len[0][d] || sums[1][d] !== s.len[1][d]) return false;
      isNew[d] = 1;
    }
    for (let d = Math.max(0, after + 1); d < sums[0].length; d++) if ((sums[0][d] !== 0 || sums[1][d] !== 0) && !isNew[d]) return false;
    for (const d of added) if (d > s.upto) s.upto = d;
    s.totals = totals;
    if (s.terms.length > termsBefore) s.sorted = this.merged(s, termsBefore);
    yield* paired(s, after);
    return true;
  }

  /** The sorted term ids with the terms from `from` on merged in. */
  private merged(s: State, from: number): Uint32Array {
    const terms = s.terms;
    const fresh = Array.from({ length: terms.length - from }, (_, k) => from + k).sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1));
    const out = new Uint32Array(terms.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < s.sorted.length || j < fresh.length) {
      if (j >= fresh.length || (i < s.sorted.length && terms[s.sorted[i]!]! < terms[fresh[j]!]!)) out[k++] = s.sorted[i++]!;
      else out[k++] = fresh[j++]!;
    }
    return out;
  }

  /** Reads one leaf node: every term's doclist, documents above `after` only. */
  private *leaf(s: State, block: Uint8Array, after: number, sums: [Uint32Array, Uint32Array], touched: Set<number>): Generator<void, boolean> {
    let pause = LEAF_BYTES_PER_STEP;
    let term = new Uint8Array(64);
    let at = 0;
    const end = block.length;
    const bytes = s.bytes;
    const pos = s.pos;
    while (at < end) {
      // The leaf's first varint is its height (0), read as the first term's shared prefix.
      cursor = at;
      const prefix = varint(block);
      const suffix = varint(block);
      at = cursor;
      if (suffix <= 0 || at + suffix > end) return false;
      if (prefix + suffix > term.length) {
        const next = new Uint8Array(2 * (prefix + suffix));
        next.set(term);
        term = next;
      }
      term.set(block.subarray(at, at + suffix), prefix);
      at += suffix;
      const length = prefix + suffix;
      cursor = at;
      const size = varint(block);
      at = cursor;
      const stop = at + size;
      if (stop > end) return false;
      // The doclist: docid deltas, each followed by its position list.
      let p = at;
      let docid = 0;
      let previous = 0;
      let first = -1;
      let deleted = false;
      const runAt = bytes.length;
      const posAt = pos.length;
      const skipFrom = s.skipDoc.length;
      let kept = 0;
      while (p < stop) {
        if (p >= pause) {
          pause = p + LEAF_BYTES_PER_STEP;
          yield;
        }
        let b = block[p++]!;
        if (b < 0x80) docid += b;
        else {
          cursor = p - 1;
          docid += varint(block);
          p = cursor;
        }
        let tf0 = 0;
        let tf1 = 0;
        let column = 0;
        const keep = docid > after;
        const posBefore = pos.length;
        for (;;) {
          b = block[p++]!;
          if (b === 0) break;
          if (b === 1) {
            cursor = p;
            column = varint(block);
            p = cursor;
            continue;
          }
          if (b & 0x80) {
            cursor = p - 1;
            b = varint(block);
            p = cursor;
          }
          if (b < 2) return false;
          if (keep) pos.varint(b - 2);
          if (column === 0) tf0++;
          else tf1++;
        }
        if (p > stop) return false;
        if (!keep) continue;
        if (docid > MAX_DOCID) return false;
        if (first < 0) first = docid;
        if (tf0 === 0 && tf1 === 0) deleted = true;
        if (kept > 0 && kept % SKIP === 0) {
          s.skipDoc.push(previous);
          s.skipAt.push(bytes.length);
          s.skipPos.push(posBefore);
        }
        kept++;
        bytes.varint(docid - previous);
        previous = docid;
        if (tf0 < 7) bytes.varint(tf1 * 8 + tf0);
        else {
          bytes.varint(tf1 * 8 + 7);
          bytes.varint(tf0 - 7);
        }
        if (docid >= sums[0].length) {
          // A document %_docsize does not have (deleted, its postings superseded), or a check fails.
          sums[0] = grown(sums[0], docid + 1);
          sums[1] = grown(sums[1], docid + 1);
          s.len = [grown(s.len[0], sums[0].length), grown(s.len[1], sums[0].length)];
        }
        sums[0][docid]! += tf0;
        sums[1][docid]! += tf1;
      }
      at = stop;
      if (first < 0) continue;
      // The run, chained to its term.
      let text = '';
      let ascii = true;
      for (let k = 0; k < length; k++) {
        const c = term[k]!;
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        text += String.fromCharCode(c);
      }
      if (!ascii) text = utf8.decode(term.subarray(0, length));
      let t = s.ids.get(text);
      if (t === undefined) {
        t = s.terms.length;
        s.ids.set(text, t);
        s.terms.push(text);
        s.head.push(-1);
        s.tail.push(-1);
        s.last.push(-1);
        if (t >= s.mixed.length) {
          const next = new Uint8Array(s.mixed.length * 2);
          next.set(s.mixed);
          s.mixed = next;
        }
      }
      const run = s.runStart.push(runAt);
      s.runEnd.push(bytes.length);
      s.runNext.push(-1);
      s.runPos.push(posAt);
      s.runLast.push(previous);
      s.runSkip.push(skipFrom);
      if (first <= s.last.data[t]! || deleted) s.mixed[t] = 1;
      s.last.data[t] = previous;
      const tail = s.tail.data[t]!;
      if (tail < 0) s.head.data[t] = run;
      else s.runNext.data[tail] = run;
      s.tail.data[t] = run;
      touched.add(t);
    }
    return true;
  }

  /** Every posting of term `t`; `resolved`: each document once, as its newest run has it, deletions left out. */
  private visit(s: State, t: number, resolved: boolean, fn: (docid: number, tf0: number, tf1: number) => void): void {
    const newest = resolved ? new Map<number, number>() : undefined;
    const data = s.bytes.data;
    for (let r = s.head.data[t]!; r >= 0; r = s.runNext.data[r]!) {
      const p = s.runStart.data[r]!;
      const end = s.runEnd.data[r]!;
      let docid = 0;
      cursor = p;
      while (cursor < end) {
        docid += varint(data);
        const v = varint(data);
        let tf0 = v & 7;
        const tf1 = (v - tf0) / 8;
        if (tf0 === 7) tf0 += varint(data);
        if (newest) newest.set(docid, tf0 * 2 ** 26 + tf1);
        else fn(docid, tf0, tf1);
      }
    }
    if (newest) {
      for (const [docid, packed] of newest) {
        const tf1 = packed % 2 ** 26;
        const tf0 = (packed - tf1) / 2 ** 26;
        if (tf0 > 0 || tf1 > 0) fn(docid, tf0, tf1);
      }
    }
  }

  /** The term ids a query word (a token) stands for: the word itself, or every term it starts when a prefix. */
  private expand(s: State, word: string, prefix: boolean): number[] {
    if (!prefix) {
      const t = s.ids.get(word);
      return t === undefined ? [] : [t];
    }
    let lo = 0;
    let hi = s.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s.terms[s.sorted[mid]!]! < word) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let k = lo; k < s.sorted.length && s.terms[s.sorted[k]!]!.startsWith(word); k++) out.push(s.sorted[k]!);
    return out;
  }

  /**
   * Every posting of term `t` (each document once, as its newest run has it, deletions left out)
   * with where its positions start in `s.pos`.
   */
  private each(s: State, t: number, fn: (docid: number, tf0: number, tf1: number, at: number) => void): void {
    const data = s.bytes.data;
    const pos = s.pos.data;
    const newest = s.mixed[t] ? new Map<number, [number, number, number]>() : undefined;
    for (let r = s.head.data[t]!; r >= 0; r = s.runNext.data[r]!) {
      const end = s.runEnd.data[r]!;
      let q = s.runPos.data[r]!;
      let docid = 0;
      let p = s.runStart.data[r]!;
      while (p < end) {
        p = nextRecord(data, p);
        docid += recGap;
        const tf0 = recTf0;
        const tf1 = recTf1;
        const at = q;
        for (let left = tf0 + tf1; left > 0; q++) if (pos[q]! < 0x80) left--;
        if (newest) newest.set(docid, [tf0, tf1, at]);
        else fn(docid, tf0, tf1, at);
      }
    }
    if (newest) for (const [docid, [tf0, tf1, at]] of newest) if (tf0 > 0 || tf1 > 0) fn(docid, tf0, tf1, at);
  }

  /**
   * Adds to `c`, a phrase's counts over the documents up to docid `upto`, those of the documents
   * appended after it, read document at a time from `upto + 1` on (their docids are all above the
   * ones `c` holds, so its list stays in order). False, `c` untouched, where that reading does not
   * apply (a prefix of many terms, a term whose runs overlap, a pair of common terms: counted
   * whole again, as fast or faster).
   */
  private phraseAppended(s: State, phrase: Phrase, c: Counts, upto: number): boolean {
    if (s.upto <= upto || phrase.words.length < 2) return false;
    if (pairOf(s, phrase) !== undefined) return false;
    const k = phrase.words.length;
    const termsOf = phrase.words.map((w, i) => this.expand(s, w, phrase.prefix && i === k - 1));
    if (termsOf.some((ts) => ts.length === 0)) return true; // a word the index does not have: no document has the phrase
    const order = documentOrder(s, termsOf, postingBytes(s, termsOf));
    if (!order) return false;
    phraseByDocument(s, termsOf, order, c, upto + 1);
    return true;
  }

  /**
   * The counts of a phrase of several words (the last a prefix when `prefix`), as matchinfo
   * gives them: occurrences in each column of each document, overlapping ones counted, never
   * across the title and the content (FTS4 keeps positions per column). Candidates are the
   * documents of the rarest word where every word is in one column; each occurrence of the
   * rarest word gives a start, which every other word must confirm at its offset from it.
   */
  private phraseCounts(s: State, words: string[], prefix: boolean, c: Counts, work: StartBuffers): Counts {
    const k = words.length;
    const termsOf = words.map((w, i) => this.expand(s, w, prefix && i === k - 1));
    if (termsOf.some((ts) => ts.length === 0)) return c;
    const weight = postingBytes(s, termsOf);
    let r = 0;
    for (let i = 1; i < k; i++) if (weight[i]! < weight[r]!) r = i;
    const byDocument = documentOrder(s, termsOf, weight);
    if (byDocument) {
      phraseByDocument(s, termsOf, byDocument, c);
      return c;
    }
    // The starts the rarest word gives (its positions, shifted to the phrase's first word), by document.
    const pos = s.pos.data;
    let { docOf, keyOf } = work;
    let n = 0;
    for (const t of termsOf[r]!) {
      this.each(s, t, (d, tf0, tf1, at) => {
        let q = at;
        for (let column = 0; column < 2; column++) {
          let p = 0;
          for (let m = column === 0 ? tf0 : tf1; m > 0; m--) {
            const b = pos[q++]!;
            if (b < 0x80) p += b;
            else {
              cursor = q - 1;
              p += varint(pos);
              q = cursor;
            }
            if (p < r) continue;
            if (n === docOf.length) {
              const moreDocs = new Uint32Array(2 * n);
              moreDocs.set(docOf);
              docOf = moreDocs;
              const moreKeys = new Float64Array(2 * n);
              moreKeys.set(keyOf);
              keyOf = moreKeys;
              work.docOf = docOf;
              work.keyOf = keyOf;
            }
            docOf[n] = d;
            keyOf[n++] = column * COLUMN + p - r;
          }
        }
      });
    }
    if (n === 0) return c;
    // One term not overlapping itself gives them grouped by document and in order; a prefix's
    // terms (or runs resolved newest first) are sorted here.
    let order: number[] | undefined;
    if (termsOf[r]!.length > 1 || s.mixed[termsOf[r]![0]!]) order = Array.from({ length: n }, (_, x) => x).sort((a, b) => docOf[a]! - docOf[b]! || keyOf[a]! - keyOf[b]!);
    const { keys, slot, cands, off, len } = grouped(work, n, order);
    if (work.mark.length < n) work.mark = new Uint8Array(n + (n >> 3));
    const mark = work.mark;
    mark.fill(0, 0, n);
    try {
      this.confirmed(s, words, termsOf, weight, r, keys, mark, slot, off, len);
      counted(keys, cands, off, len, c);
    } finally {
      for (let j = 0; j < cands.length; j++) slot[cands[j]!] = 0;
    }
    return c;
  }

  /** Keeps the starts (`keys`, grouped) that every word other than the rarest (`r`) confirms. */
  private confirmed(
    s: State,
    words: string[],
    termsOf: number[][],
    weight: number[],
    r: number,
    keys: Float64Array,
    mark: Uint8Array,
    slot: Int32Array,
    off: Int32Array,
    len: Int32Array,
  ): void {
    const pos = s.pos.data;
    const others = words.map((_, i) => i).filter((i) => i !== r);
    others.sort((a, b) => weight[a]! - weight[b]!);
    for (const i of others) {
      for (const t of termsOf[i]!) {
        this.each(s, t, (d, tf0, tf1, at) => {
          const j = slot[d]! - 1;
          if (j < 0 || len[j] === 0) return;
          const hi = off[j]! + len[j]!;
          let x = off[j]!;
          let q = at;
          // Positions come in ascending order of key (title, then content): one merge.
          for (let column = 0; column < 2; column++) {
            let p = 0;
            for (let m = column === 0 ? tf0 : tf1; m > 0; m--) {
              const b = pos[q++]!;
              if (b < 0x80) p += b;
              else {
                cursor = q - 1;
                p += varint(pos);
                q = cursor;
              }
              if (p < i) continue;
              const key = column * COLUMN + p - i;
              while (x < hi && keys[x]! < key) x++;
              if (x < hi && keys[x] === key) mark[x] = 1;
            }
          }
        });
      }
      keepMarked(keys, mark, off, len);
    }
  }

  /** Adds the postings of term `t` to a phrase's counts. */
  private accumulate(s: State, t: number, c: Counts): void {
    const { tf0s, tf1s, docs } = c;
    let found = c.found;
    let hit0 = c.withHit[0];
    let hit1 = c.withHit[1];
    const add = (docid: number, tf0: number, tf1: number): void => {
      if (tf0s[docid] === 0 && tf1s[docid] === 0) docs[found++] = docid;
      if (tf0 > 0 && tf0s[docid] === 0) hit0++;
      if (tf1 > 0 && tf1s[docid] === 0) hit1++;
      tf0s[docid]! += tf0;
      tf1s[docid]! += tf1;
    };
    if (s.mixed[t]) this.visit(s, t, true, add);
    else {
      // The hot loop: the term's runs decoded in place.
      const data = s.bytes.data;
      for (let r = s.head.data[t]!; r >= 0; r = s.runNext.data[r]!) {
        let p = s.runStart.data[r]!;
        const end = s.runEnd.data[r]!;
        let docid = 0;
        while (p < end) {
          p = nextRecord(data, p);
          docid += recGap;
          const tf0 = recTf0;
          const tf1 = recTf1;
          const had0 = tf0s[docid]!;
          const had1 = tf1s[docid]!;
          if (had0 === 0 && had1 === 0) docs[found++] = docid;
          if (tf0 > 0 && had0 === 0) hit0++;
          if (tf1 > 0 && had1 === 0) hit1++;
          tf0s[docid] = had0 + tf0;
          tf1s[docid] = had1 + tf1;
        }
      }
    }
    c.found = found;
    c.withHit = [hit0, hit1];
  }

  /** The spare arrays for per-docid arrays of `size` (dropped when the size changed). */
  private spareFor(size: number): TermIndex['spare'] {
    if (this.spare.size !== size) this.spare = { size, counts: [], flags: [], scores: new Float64Array(0) };
    return this.spare;
  }

  private rank(tx: ReadTx, s: State, query: FullTextQuery, offset: number, limit: number, only: RowFilter | undefined): RankedPage {
    const size = s.len[0].length;
    const spare = this.spareFor(size);
    const taken: { counts: Counts[]; flags: Uint8Array[] } = { counts: [], flags: [] };
    try {
      return this.ranked(tx, s, query, offset, limit, only, size, spare, taken);
    } finally {
      // Given back zeroed (resident pages: a fraction of a millisecond), at most a few of each.
      for (const c of taken.counts) {
        if (spare.counts.length >= MAX_SPARE) break;
        if (c.tf0s.length !== size) continue;
        c.tf0s.fill(0);
        c.tf1s.fill(0);
        c.found = 0;
        c.withHit = [0, 0];
        spare.counts.push(c);
      }
      for (const f of taken.flags) {
        if (spare.flags.length >= MAX_SPARE) break;
        f.fill(0);
        spare.flags.push(f);
      }
    }
  }

  private ranked(
    tx: ReadTx,
    s: State,
    query: FullTextQuery,
    offset: number,
    limit: number,
    only: RowFilter | undefined,
    size: number,
    spare: TermIndex['spare'],
    taken: { counts: Counts[]; flags: Uint8Array[] },
  ): RankedPage {
    const flags = (): Uint8Array => {
      const f = spare.flags.pop() ?? new Uint8Array(size);
      taken.flags.push(f);
      return f;
    };
    const byWord = new Map<string, Counts>();
    const wordCounts = (word: string, prefix: boolean): Counts => {
      const key = `${word}${prefix ? '*' : ''}`;
      const known = byWord.get(key);
      if (known) return known;
      const c = spare.counts.pop() ?? emptyCounts(size);
      taken.counts.push(c);
      for (const t of this.expand(s, word, prefix)) this.accumulate(s, t, c);
      byWord.set(key, c);
      return c;
    };
    const countsOf = (phrase: Phrase): Counts => {
      if (phrase.words.length === 1) return wordCounts(phrase.words[0]!, phrase.prefix);
      const key = `"${phrase.words.join(' ')}${phrase.prefix ? '*' : ''}"`;
      const known = byWord.get(key);
      if (known) return known;
      // A phrase searched again (the same index, nothing appended) reuses its counts. Counts
      // the cache lets go of are given back as spares after this search (one may be in use).
      const saved = this.phrases.get(key);
      let c: Counts;
      if (saved && saved.s === s && saved.n === s.totals.n && saved.counts.tf0s.length === size) c = saved.counts;
      else if (saved && saved.s === s && saved.counts.tf0s.length === size && this.phraseAppended(s, phrase, saved.counts, saved.upto)) {
        // Followed since (entries appended): the counts of the documents after those it held are added.
        c = saved.counts;
        this.stats.phrasesExtended++;
      } else {
        if (saved) taken.counts.push(saved.counts);
        c = spare.counts.pop() ?? emptyCounts(size);
        if (!pairCounts(s, phrase, c)) c = this.phraseCounts(s, phrase.words, phrase.prefix, c, (spare.starts ??= startBuffers(size)));
      }
      this.phrases.delete(key);
      this.phrases.set(key, { s, n: s.totals.n, upto: s.upto, counts: c });
      if (this.phrases.size > MAX_PHRASES) {
        const oldest = this.phrases.keys().next().value!;
        taken.counts.push(this.phrases.get(oldest)!.counts);
        this.phrases.delete(oldest);
      }
      byWord.set(key, c);
      return c;
    };
    const phrases = query.phrases.map(countsOf);
    // The hits: documents with every phrase of some group, and none of the excluded ones.
    let out: Uint8Array | undefined;
    for (const c of query.negatives.map(countsOf)) {
      out ??= flags();
      for (let k = 0; k < c.found; k++) out[c.docs[k]!] = 1;
    }
    // Written before it is read, up to `total`: taken as it was left.
    const hits = (spare.hits ??= new Uint32Array(size));
    let total = 0;
    const seen = query.groups.length > 1 ? flags() : undefined;
    let numbered = 0;
    for (const group of query.groups) {
      const members = group.map(() => phrases[numbered++]!);
      if (members.length === 0) continue;
      const smallest = members.reduce((a, b) => (b.found < a.found ? b : a));
      const others = members.filter((m) => m !== smallest);
      for (let k = 0; k < smallest.found; k++) {
        const d = smallest.docs[k]!;
        if (seen) {
          if (seen[d]) continue;
        }
        let all = true;
        for (const m of others) {
          if (m.tf0s[d] === 0 && m.tf1s[d] === 0) {
            all = false;
            break;
          }
        }
        if (!all) continue;
        if (seen) seen[d] = 1;
        if (out?.[d]) continue;
        if (only && !only.has(d)) continue;
        hits[total++] = d;
      }
    }
    if (total === 0 || offset >= total) return { total, rowids: [] };
    // BM25 of each hit, as bm25Of computes it from matchinfo 'pcnalx'.
    const n = s.totals.n;
    const avg = averages(s.totals);
    const idf = phrases.map((c) => [bm25Idf(n, c.withHit[0]), bm25Idf(n, c.withHit[1])] as const);
    const rowids = hits.subarray(0, total);
    if (spare.scores.length < total) spare.scores = new Float64Array(Math.max(total, Math.min(size, 2 * spare.scores.length)));
    const scores = spare.scores.subarray(0, total);
    scores.fill(0);
    const [len0, len1] = s.len;
    // Phrase by phrase, title then content, each added to the hit's sum: the additions of bm25Of
    // in its order (from 0), so the sums are the same numbers.
    for (let i = 0; i < phrases.length; i++) {
      const { tf0s, tf1s } = phrases[i]!;
      const [idf0, idf1] = idf[i]!;
      const avg0 = avg[0]!;
      const avg1 = avg[1]!;
      for (let h = 0; h < total; h++) {
        const d = rowids[h]!;
        const f0 = tf0s[d]!;
        if (f0 !== 0) scores[h] = scores[h]! + bm25Part(0, idf0, f0, len0[d]!, avg0);
        const f1 = tf1s[d]!;
        if (f1 !== 0) scores[h] = scores[h]! + bm25Part(1, idf1, f1, len1[d]!, avg1);
      }
    }
    const want = Math.min(total, offset + limit);
    return { total, rowids: orderCandidates(tx, topCandidates(scores, rowids, total, want), scores, rowids, offset, want) };
  }
}
