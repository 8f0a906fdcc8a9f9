// Ranked search of a PostgreSQL ledger answered from memory, in a process that serves many
// searches (issue 15: a first search of a new query within one frame at 100k entries). Every
// entry's search vector is read once (`search::text`) and then followed by entry number: per
// lexeme, the entries holding it in the order they were added, each with its positions and their
// weights as the vector keeps them (WordEntryPos: 2 bits of weight, 14 of position). A query,
// as PostgreSQL itself parsed it (`to_tsquery('simple', ...)::text`), is matched as
// `search @@ query` matches it (phrases by positions, weight restrictions, prefixes, negation)
// and ranked as ts_rank ranks it (tsrank.c: calc_rank_or and calc_rank_and in single precision,
// the operands sorted and deduplicated as SortAndUniqItems does, the log-length normalization),
// so that the page is exactly the one progressRepo.ts rankedPage reads from SQL: every hit's
// title score, the best `candidates` of them ranked over their whole vector, then the others by
// their title score. What it cannot match exactly (an entry whose vector lost positions under a
// phrase, a lexeme stored without positions, a query shape the store never writes) it refuses,
// and SQL answers.

import { RANK_WEIGHTS } from './search';

const f = Math.fround;

/** ts_rank's weights by WordEntryPos weight code (D 0, C 1, B 2, A 3), as float4. */
const WEIGHTS = RANK_WEIGHTS.replace(/[{}\s]/g, '')
  .split(',')
  .map((w) => f(Number(w)));
const TITLE = 3;
/** A lexeme in this share of the entries or more (and in FREQUENT_MIN at least) is frequent: MemoryIndex.pairs. */
const FREQUENT_SHARE = 0.1;
const FREQUENT_MIN = 64;
/** Frequent lexemes kept at most (the most frequent): a pair's key holds each in 8 bits. */
const MAX_FREQUENT = 64;
/** The most the terms kept for frequent lexemes' lists may weigh (MemoryIndex.termed). */
const TERMS_BUDGET = 48 << 20;
/** MAXENTRYPOS: a position is 14 bits. */
const MAX_ENTRY_POS = 1 << 14;
/**
 * How far below the largest entry number held a number not held is still read by searches (a
 * write that commits later than this many entries numbered after it makes the index build again),
 * and how many such numbers at most.
 */
const HOLE_WINDOW = 256;
const MAX_HOLES = 64;
/**
 * The most entries that may have lost positions (MemoryIndex.oddDocs) a phrase seeks one by one
 * in its words' lists; with more, it walks the entries holding all its words.
 */
const ODD_SOUGHT = 4096;

/** An entry as the index reads it. */
export interface IndexRow {
  n: string;
  project_id: string;
  created_at: string;
  /** search::text */
  search: string;
  /** Whether it has phrase words (its vector may lack positions: search.ts entrySearch). */
  lost: boolean;
}

/** A growable typed array. */
class Column<A extends Int32Array | Uint16Array | Float64Array | Uint8Array> {
  length = 0;
  constructor(
    public data: A,
    private readonly make: (n: number) => A,
  ) {}

  /** Gives back the room grown beyond its length. */
  trim(): void {
    if (this.data.length > this.length) {
      const exact = this.make(this.length);
      exact.set(this.data.subarray(0, this.length) as ArrayLike<number>);
      this.data = exact;
    }
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length + (this.data.length >> 1) + 4);
      next.set(this.data as ArrayLike<number>);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

const ints = (): Column<Int32Array> => new Column(new Int32Array(1), (n) => new Int32Array(n));

/** The entries holding one lexeme, in the order they were added, with their positions. */
class Postings {
  readonly docs = ints();
  /** Where each entry's positions start in `positions`. */
  readonly starts = ints();
  readonly positions = new Column(new Uint16Array(2), (n) => new Uint16Array(n));

