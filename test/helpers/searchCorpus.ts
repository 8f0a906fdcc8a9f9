// The generated corpus of the ranked-search tests (searchReference.test.ts, pgMemoryIndex.test.ts):
// words with Zipf frequencies, entries three a minute with some a day earlier, the query kinds
// they compare, and entries whose PostgreSQL vectors lose positions.

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ten', 'ra', 'sup', 'dex', 'vor', 'qui', 'zan', 'pel', 'tor', 'nu', 'bri', 'sha', 'gel'];

export function vocabulary(random: () => number, size: number): string[] {
  const words = new Set<string>(['the', 'and', 'of', 'to', 'fix', 'test', 'tests', 'testing', 'tested', 'cache', 'queue']);
  while (words.size < size) {
    const n = 1 + Math.floor(random() * 3);
    let w = '';
    for (let k = 0; k < n; k++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

export function zipf(random: () => number, n: number): () => number {
  const cdf: number[] = [];
  let sum = 0;
  for (let r = 0; r < n; r++) cdf.push((sum += 1 / Math.pow(r + 2.7, 1.0)));
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface Doc {
  id: string;
  title: string;
  content: string;
  createdAt: string;
  /** Insertion order (the ledger's rowid order, the last tie-break). */
  seq: number;
  /** The project it is written to, where a test puts entries in several. */
  projectId?: string;
  tags?: string[];
}

export const BASE = Date.UTC(2025, 0, 1);

export function makeCorpus(count: number, seed: number, words: string[]): Doc[] {
  const random = rng(seed);
  const rank = zipf(random, words.length);
  const next = (): string => words[rank()]!;
  const docs: Doc[] = [];
  for (let i = 0; i < count; i++) {
    const title = Array.from({ length: 3 + Math.floor(random() * 6) }, next).join(' ');
    const sentences: string[] = [];
    const n = 2 + Math.floor(random() * 5);
    for (let k = 0; k < n; k++) sentences.push(Array.from({ length: 5 + Math.floor(random() * 12) }, next).join(' ') + (random() < 0.3 ? ', then' : '.'));
    // Three entries per minute (equal dates, ordered by insertion), and every 37th dated a day
    // earlier, so that equal scores are ordered by date and not by insertion.
    const minute = Math.floor(i / 3) - (i % 37 === 0 ? 24 * 60 : 0);
    docs.push({
      id: `d${seed}-${i}`,
      title: title[0]!.toUpperCase() + title.slice(1),
      content: sentences.join(' '),
      createdAt: new Date(BASE + minute * 60_000).toISOString(),
      seq: 0,
    });
  }
  return docs;
}

export function tokens(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

export function queriesFor(words: string[], docs: readonly Doc[]): string[] {
  // A phrase that occurs: two words side by side in some entry's content.
  const pair = tokens(docs[5]!.content).slice(2, 4).join(' ');
  const triple = tokens(docs[11]!.content).slice(0, 3).join(' ');
  const [w0, w1, w2] = [words[0]!, words[1]!, words[3]!];
  const mid = words[40]!;
  const rare = words[300]!;
  return [
    w0, // in nearly every entry
    w1,
    mid,
    rare,
    `${mid} ${w2}`,
    `${w1} ${rare}`,
    `"${pair}"`,
    `"${triple}"`,
    `"the ${mid}"`,
    'test*',
    `${mid.slice(0, 3)}*`,
    `${w0} -${w1}`,
    `${w1} -"${pair}"`,
    `${mid} OR ${rare}`,
    `${w1} ${mid} OR ${rare}`,
    `${rare} OR ${mid} -${w2}`,
    `${mid} -${w1} -${w2}`,
    `${w1} -${mid.slice(0, 3)}*`,
    'cafe',
    'café crème',
    'nothingmatchesthis',
  ];
}

/** A hand-written entry `<prefix>-<k>` dated after every generated one. */
export function extraDoc(prefix: string, k: number, title: string, content: string): Doc {
  return { id: `${prefix}-${k}`, title, content, createdAt: new Date(BASE + 10 ** 7 + k).toISOString(), seq: 0 };
}

/** `k` words: `word` repeated, or (a function) the word for each place. */
export function run(k: number, word: string | ((i: number) => string)): string {
  return Array.from({ length: k }, (_, i) => (typeof word === 'string' ? word : word(i))).join(' ');
}

/**
 * Entries whose PostgreSQL vectors lose positions (255 of a word in a text at most, none past the
 * 16,383rd word): phrases after 256 or 300 of a word and past 16,400 words, in the title and in
 * the content, a word 200 times in the title and 100 in the content (the two vectors joined keep
 * 256 of its positions), and a phrase split between the title and the content (no hit, as in
 * FTS4).
 */
export function positionDocs(): Doc[] {
  return [
    extraDoc('pos', 0, `Serve ${run(300, 'ping')} pong here`, 'a short content: pon, ing'),
    extraDoc('pos', 1, 'A short title', `${run(256, 'ping')} pong, then tail`),
    extraDoc('pos', 2, run(16_400, (i) => `t${i}`) + ' alpha beta', 'gamma delta'),
    extraDoc('pos', 3, 'Long content', run(16_400, (i) => `c${i}`) + ' alpha beta gamma'),
    extraDoc('pos', 4, run(200, 'zeta'), `${run(100, 'zeta')} omega`),
    extraDoc('pos', 5, `Ends with ${run(300, 'ping')}`, 'pong starts the content'),
    extraDoc('pos', 6, 'Ping pong early', `ping pong ${run(280, 'ping')}`),
    extraDoc('pos', 7, 'Only ping', 'ping alone, then pong'),
  ];
}

/** Queries on positionDocs: phrases, a prefix phrase, a phrase across the columns, OR, exclusions. */
export const POSITION_QUERIES = [
  '"ping pong"',
  'ping pong',
  'ping-po*',
  '"ping pon"',
  '"ing pong"',
  '"ping ping pong"',
  '"pong ping"',
  '"pong here"',
  '"alpha beta"',
  '"alpha beta gamma"',
  '"beta gamma"',
  '"gamma delta"',
  'alpha-bet*',
  '"zeta omega"',
  '"zeta zeta omega"',
  '"ping pong" tail',
  'ping -"ping pong"',
  'ping -"pong starts"',
  '"ping pong" OR "alpha beta"',
  '"zeta omega" OR gamma -"beta gamma"',
  '"t16399 alpha" OR "c16399 alpha"',
];