  /** The index in `docs` of entry `doc`, or -1. */
  find(doc: number): number {
    const docs = this.docs.data;
    let lo = 0;
    let hi = this.docs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (docs[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.docs.length && docs[lo] === doc ? lo : -1;
  }

  /** Where the positions of the entry at index `at` end in `positions` (they start at starts[at]). */
  end(at: number): number {
    return at + 1 < this.docs.length ? this.starts.data[at + 1]! : this.positions.length;
  }

  /**
   * calc_rank_or's terms (lexemeTerms) of the first `termed` entries, over the whole vector and
   * over the title: kept for a list in a tenth of the entries or more (MemoryIndex.termed), which
   * searches then read instead of walking each entry's positions again. Side by side, whole then
   * title (one cache line a hit): 2k and 2k + 1 for slot k.
   */
  kept: Float64Array | undefined;
  termed = 0;
  /**
   * Whether the terms are kept by entry of the index (slot: the entry; 0 for an entry not in the
   * list) instead of by index in the list: for a list holding half the entries or more, whose
   * hits orScores then reads directly instead of seeking each in the list.
   */
  byDoc = false;

  /** Whether the terms of every entry of the list are kept, in room for all `entries` of the index when kept by entry. */
  allTermed(entries: number): boolean {
    return this.termed === this.docs.length && (!this.byDoc || this.kept!.length >= 2 * entries);
  }

  /** The terms of the entry at index `at` into `terms`: kept ones when there are, else computed. */
  termsAt(at: number): void {
    if (at < this.termed) {
      const k = this.byDoc ? this.docs.data[at]! : at;
      terms.whole = this.kept![2 * k]!;
      terms.title = this.kept![2 * k + 1]!;
    } else lexemeTerms(this.positions.data, this.starts.data[at]!, this.end(at));
  }
}

/**
 * The first index from `from` of the `n` sorted `docs` holding `doc` or more (n when none): gallops
 * from there (steps doubling), then searches the last step by halves.
 */
function gallop(docs: Int32Array, n: number, from: number, doc: number): number {
  let lo = from;
  if (lo < n && docs[lo]! < doc) {
    let step = 1;
    let hi = lo + 1;
    while (hi < n && docs[hi]! < doc) {
      lo = hi;
      step <<= 1;
      hi = lo + step;
    }
    if (hi > n) hi = n;
    lo++;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (docs[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
  }
  return lo;
}

/** Walks a posting list to entries in increasing order: the index of each, or -1. */
class Cursor {
  private at = 0;
  constructor(readonly list: Postings) {}

  seek(doc: number): number {
    const docs = this.list.docs.data;
    const n = this.list.docs.length;
    const lo = gallop(docs, n, this.at, doc);
    this.at = lo;
    return lo < n && docs[lo] === doc ? lo : -1;
  }
}

/** A query as PostgreSQL printed it, parsed. `weight`: the weight codes allowed, as bits (0: any). */
type Query = Operand | { t: 'not'; a: Query } | { t: 'and' | 'or'; a: Query; b: Query } | { t: 'phrase'; distance: number; a: Query; b: Query };

/** An operand, with its posting lists once looked up (and walked, in a phrase). */
interface Operand {
  t: 'val';
  lexeme: string;
  prefix: boolean;
  weight: number;
  lists?: Postings[];
  cursors?: Cursor[];
}

/** A phrase of a query: its operands, and their lexemes as a key (MemoryIndex.match). */
interface Phrased {
  key: string;
  operands: Operand[];
}

/** Thrown where the index cannot answer exactly: the caller asks SQL. */
class Refused extends Error {}

/** Parses tsqueryout's text: 'lexeme':*AB operands, ! <-> <N> & | and parentheses. */
function parseTsQuery(text: string): Query | undefined {
  let i = 0;
  const space = (): void => {
    while (text[i] === ' ') i++;
  };
  const operand = (): Query => {
    space();
    if (text[i] === '!') {
      i++;
      return { t: 'not', a: operand() };
    }
    if (text[i] === '(') {
      i++;
      const inner = or();
      space();
      if (text[i] !== ')') throw new Refused('unbalanced');
      i++;
      return inner;
    }
    if (text[i] !== "'") throw new Refused('operand');
    const lexeme = quoted(text, i);
    i = quotedEnd;
    let prefix = false;
    let weight = 0;
    if (text[i] === ':') {
      i++;
      for (;;) {
        const c = text[i];
        if (c === '*') prefix = true;
        else if (c === 'A' || c === 'a') weight |= 1 << 3;
        else if (c === 'B' || c === 'b') weight |= 1 << 2;
        else if (c === 'C' || c === 'c') weight |= 1 << 1;
        else if (c === 'D' || c === 'd') weight |= 1 << 0;
        else break;
        i++;
      }
    }
    return { t: 'val', lexeme, prefix, weight };
  };
  const phrase = (): Query => {
    let left = operand();
    for (;;) {
      space();
      const m = /^<(-|\d+)>/.exec(text.slice(i, i + 8));
      if (!m) return left;
      i += m[0].length;
      left = { t: 'phrase', distance: m[1] === '-' ? 1 : Number(m[1]), a: left, b: operand() };
    }
  };
  /** Operands of `next` joined by `op`, left to right. */
  const joined = (next: () => Query, op: '&' | '|', t: 'and' | 'or') => (): Query => {
    let left = next();
    for (;;) {
      space();
      if (text[i] !== op) return left;
      i++;
      left = { t, a: left, b: next() };
    }
  };
  const and = joined(phrase, '&', 'and');
  const or = joined(and, '|', 'or');
  space();
  if (i >= text.length) return undefined;
  const query = or();
  space();
  if (i < text.length) throw new Refused('trailing text');
  return query;
}

/** Sorted, distinct entry numbers (of the index), or all entries but these (`not`). */
interface DocSet {
  docs: Int32Array;
  not: boolean;
}

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let n = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[n++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}

function unite(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out[n++] = a[i++]!;
    else if (i >= a.length || b[j]! < a[i]!) out[n++] = b[j++]!;
    else {
      out[n++] = a[i++]!;
      j++;
    }
  }
  return out.subarray(0, n);
}

/** a without b. */
function subtract(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length);
  let n = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    while (j < b.length && b[j]! < a[i]!) j++;
    if (j >= b.length || b[j] !== a[i]) out[n++] = a[i]!;
  }
  return out.subarray(0, n);
}

/** Byte order of UTF-8, as a tsvector keeps its lexemes and SortAndUniqItems sorts operands. */
function byBytes(x: string, y: string): number {
  return Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8'));
}

/** word_distance in tsrank.c. */
function wordDistance(distance: number): number {
  if (distance > 100) return f(1e-30);
  return f(1.0 / (1.005 + 0.05 * Math.exp(f(distance) / 1.5 - 2)));
}

/** The key that orders the SQL's candidates: pre DESC, search_size, created_at DESC, n DESC. */
export interface Candidate {
  n: number;
  pre: number;
  searchSize: number;
  createdAt: string;
}

/** One row of the page, with the sort key rankedPage reads (grp 0: a candidate, ranked; grp 1: another hit). */
export interface RankedRow {
  n: number;
  grp: 0 | 1;
  rank: number;
  pre: number;
  searchSize: number;
  createdAt: string;
}

export interface IndexAnswer {
  total: number;
  rows: RankedRow[];
  /** How many hits were ranked over their whole vector, and the last of them in their order. */
  cands: number;
  kth: Candidate | undefined;
}

export interface IndexScope {
  projectId: string | undefined;
  /** created_at bounds, as the SQL compares them (textBound). */
  from?: string;
  to?: string;
}

export class MemoryIndex {
  private readonly oddSought: number;
  private readonly termsBudget: number;

  /** ODD_SOUGHT and TERMS_BUDGET by default (tests set others). */
  constructor(options: { oddSought?: number; termsBudget?: number } = {}) {
    this.oddSought = options.oddSought ?? ODD_SOUGHT;
    this.termsBudget = options.termsBudget ?? TERMS_BUDGET;
  }

  private readonly lexemes = new Map<string, Postings>();
  /** The lexemes in UTF-16 order (a prefix's are contiguous in it), and those added since it was sorted. */
  private sorted: string[] = [];
  private unsorted: string[] = [];
  private readonly docN = new Column(new Float64Array(1), (n) => new Float64Array(n));
  private readonly docProject = ints();
  private readonly docCreated: string[] = [];
  /** cnt_length: the positions of the vector. */
  private readonly docLength = ints();
  /** The normalization's divisor: log2(cnt_length + 1), as calc_rank computes it. */
  private readonly docNorm = new Column(new Float64Array(1), (n) => new Float64Array(n));
  /** length(search): its lexemes, and those with a title (A) position (title_search's size). */
  private readonly docSize = ints();
  private readonly docTitleSize = ints();
  /**
   * 1: the entry may have lost positions (phrase words); 2: a lexeme without positions; 4: a title
   * position after a content one (the title's words come first in every vector the store writes:
   * adjacent() reads them so).
   */
  private readonly docOdd = new Column(new Uint8Array(1), (n) => new Uint8Array(n));
  /** The entries with docOdd 1 or 4, in order. */
  private readonly oddDocs = ints();
  private readonly projectIds: string[] = [];
  private readonly projectIndex = new Map<string, number>();
  /** Per project: the entries held. */
  readonly held = new Map<string, number>();
  /** The largest entry number held. */
  maxN = 0;
  /**
   * Numbers below maxN, and within HOLE_WINDOW of it, of entries not held, ascending: numbers
   * taken by writes not yet committed when the index read past them (two projects written at
   * once commit in either order), or by writes rolled back. A search reads them beside the
   * entries numbered above maxN (holeList), and add() takes one that has committed since.
   */
  private readonly holes: number[] = [];
  /** The frequent lexemes (chosen as a build ends: preparePairs), by their number in a pair's key. */
  private frequent = new Map<string, number>();
  /**
   * Per two frequent lexemes and a weight, the entries where the second directly follows the
   * first, both of that weight (title A or content B), in order: the phrase `a:A <-> b:A` of two
   * words each in most entries is read here instead of walking both position lists in every entry
   * holding both (90,000 of 100,000 for "of the"). Key: pairKey.
   */
  private readonly pairs = new Map<number, Column<Int32Array>>();

  get size(): number {
    return this.docN.length;
  }

  /** Bytes of the terms kept for frequent lexemes (termed), at most TERMS_BUDGET. */
  private termBytes = 0;

  /** How many lexemes have their pairs kept (preparePairs). */
  get frequentCount(): number {
    return this.frequent.size;
  }

  /** After a build: every array at its length (they grow by half as entries are added). */
  trim(): void {
    for (const list of this.lexemes.values()) {
      list.docs.trim();
      list.starts.trim();
      list.positions.trim();
    }
    for (const column of [this.docN, this.docProject, this.docLength, this.docNorm, this.docSize, this.docTitleSize, this.docOdd, this.oddDocs, ...this.pairs.values()])
      column.trim();
  }

  /** The holes, as a PostgreSQL array of bigint. */
  holeList(): string {
    return `{${this.holes.join(',')}}`;
  }

  /**
   * Adds an entry numbered above every one held or one of the holes, in order of their numbers;
   * the numbers skipped over become holes.
   */
  add(row: IndexRow): void {
    const n = Number(row.n);
    if (n > this.maxN) {
      for (let k = Math.max(this.maxN + 1, n - HOLE_WINDOW); k < n; k++) this.holes.push(k);
      let gone = 0;
      while (gone < this.holes.length && (this.holes[gone]! <= n - HOLE_WINDOW || this.holes.length - gone > MAX_HOLES)) gone++;
      if (gone > 0) this.holes.splice(0, gone);
    } else {
      const at = this.holes.indexOf(n);
      if (at < 0) throw new Error(`entry ${n} is neither after ${this.maxN} nor a hole below it`);
      this.holes.splice(at, 1);
    }
    const doc = this.docN.length;
    let project = this.projectIndex.get(row.project_id);
    if (project === undefined) {
      project = this.projectIds.length;
      this.projectIds.push(row.project_id);
      this.projectIndex.set(row.project_id, project);
    }
    let odd = row.lost ? 1 : 0;
    let length = 0;
    let lexemes = 0;
    let titled = 0;
    const frequent: number[] = [];
    parseVector(row.search, (lexeme, positions, count) => {
      const f = this.frequent.get(lexeme);
      if (f !== undefined) for (let k = 0; k < count; k++) frequent.push(pairItem(positions[k]!, f));
      let list = this.lexemes.get(lexeme);
      if (!list) {
        list = new Postings();
        this.lexemes.set(lexeme, list);
        this.unsorted.push(lexeme);
      }
      list.docs.push(doc);
      list.starts.push(list.positions.length);
      let title = false;
      let content = false;
      for (let k = 0; k < count; k++) {
        list.positions.push(positions[k]!);
        if (positions[k]! >> 14 !== TITLE) content = true;
        else {
          title = true;
          if (content) odd |= 4;
        }
      }
      lexemes++;
      if (count === 0) {
        odd |= 2;
        length += 1;
      } else length += count;
      if (title) titled++;
    });
    if (frequent.length > 1) this.addPairs(doc, Int32Array.from(frequent).sort());
    this.docN.push(n);
    this.docProject.push(project);
    this.docCreated.push(row.created_at);
    this.docLength.push(length);
    this.docNorm.push(Math.log(length + 1) / Math.log(2.0));
    this.docSize.push(lexemes);
    this.docTitleSize.push(titled);
    this.docOdd.push(odd);
    if (odd & 5) this.oddDocs.push(doc);
    if (n > this.maxN) this.maxN = n;
    this.held.set(row.project_id, (this.held.get(row.project_id) ?? 0) + 1);
  }

  /**
   * As a build ends: chooses the frequent lexemes (the MAX_FREQUENT most frequent of those in
   * FREQUENT_SHARE of the entries) and finds their pairs in every entry: their positions gathered
   * per entry (a counting sort by entry), sorted by position, and each one followed by another at
   * the next position of the same weight recorded. Entries added later find theirs in add().
   */
  preparePairs(): void {
    const threshold = Math.max(FREQUENT_MIN, Math.ceil(this.size * FREQUENT_SHARE));
    const chosen = [...this.lexemes]
      .filter(([, list]) => list.docs.length >= threshold)
      .sort((x, y) => y[1].docs.length - x[1].docs.length)
      .slice(0, MAX_FREQUENT);
    this.frequent = new Map(chosen.map(([lexeme], i) => [lexeme, i]));
    this.pairs.clear();
    if (chosen.length === 0) return;
    const count = this.size;
    const starts = new Int32Array(count + 1);
    for (const [, list] of chosen) for (let at = 0; at < list.docs.length; at++) starts[list.docs.data[at]! + 1]! += list.end(at) - list.starts.data[at]!;
    for (let d = 0; d < count; d++) starts[d + 1]! += starts[d]!;
    const items = new Int32Array(starts[count]!);
    const fill = starts.slice(0, count);
    for (const [f, [, list]] of chosen.entries()) {
      const positions = list.positions.data;
      for (let at = 0; at < list.docs.length; at++) {
        const d = list.docs.data[at]!;
        for (let k = list.starts.data[at]!, end = list.end(at); k < end; k++) items[fill[d]!++] = pairItem(positions[k]!, f);
      }
    }
    for (let d = 0; d < count; d++) if (starts[d + 1]! - starts[d]! > 1) this.addPairs(d, items.subarray(starts[d]!, starts[d + 1]!).sort());
  }

  /**
   * Keeps the terms of the most frequent lexemes (termed), half of TERMS_BUDGET at most, the first
   * search ranking by one of them would otherwise pay for its list (10 ms for a word in most of
   * 100k entries); then runs one search of each shape a few times over the index just built, their
   * answers dropped: the first searches people make then run compiled code instead of paying for
   * its compiling (through MCP, phrases of two frequent words took 30 ms on a fresh host and 17 ms
   * once warm). About a hundred milliseconds at 100k entries, once per build.
   */
  warm(candidates: number): void {
    for (const lexeme of this.frequent.keys()) {
      if (this.termBytes >= this.termsBudget / 2) break;
      this.termed(this.lexemes.get(lexeme)!);
    }
    const [a, b] = [...this.frequent.keys()].filter((lexeme) => /^[\p{L}\p{N}]+$/u.test(lexeme));
    if (a === undefined || b === undefined) return;
    const shapes = [`'${a}'`, `'${a}':A <-> '${b}':A | '${a}':B <-> '${b}':B`, `'${a}' & '${b}'`, `'${a}' | '${b}'`, `'${a}' & !'${b}'`, `'${a.slice(0, 2)}':*`];
    // A word that is not frequent, in a phrase with one that is: read from their positions.
    const threshold = Math.max(FREQUENT_MIN, Math.ceil(this.size * FREQUENT_SHARE));
    for (const [lexeme, list] of this.lexemes) {
      if (list.docs.length >= 2 && list.docs.length < threshold && /^[\p{L}\p{N}]+$/u.test(lexeme)) {
        shapes.push(`'${a}':A <-> '${lexeme}':A | '${a}':B <-> '${lexeme}':B`, `'${lexeme}' & '${a}'`);
        break;
      }
    }
    for (let round = 0; round < 3; round++) for (const shape of shapes) this.search(shape, { projectId: undefined }, candidates, 0, 20);
  }

  /** Records entry `doc`'s pairs from its frequent lexemes' items (pairItem), sorted. */
  private addPairs(doc: number, items: Int32Array): void {
    for (let i = 0; i < items.length; i++) {
      const next = (items[i]! >> 10) + 1;
      for (let j = i + 1; j < items.length && items[j]! >> 10 <= next; j++) {
        if (items[j]! >> 10 !== next || ((items[i]! >> 8) & 3) !== ((items[j]! >> 8) & 3)) continue;
        const key = pairKey(items[i]! & 255, items[j]! & 255, (items[i]! >> 8) & 3);
        let list = this.pairs.get(key);
        if (!list) this.pairs.set(key, (list = ints()));
        if (list.length === 0 || list.data[list.length - 1] !== doc) list.push(doc);
      }
    }
  }

  /** The entries where frequent `b` directly follows frequent `a`, both of the one weight `weights` names; undefined when not kept. */
  private pairDocs(a: Operand, b: Operand, distance: number): Int32Array | undefined {
    if (distance !== 1 || a.prefix || b.prefix || a.weight !== b.weight || (a.weight !== 1 << TITLE && a.weight !== 1 << 2)) return undefined;
    const fa = this.frequent.get(a.lexeme);
    const fb = this.frequent.get(b.lexeme);
    if (fa === undefined || fb === undefined) return undefined;
    const list = this.pairs.get(pairKey(fa, fb, a.weight === 1 << TITLE ? TITLE : 2));
    return list ? list.data.subarray(0, list.length) : new Int32Array(0);
  }

  /** The lexemes holding `prefix`, in byte order. */
  private withPrefix(prefix: string): Postings[] {
    if (this.unsorted.length > 0) {
      // The few lexemes added since, merged into the sorted ones.
      const added = this.unsorted.sort();
      const merged: string[] = [];
      let j = 0;
      for (const l of this.sorted) {
        while (j < added.length && added[j]! < l) merged.push(added[j++]!);
        merged.push(l);
      }
      while (j < added.length) merged.push(added[j++]!);
      this.sorted = merged;
      this.unsorted = [];
    }
    const sorted = this.sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const found: string[] = [];
    for (let k = lo; k < sorted.length && sorted[k]!.startsWith(prefix); k++) found.push(sorted[k]!);
    // UTF-16 order groups a prefix's lexemes (a prefix of code units is one of UTF-8 bytes); the vector's order is their bytes'.
    return found.sort(byBytes).map((l) => this.lexemes.get(l)!);
  }

  private listsOf(v: Operand): Postings[] {
    if (!v.lists) {
      const list = v.prefix ? undefined : this.lexemes.get(v.lexeme);
      v.lists = v.prefix ? this.withPrefix(v.lexeme) : list ? [list] : [];
    }
    return v.lists;
  }

  /** Entries holding the operand, whatever the weights of its positions (a phrase checks them). */
  private docsOf(v: Operand): Int32Array {
    let out: Int32Array | undefined;
    for (const list of this.listsOf(v)) {
      const docs = list.docs.data.subarray(0, list.docs.length);
      out = out ? unite(out, docs) : docs;
    }
    return out ?? new Int32Array(0);
  }

  /**
   * The entries matching a query node, as TS_execute decides; a phrase is matched by positions in
   * each entry holding all its operands (`phrased` collects each phrase's operands once, to refuse
   * entries whose vector may have lost positions; `shared` keeps the entries holding them).
   */
  private match(q: Query, phrased: Phrased[], shared: Map<string, Int32Array>): DocSet {
    switch (q.t) {
      case 'val':
        // The store names weights only inside phrases (search.ts phrase).
        if (q.weight !== 0) throw new Refused('a weighted word outside a phrase');
        return { docs: this.docsOf(q), not: false };
      case 'not': {
        const inner = this.match(q.a, phrased, shared);
        return { docs: inner.docs, not: !inner.not };
      }
      case 'and':
      case 'or': {
        const a = this.match(q.a, phrased, shared);
        const b = this.match(q.b, phrased, shared);
        // De Morgan: an OR is the negation of the AND of the negations.
        const and = q.t === 'and';
        const x = and ? a : { docs: a.docs, not: !a.not };
        const y = and ? b : { docs: b.docs, not: !b.not };
        let out: DocSet;
        if (!x.not && !y.not) out = { docs: intersect(x.docs, y.docs), not: false };
        else if (!x.not) out = { docs: subtract(x.docs, y.docs), not: false };
        else if (!y.not) out = { docs: subtract(y.docs, x.docs), not: false };
        else out = { docs: unite(x.docs, y.docs), not: true };
        return and ? out : { docs: out.docs, not: !out.not };
      }
      case 'phrase': {
        const operands: Operand[] = [];
        collectPhrase(q, operands);
        for (const v of operands) v.cursors = this.listsOf(v).map((list) => new Cursor(list));
        // The entries holding every operand, whatever its weight (phraseAt checks the weights): the
        // same for the title's and the content's form of one phrase.
        const key = operands.map((v) => `${v.prefix ? '*' : ''}${v.lexeme}`).join('\u0000');
        if (!phrased.some((p) => p.key === key)) phrased.push({ key, operands });
        // Two frequent words: their pair's entries (answer() refuses odd entries holding both).
        const paired = q.a.t === 'val' && q.b.t === 'val' ? this.pairDocs(q.a, q.b, q.distance) : undefined;
        if (paired) return { docs: paired, not: false };
        const candidates = this.holdingAll(key, operands, shared);
        const out = new Int32Array(candidates.length);
        let n = 0;
        if (q.a.t === 'val' && q.b.t === 'val' && q.a.cursors!.length === 1 && q.b.cursors!.length === 1) {
          // Two words: their positions side by side, read where they are.
          n = adjacent(q.a.lists![0]!, q.a.weight, q.b.lists![0]!, q.b.weight, q.distance, candidates, out);
        } else {
          for (let i = 0; i < candidates.length; i++) if (this.phraseAt(q, candidates[i]!).positions.length > 0) out[n++] = candidates[i]!;
        }
        return { docs: out.subarray(0, n), not: false };
      }
    }
  }

  /** The entries holding every operand of a phrase, whatever their weights, once per search (`shared`). */
  private holdingAll(key: string, operands: Operand[], shared: Map<string, Int32Array>): Int32Array {
    let candidates = shared.get(key);
    if (!candidates) {
      let docs: Int32Array | undefined;
      for (const v of operands) docs = docs ? intersect(docs, this.docsOf(v)) : this.docsOf(v);
      candidates = docs ?? new Int32Array(0);
      shared.set(key, candidates);
    }
    return candidates;
  }

  /**
   * TS_phrase_execute for one entry: the positions where the phrase ends (sorted), and its width.
   * Called for the entries of one phrase in increasing order (its operands' cursors walk on).
   */
  private phraseAt(q: Query, doc: number): { positions: number[]; width: number } {
    if (q.t === 'val') {
      const positions: number[] = [];
      for (const cursor of q.cursors!) {
        const at = cursor.seek(doc);
        if (at < 0) continue;
        const data = cursor.list.positions.data;
        for (let k = cursor.list.starts.data[at]!, end = cursor.list.end(at); k < end; k++) {
          if (q.weight === 0 || q.weight & (1 << (data[k]! >> 14))) positions.push(data[k]! & (MAX_ENTRY_POS - 1));
        }
      }
      if (q.prefix && q.cursors!.length > 1) {
        positions.sort((x, y) => x - y);
        return { positions: positions.filter((p, k) => k === 0 || p !== positions[k - 1]), width: 0 };
      }
      return { positions, width: 0 };
    }
    if (q.t !== 'phrase') throw new Refused('an operator inside a phrase');
    const left = this.phraseAt(q.a, doc);
    // (A cursor left behind walks on from where it is.)
    if (left.positions.length === 0) return left;
    const right = this.phraseAt(q.b, doc);
    const width = q.distance + left.width + right.width;
    const offset = q.distance + right.width;
    const out: number[] = [];
    const l = left.positions;
    for (let i = 0, j = 0; j < right.positions.length; j++) {
      const want = right.positions[j]! - offset;
      while (i < l.length && l[i]! < want) i++;
      if (i < l.length && l[i] === want) out.push(right.positions[j]!);
    }
    return { positions: out, width };
  }

  /**
   * The page of a ranked search, as rankedPage orders it: undefined when the index cannot tell it
   * exactly (the caller asks SQL).
   */
  search(tsquery: string, scope: IndexScope, candidates: number, offset: number, limit: number): IndexAnswer | undefined {
    try {
      return this.answer(tsquery, scope, candidates, offset, limit);
    } catch (err) {
      if (err instanceof Refused) return undefined;
      throw err;
    }
  }

  private answer(tsquery: string, scope: IndexScope, k: number, offset: number, limit: number): IndexAnswer {
    const query = parseTsQuery(tsquery);
    if (!query) throw new Refused('an empty query');
    const phrased: Phrased[] = [];
    const shared = new Map<string, Int32Array>();
    const matched = this.match(query, phrased, shared);
    if (matched.not) throw new Refused('a negation alone');
    const project = scope.projectId === undefined ? -1 : (this.projectIndex.get(scope.projectId) ?? -2);
    const dated = scope.from !== undefined || scope.to !== undefined;
    const projects = this.docProject.data;
    const inScope = (d: number): boolean =>
      (project === -1 || projects[d] === project) &&
      (!dated || ((scope.from === undefined || this.docCreated[d]! >= scope.from) && (scope.to === undefined || this.docCreated[d]! <= scope.to)));
    // An entry whose vector may lack positions is matched by its phrase words in SQL.
    // Those odd entries are few: each is sought in the phrase's lists (when there are many, the
    // entries holding the phrase's words are walked instead).
    const oddDocs = this.oddDocs.data;
    for (const { key, operands } of phrased) {
      if (this.oddDocs.length <= this.oddSought) {
        for (let i = 0; i < this.oddDocs.length; i++) {
          const d = oddDocs[i]!;
          if (inScope(d) && operands.every((v) => this.listsOf(v).some((list) => list.find(d) >= 0))) throw new Refused('lost or unordered positions');
        }
      } else {
        const docs = this.holdingAll(key, operands, shared);
        for (let i = 0; i < docs.length; i++) if (this.docOdd.data[docs[i]!]! & 5 && inScope(docs[i]!)) throw new Refused('lost or unordered positions');
      }
    }
    const found = new Int32Array(matched.docs.length);
    let total = 0;
    const odd = this.docOdd.data;
    for (let i = 0; i < matched.docs.length; i++) {
      const d = matched.docs[i]!;
      if ((project !== -1 && projects[d] !== project) || (dated && !inScope(d))) continue;
      if (odd[d]! & 2) throw new Refused('a lexeme without positions');
      found[total++] = d;
    }
    const hits = found.subarray(0, total);
    if (total === 0) return { total: 0, rows: [], cands: 0, kth: undefined };

    // SortAndUniqItems: the operands by bytes, duplicates dropped.
    const vals: Operand[] = [];
    collectVals(query, vals);
    vals.sort((x, y) => byBytes(x.lexeme, y.lexeme));
    const operands: Postings[][] = [];
    // The words the query negates at its top (`... & !word`, `... & !(word | word)`): no hit holds them.
    const negated = negatedWords(query, new Set<string>());
    const absent: boolean[] = [];
    for (let i = 0; i < vals.length; i++) {
      if (i > 0 && vals[i]!.lexeme === vals[i - 1]!.lexeme) {
        if (vals[i]!.prefix !== vals[i - 1]!.prefix) throw new Refused('a word both whole and as a prefix');
        continue;
      }
      operands.push(this.listsOf(vals[i]!));
      absent.push(negated.has(vals[i]!.lexeme));
    }
    const and = query.t === 'and' || query.t === 'phrase';

    // First stage: every hit's title score (and, for an OR, its rank: the same walk gives both).
    let pre: Float32Array;
    let full: Float32Array | undefined;
    if (!and) ({ pre, full } = this.orScores(hits, operands));
    else if (operands.length > 1 && absent.filter((a) => !a).length <= 1) {
      // calc_rank_and scores pairs of positions of two operands an entry holds: a hit holds at
      // most one, so its title score is the floor (1e-20), or 0 without a title (rank()).
      pre = new Float32Array(hits.length);
      const titleSize = this.docTitleSize.data;
      const floor = finish(-1, 0);
      for (let i = 0; i < hits.length; i++) pre[i] = titleSize[hits[i]!] === 0 ? 0 : floor;
    } else {
      pre = new Float32Array(hits.length);
      const cursors = operands.map((lists) => lists.map((list) => new Cursor(list)));
      for (let i = 0; i < hits.length; i++) pre[i] = this.rank(hits[i]!, operands, (oi, li) => (absent[oi] ? -1 : cursors[oi]![li]!.seek(hits[i]!)), true, false);
    }

    const cand = this.candidates(hits, pre, k);
    const rankOf = (i: number): number =>
      full ? finish(f(full[i]! / operands.length), this.docNorm.data[hits[i]!]!) : this.rank(hits[i]!, operands, (oi, li) => operands[oi]![li]!.find(hits[i]!), true, true);
    const ranked: RankedRow[] = cand.map((i) => ({ n: this.docN.data[hits[i]!]!, grp: 0, rank: rankOf(i), pre: 0, searchSize: 0, createdAt: this.docCreated[hits[i]!]! }));
    ranked.sort(compareRanked);
    let rows = ranked;
    if (offset + limit > cand.length && cand.length < hits.length) {
      const taken = new Uint8Array(hits.length);
      for (const i of cand) taken[i] = 1;
      const rest: RankedRow[] = [];
      for (let i = 0; i < hits.length; i++) {
        if (!taken[i]) rest.push({ n: this.docN.data[hits[i]!]!, grp: 1, rank: 0, pre: pre[i]!, searchSize: this.docSize.data[hits[i]!]!, createdAt: this.docCreated[hits[i]!]! });
      }
      rest.sort(compareRanked);
      rows = ranked.concat(rest);
    }
    const last = cand[cand.length - 1]!;
    return {
      total,
      rows: rows.slice(offset, offset + limit),
      cands: cand.length,
      kth: { n: this.docN.data[hits[last]!]!, pre: pre[last]!, searchSize: this.docSize.data[hits[last]!]!, createdAt: this.docCreated[hits[last]!]! },
    };
  }

  /**
   * The best `k` hits by the candidates' order (pre DESC, search_size, created_at DESC, n DESC),
   * as indexes into `hits`, the last of them the k-th in that order (answer() sorts the page by
   * rank): those above the k-th title score, then, of those at it, the smallest vectors in order,
   * so that only the few tied at the edge are compared one by one.
   */
  private candidates(hits: Int32Array, pre: Float32Array, k: number): number[] {
    const size = this.docSize.data;
    const created = this.docCreated;
    const ns = this.docN.data;
    const byKey = (x: number, y: number): number =>
      pre[y]! - pre[x]! || size[hits[x]!]! - size[hits[y]!]! || compareText(created[hits[y]!]!, created[hits[x]!]!) || ns[hits[y]!]! - ns[hits[x]!]!;
    if (hits.length <= k) return Array.from(hits, (_, i) => i).sort(byKey);
    const edge = select(pre.slice(), hits.length - k);
    const chosen: number[] = [];
    // Typed arrays filled by plain loops: Int32Array.from(array, fn) took 1 ms for 20,000 ties.
    const tied = new Int32Array(hits.length);
    const tiedSizes = new Int32Array(hits.length);
    let ties = 0;
    for (let i = 0; i < hits.length; i++) {
      if (pre[i]! > edge) chosen.push(i);
      else if (pre[i] === edge) {
        tied[ties] = i;
        tiedSizes[ties++] = size[hits[i]!]!;
      }
    }
    const need = k - chosen.length;
    const largest = select(tiedSizes.subarray(0, ties), need - 1);
    const smallest: number[] = [];
    for (let j = 0; j < ties; j++) if (size[hits[tied[j]!]!]! <= largest) smallest.push(tied[j]!);
    smallest.sort(byKey);
    for (let j = 0; j < need; j++) chosen.push(smallest[j]!);
    return chosen;
  }

  /**
   * Keeps `list`'s terms (Postings.termsAt) up to its last entry when it is in a tenth of the
   * entries or more: a search that ranks by a word in most entries otherwise walks the positions
   * of each of them (ten or more in an entry for "the"), every time. 16 bytes an entry of the
   * list, or of the index for a list in half the entries or more (Postings.byDoc), TERMS_BUDGET
   * in all: half for the most frequent words' lists as a build ends (warm), the rest for the lists
   * searched first (1.8 MB a list in most of 100k entries).
   */
  private termed(list: Postings): void {
    const n = list.docs.length;
    const entries = this.docN.length;
    if (n < Math.max(FREQUENT_MIN, FREQUENT_SHARE * entries)) return;
    if (!list.kept) list.byDoc = 2 * n >= entries;
    if (list.allTermed(entries)) return;
    const slots = list.byDoc ? entries : n;
    if (!list.kept || list.kept.length < 2 * slots) {
      const room = slots + (slots >> 3);
      const grows = 8 * (2 * room - (list.kept?.length ?? 0));
      if (this.termBytes + grows > this.termsBudget) return;
      this.termBytes += grows;
      // Doubles, as lexemeTerms gives them (tsrank.c divides by a double constant; the sum is float4).
      const kept = new Float64Array(2 * room);
      if (list.kept) kept.set(list.kept);
      list.kept = kept;
    }
    const ps = list.positions.data;
    const starts = list.starts.data;
    const docs = list.docs.data;
    for (let at = list.termed; at < n; at++) {
      lexemeTerms(ps, starts[at]!, list.end(at));
      const k = list.byDoc ? docs[at]! : at;
      list.kept[2 * k] = terms.whole;
      list.kept[2 * k + 1] = terms.title;
    }
    list.termed = n;
  }

  /**
   * calc_rank_or for every hit at once, over its title (pre) and its whole vector (full, before
   * the division by the operands and the normalization by length, which answer's rankOf makes
   * for the candidates alone): each operand's lexemes walked in the vector's order, the hits'
   * scores summed in the order tsrank.c sums them.
   */
  private orScores(hits: Int32Array, operands: Postings[][]): { pre: Float32Array; full: Float32Array } {
    const pre = new Float32Array(hits.length);
    const full = new Float32Array(hits.length);
    const add = (i: number, list: Postings, at: number): void => {
      list.termsAt(at);
      full[i] = f(full[i]! + terms.whole);
      if (terms.title !== 0) pre[i] = f(pre[i]! + terms.title);
    };
    let slot: Int32Array | undefined;
    for (const lists of operands) {
      for (const list of lists) {
        this.termed(list);
        if (list.byDoc && list.allTermed(this.docN.length)) {
          // Kept by entry (0 where the entry lacks the word, and adding 0 changes no sum).
          const kept = list.kept!;
          for (let i = 0; i < hits.length; i++) {
            const d = 2 * hits[i]!;
            full[i] = full[i]! + kept[d]!;
            const t = kept[d + 1]!;
            if (t !== 0) pre[i] = pre[i]! + t;
          }
        } else if (list.docs.length <= hits.length) {
          // A list no longer than the hits: walked whole, its entries found among the hits.
          if (!slot) {
            slot = new Int32Array(this.docN.length).fill(-1);
            for (let i = 0; i < hits.length; i++) slot[hits[i]!] = i;
          }
          const docs = list.docs.data;
          for (let at = 0; at < list.docs.length; at++) {
            const i = slot[docs[at]!]!;
            if (i >= 0) add(i, list, at);
          }
        } else {
          // A longer one, not kept by entry: the hits sought in it.
          const cursor = new Cursor(list);
          for (let i = 0; i < hits.length; i++) {
            const at = cursor.seek(hits[i]!);
            if (at >= 0) add(i, list, at);
          }
        }
      }
    }
    // An entry without a title position has only title terms of 0; a Float32Array's store rounds
    // as Math.fround, and a sum of terms is never negative (finish changes nothing).
    const size = operands.length;
    if (size > 1) for (let i = 0; i < hits.length; i++) if (pre[i] !== 0) pre[i] = pre[i]! / size;
    return { pre, full };
  }

  /**
   * ts_rank(RANK_WEIGHTS, the vector or its title, query, normalized ? 1 : 0) of one entry;
   * `locate(operand, list)` finds the entry in that operand's list (-1: not there).
   */
  private rank(doc: number, operands: Postings[][], locate: (operand: number, list: number) => number, and: boolean, whole: boolean): number {
    if ((whole ? this.docSize.data[doc] : this.docTitleSize.data[doc]) === 0) return 0;
    const title = !whole;
    let res: number;
    if (!and || operands.length < 2) {
      res = f(0);
      for (let oi = 0; oi < operands.length; oi++) {
        const lists = operands[oi]!;
        for (let li = 0; li < lists.length; li++) {
          const at = locate(oi, li);
          if (at < 0) continue;
          lists[li]!.termsAt(at);
          res = f(res + (title ? terms.title : terms.whole));
        }
      }
      res = f(res / operands.length);
    } else {
      // calc_rank_and: each operand's lexemes in turn, every pair of positions with an earlier
      // operand's (its last lexeme's: tsrank.c keeps one per operand). Over the title, only the
      // title's positions, and a lexeme without one is not in it.
      res = f(-1);
      const heldData: (Uint16Array | undefined)[] = [];
      const heldFrom: number[] = [];
      const heldTo: number[] = [];
      for (let i = 0; i < operands.length; i++) {
        heldData.push(undefined);
        heldFrom.push(0);
        heldTo.push(0);
        const lists = operands[i]!;
        for (let li = 0; li < lists.length; li++) {
          const at = locate(i, li);
          if (at < 0) continue;
          const list = lists[li]!;
          const mine = list.positions.data;
          const from = list.starts.data[at]!;
          const to = list.end(at);
          if (title && !hasWeight(mine, from, to, 1 << TITLE)) continue;
          heldData[i] = mine;
          heldFrom[i] = from;
          heldTo[i] = to;
          for (let k = 0; k < i; k++) {
            const other = heldData[k];
            if (!other) continue;
            for (let l = from; l < to; l++) {
              if (title && mine[l]! >> 14 !== TITLE) continue;
              for (let p = heldFrom[k]!; p < heldTo[k]!; p++) {
                if (title && other[p]! >> 14 !== TITLE) continue;
                const distance = Math.abs((mine[l]! & (MAX_ENTRY_POS - 1)) - (other[p]! & (MAX_ENTRY_POS - 1)));
                if (distance === 0) continue;
                const current = f(Math.sqrt(f(f(WEIGHTS[mine[l]! >> 14]! * WEIGHTS[other[p]! >> 14]!) * wordDistance(distance))));
                res = res < 0 ? current : f(1.0 - (1.0 - res) * (1.0 - current));
              }
            }
          }
        }
      }
    }
    return finish(res, whole ? this.docNorm.data[doc]! : 0);
  }
}

/**
 * `a <distance> b` over the entries `docs` (increasing, each holding both words): the entries where
 * a position of b of an allowed weight follows one of a by `distance`, written to `out`; returns
 * how many. Both lists are walked once, in locals: the one loop of a phrase of two common words.
 */
function adjacent(a: Postings, aWeight: number, b: Postings, bWeight: number, distance: number, docs: Int32Array, out: Int32Array): number {
  const aDocs = a.docs.data;
  const aStarts = a.starts.data;
  const aN = a.docs.length;
  const pa = a.positions.data;
  const aLast = a.positions.length;
  const bDocs = b.docs.data;
  const bStarts = b.starts.data;
  const bN = b.docs.length;
  const pb = b.positions.data;
  const bLast = b.positions.length;
  const mask = MAX_ENTRY_POS - 1;
  // The title's positions come first (entries where they do not are refused: MemoryIndex.docOdd).
  const titleOnly = bWeight === 1 << TITLE;
  let n = 0;
  let ai = 0;
  let bi = 0;
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d]!;
    while (bi < bN && bDocs[bi]! < doc) bi++;
    while (ai < aN && aDocs[ai]! < doc) ai++;
    if (bi >= bN || ai >= aN || bDocs[bi] !== doc || aDocs[ai] !== doc) continue;
    const bEnd = bi + 1 < bN ? bStarts[bi + 1]! : bLast;
    const aEnd = ai + 1 < aN ? aStarts[ai + 1]! : aLast;
    let i = aStarts[ai]!;
    let found = false;
    for (let j = bStarts[bi]!; j < bEnd && !found; j++) {
      if (bWeight !== 0 && !(bWeight & (1 << (pb[j]! >> 14)))) {
        if (titleOnly) break;
        continue;
      }
      const want = (pb[j]! & mask) - distance;
      while (i < aEnd && (pa[i]! & mask) < want) i++;
      for (let k = i; k < aEnd && (pa[k]! & mask) === want; k++) {
        if (aWeight === 0 || aWeight & (1 << (pa[k]! >> 14))) {
          found = true;
          break;
        }
      }
    }
    if (found) out[n++] = doc;
  }
  return n;
}

/** A frequent lexeme's position in an entry, sortable by position: its position (14 bits), weight code (2) and number (8). */
function pairItem(position: number, frequent: number): number {
  return ((position & (MAX_ENTRY_POS - 1)) << 10) | ((position >> 14) << 8) | frequent;
}

function pairKey(a: number, b: number, weight: number): number {
  return (a << 10) | (b << 2) | weight;
}

/** Whether positions from..to hold one of a weight in `weights` (bits by weight code). */
function hasWeight(positions: Uint16Array, from: number, to: number, weights: number): boolean {
  for (let k = from; k < to; k++) if (weights & (1 << (positions[k]! >> 14))) return true;
  return false;
}

/** calc_rank's end: a rank below 0 (no pair) is 1e-20, then divided by log2(cnt_length + 1) when normalized (`norm`, else 0). */
function finish(res: number, norm: number): number {
  const out = res < 0 ? f(1e-20) : res;
  return norm > 0 ? f(out / norm) : out;
}

/** lexemeTerms' answer (one object, reused). */
const terms = { whole: 0, title: 0 };

/**
 * calc_rank_or's term for one lexeme of an entry (tsrank.c), over its positions from..to and over
 * its title's alone (A: title_search), in one walk, into `terms`.
 */
function lexemeTerms(ps: Uint16Array, from: number, to: number): void {
  let resj = f(0);
  let wjm = f(-1);
  let jm = 0;
  let tres = f(0);
  let tj = 0;
  for (let k = from; k < to; k++) {
    const code = ps[k]! >> 14;
    const w = WEIGHTS[code]!;
    const j = k - from;
    resj = f(resj + f(w / ((j + 1) * (j + 1))));
    if (w > wjm) {
      wjm = w;
      jm = j;
    }
    if (code === TITLE) {
      tres = f(tres + f(w / ((tj + 1) * (tj + 1))));
      tj++;
    }
  }
  terms.whole = to > from ? f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1)))) / 1.64493406685 : 0;
  // Over the title alone every position weighs A: the first is the largest.
  const a = WEIGHTS[TITLE]!;
  terms.title = tj > 0 ? f(f(a + tres) - a) / 1.64493406685 : 0;
}

/**
 * The value at index `k` of `a` sorted ascending (what `a.sort()[k]` gives), found by selection
 * in linear time: `a` is reordered. No NaN (title scores and sizes have none).
 */
function select(a: Float32Array | Int32Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    // Median of three as the pivot, then Hoare's partition.
    const mid = (lo + hi) >> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** ORDER BY grp, rank DESC, pre DESC, search_size, created_at DESC, n DESC. */
function compareRanked(x: RankedRow, y: RankedRow): number {
  return x.grp - y.grp || y.rank - x.rank || y.pre - x.pre || x.searchSize - y.searchSize || compareText(y.createdAt, x.createdAt) || y.n - x.n;
}

/**
 * The lexemes no hit of `q` holds: the words its top conjunction (the ANDs from its root) negates,
 * alone or in an OR of them (`a & !(b | c)`, as search.ts writes the negatives, names b and c; a
 * negated phrase names none).
 */
function negatedWords(q: Query, out: Set<string>, negated = false): Set<string> {
  if (!negated && q.t === 'and') {
    negatedWords(q.a, out);
    negatedWords(q.b, out);
  } else if (!negated && q.t === 'not') negatedWords(q.a, out, true);
  else if (negated && q.t === 'or') {
    negatedWords(q.a, out, true);
    negatedWords(q.b, out, true);
  } else if (negated && q.t === 'val') out.add(q.lexeme);
  return out;
}

function collectVals(q: Query, out: Operand[]): void {
  if (q.t === 'val') out.push(q);
  else if (q.t === 'not') collectVals(q.a, out);
  else {
    collectVals(q.a, out);
    collectVals(q.b, out);
  }
}

function collectPhrase(q: Query, out: Operand[]): void {
  if (q.t === 'val') out.push(q);
  else if (q.t === 'phrase') {
    collectPhrase(q.a, out);
    collectPhrase(q.b, out);
  } else throw new Refused('an operator inside a phrase');
}

/** Where the lexeme `quoted` read last ended (past its closing quote). */
let quotedEnd = 0;

/**
 * The lexeme quoted at s[start] as tsvectorout and tsqueryout write one (a quote doubled, a
 * backslash before a quote or a backslash); sets quotedEnd.
 */
function quoted(s: string, start: number): string {
  let text = '';
  let i = start + 1;
  for (;;) {
    let j = i;
    while (j < s.length && s[j] !== "'" && s[j] !== '\\') j++;
    text += s.slice(i, j);
    if (j >= s.length || (s[j] === '\\' && j + 1 >= s.length)) throw new Refused('an unterminated lexeme');
    if (s[j] === '\\') {
      text += s[j + 1];
      i = j + 2;
    } else if (s[j + 1] === "'") {
      text += "'";
      i = j + 2;
    } else {
      quotedEnd = j + 1;
      return text;
    }
  }
}

/**
 * Calls `add(lexeme, positions, count)` per lexeme of a tsvector's text (`'word':1A,5 'x'`), the
 * positions as WordEntryPos (weight code << 14 | position) in a reused array.
 */
function parseVector(s: string, add: (lexeme: string, positions: Uint16Array, count: number) => void): void {
  const positions = new Uint16Array(256);
  let i = 0;
  while (i < s.length) {
    if (s[i] !== "'") {
      i++;
      continue;
    }
    const lexeme = quoted(s, i);
    let j = quotedEnd;
    let count = 0;
    if (s[j] === ':') {
      j++;
      for (;;) {
        let value = 0;
        while (s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) value = value * 10 + (s.charCodeAt(j++) - 48);
        const c = s[j];
        const code = c === 'A' ? 3 : c === 'B' ? 2 : c === 'C' ? 1 : 0;
        if (code > 0 || c === 'D') j++;
        if (count < positions.length) positions[count++] = (code << 14) | Math.min(value, MAX_ENTRY_POS - 1);
        if (s[j] !== ',') break;
        j++;
      }
    }
    add(lexeme, positions, count);
    i = j;
  }
}
