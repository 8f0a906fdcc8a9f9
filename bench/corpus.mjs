// Deterministic, English-like progress entries for the benchmarks: words drawn from a vocabulary
// of a few thousand words (function words, then software and everyday words with their inflected
// forms, then a long tail of identifiers) with a Zipf-like distribution, so that the full-text
// index, the title trigrams and the tag index see the skew of real text, not unique random tokens.

/** Seeded PRNG (mulberry32): the same seed gives the same corpus on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FUNCTION_WORDS = `the to and of a in that is for it with as was on be this by are not from at or have an
but which we they so all were can if there no been has would their will more one when also into what
then than only its other some could any these our after about most may should before while because
them over each where both just now still how out up new every same such those first then here very
again once why without under between through during since until within against among per via`.split(/\s+/);

// Base words; nouns get a plural, verbs -s/-ed/-ing, so the vocabulary grows to a few thousand.
const NOUNS = `test build file module function error bug fix change commit branch merge review request response
server client handler route endpoint query index table column row schema migration record entry log
message event queue task job worker thread process lock journal snapshot cache buffer stream socket
connection session token user account password permission role policy config setting option flag
value type interface class method property field parameter argument result output input format parser
lexer compiler bundle package dependency version release deployment pipeline container image cluster node
service api library framework component view page layout style theme icon button form dialog panel menu
sidebar editor terminal command script tool extension plugin provider adapter wrapper helper utility
validator serializer encoder decoder checksum header footer payload body string number integer date time
timestamp timezone duration interval timeout retry backoff limit threshold metric counter gauge histogram
trace span benchmark profile report summary description title comment note document readme guide tutorial
example sample fixture mock stub spy assertion expectation scenario case suite runner harness coverage
regression performance latency throughput memory leak allocation garbage collection heap stack frame
pointer reference array list map set tree graph edge vertex path directory folder archive backup restore
database transaction rollback savepoint constraint key trigger cursor statement batch chunk page offset
window frame tab pane split diff patch hunk line character word sentence paragraph section chapter
project repository workspace issue milestone sprint deadline estimate priority label tag owner reviewer
author maintainer contributor team meeting decision question answer problem solution approach idea plan
goal step phase stage state status progress update upgrade downgrade rollout feature toggle experiment
variant cohort customer invoice payment order cart checkout product price discount coupon shipment
address email notification alert reminder schedule calendar report chart dashboard widget filter sort
search result ranking score weight signal model prompt agent context window embedding vector sampling
completion temperature provider endpoint gateway proxy firewall certificate secret credential vault
domain host port protocol header cookie redirect origin policy browser device phone tablet screen
keyboard mouse click scroll focus selection clipboard shortcut accessibility locale translation string`.split(/\s+/);

const VERBS = `add remove update fix refactor rename move extract inline split merge rewrite simplify clean
document test verify validate check parse format lint compile build bundle deploy release publish install
configure enable disable toggle migrate upgrade downgrade revert restore backup export import load save
store fetch query index search filter sort group count sum measure profile trace log report record
replay retry debounce throttle cache invalidate evict flush sync lock unlock acquire release wait
notify emit subscribe unsubscribe listen handle dispatch route serve render paint layout resize scroll
focus select copy paste drag drop open close start stop restart pause resume cancel abort schedule queue
assign lease expire renew claim complete approve dismiss reject accept review comment mention tag
summarise summarize describe explain investigate reproduce diagnose isolate bisect patch harden secure
encrypt decrypt sign hash encode decode compress decompress stream pipe buffer chunk batch split join
connect disconnect reconnect authenticate authorize register unregister create delete drop insert
replace append prepend trim pad wrap unwrap map reduce collect convert cast coerce normalise normalize
fold escape sanitise sanitize translate localise localize benchmark optimise optimize speed reduce
increase decrease limit cap bound guard catch throw raise handle recover crash hang leak`.split(/\s+/);

const ADJECTIVES = `new old small large quick slow fast simple complex clean dirty stable flaky broken fixed
missing extra empty full partial complete incomplete pending ready blocked stale fresh durable atomic
concurrent parallel serial sequential async synchronous remote local global private public internal
external shared unique duplicate invalid valid optional required default custom manual automatic
readable writable visible hidden active inactive current previous next last initial final primary
secondary temporary permanent safe unsafe strict loose exact approximate early late recent legacy
modern minimal maximal careful noisy quiet heavy light deep shallow wide narrow short long correct wrong
obvious subtle rare common frequent occasional random deterministic idempotent expensive cheap`.split(/\s+/);

const ADVERBS = `now again already still only also just even first finally quickly slowly carefully
correctly safely roughly mostly partly fully almost nearly`.split(/\s+/);

function plural(noun) {
  if (/(s|x|z|ch|sh)$/.test(noun)) return noun + 'es';
  if (/[^aeiou]y$/.test(noun)) return noun.slice(0, -1) + 'ies';
  return noun + 's';
}

const IRREGULAR = {
  split: ['split', 'splitting'],
  build: ['built', 'building'],
  rewrite: ['rewrote', 'rewriting'],
  catch: ['caught', 'catching'],
  throw: ['threw', 'throwing'],
  hang: ['hung', 'hanging'],
};

function verbForms(verb) {
  if (IRREGULAR[verb]) return [verb, ...IRREGULAR[verb], plural(verb)];
  const stem = verb.endsWith('e') ? verb.slice(0, -1) : verb;
  const cvc = /^[a-z]*[^aeiou][aeiou][bdgmnpt]$/.test(verb) && verb.length <= 4;
  const doubled = cvc ? verb + verb.at(-1) : stem;
  const past = /[^aeiou]y$/.test(verb) ? verb.slice(0, -1) + 'ied' : verb.endsWith('e') ? verb + 'd' : doubled + 'ed';
  const ing = verb.endsWith('ie') ? verb.slice(0, -2) + 'ying' : (cvc ? doubled : stem) + 'ing';
  return [verb, past, ing, plural(verb)];
}

function shuffle(list, random) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/**
 * The vocabulary in rank order: function words first (most frequent, as in English), then content
 * words in a fixed shuffled order, then identifiers (camelCase names, file names) as the long tail.
 */
export function buildVocabulary(seed = 7) {
  const random = rng(seed);
  const content = new Set();
  for (const n of NOUNS) {
    content.add(n);
    content.add(plural(n));
  }
  for (const v of VERBS) for (const f of verbForms(v)) content.add(f);
  for (const a of [...ADJECTIVES, ...ADVERBS]) content.add(a);
  for (const w of FUNCTION_WORDS) content.delete(w);
  const contentWords = shuffle([...content], random);
  const identifiers = new Set();
  const nouns = [...new Set(NOUNS)];
  while (identifiers.size < 1200) {
    const a = VERBS[Math.floor(random() * VERBS.length)];
    const b = nouns[Math.floor(random() * nouns.length)];
    identifiers.add(random() < 0.6 ? `${a}${b[0].toUpperCase()}${b.slice(1)}` : `${b}_${nouns[Math.floor(random() * nouns.length)]}`);
  }
  const functionWords = [...new Set(FUNCTION_WORDS)];
  const words = [...functionWords, ...contentWords, ...identifiers];
  return { words, functionWords, contentWords, identifiers: [...identifiers], nouns };
}

/** Maps u in [0, 1) to a rank 0..n-1 with P(r) proportional to 1 / (r + q)^s (Zipf-Mandelbrot). */
export function zipfRanker(n, s = 1.0, q = 2.7) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) {
    sum += 1 / Math.pow(r + q, s);
    cdf[r] = sum;
  }
  for (let r = 0; r < n; r++) cdf[r] /= sum;
  return (u) => {
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const TAGS = `auth refactor tests bugfix performance docs ui api database storage ci build deps security
search mcp cli migration cleanup logging config release infra frontend backend review flaky
accessibility i18n telemetry cache queue workflow summaries journal lock snapshot memory latency
webview tree-view settings packaging windows macos linux typescript esbuild lint schema validation
error-handling concurrency indexing ranking sampling openai transcripts diff git`.split(/\s+/);

const AGENTS = ['copilot', 'claude-code', 'codex', 'cursor', 'gemini-cli', 'aider'];

export const BENCH_PROJECT = 'bench-project';
/** Entries are spread evenly over this period, oldest first. */
export const CORPUS_START = Date.parse('2024-01-01T00:00:00.000Z');
export const CORPUS_END = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * Generates progress entries one by one. `make(i)` is a pure function of i (and the seed), so a
 * ledger and its better-sqlite3 twin get the same entries, in any order of generation.
 */
export function createCorpus({ seed = 42, total = 100_000, contentChars = 1500 } = {}) {
  const vocab = buildVocabulary(seed);
  const nWords = vocab.words.length;
  const rank = zipfRanker(nWords);
  const span = CORPUS_END - CORPUS_START;

  function make(i) {
    const random = rng(seed * 1_000_003 + i * 7919 + 1);
    const next = () => vocab.words[rank(random())];
    const titleWords = 4 + Math.floor(random() * 7);
    const t = [];
    // Titles lead with a verb in the past tense or the imperative, as agents write them.
    const lead = VERBS[Math.floor(Math.pow(random(), 2) * VERBS.length)];
    t.push(lead[0].toUpperCase() + lead.slice(1));
    while (t.length < titleWords) t.push(next());
    let title = t.join(' ');
    if (title.length > 100) title = title.slice(0, 100).replace(/\s+\S*$/, '');

    const target = Math.round(contentChars * (0.85 + random() * 0.3));
    let content = '';
    while (content.length < target) {
      const n = 8 + Math.floor(random() * 14);
      const s = [];
      for (let k = 0; k < n; k++) {
        const x = random();
        if (x < 0.02) s.push(`src/${vocab.nouns[Math.floor(random() * vocab.nouns.length)]}/${vocab.identifiers[Math.floor(random() * vocab.identifiers.length)]}.ts`);
        else if (x < 0.03) s.push(String(Math.floor(random() * 5000)));
        else s.push(next());
      }
      let sentence = s.join(' ');
      sentence = sentence[0].toUpperCase() + sentence.slice(1) + (random() < 0.1 ? ':' : '.');
      content += (content.length === 0 ? '' : random() < 0.15 ? '\n\n' : ' ') + sentence;
    }
    if (content.length > contentChars * 1.2) content = content.slice(0, Math.round(contentChars * 1.2));

    const tagCount = Math.floor(random() * 4); // 0..3
    const tags = [];
    while (tags.length < tagCount) {
      const tag = TAGS[Math.floor(Math.pow(random(), 2.2) * TAGS.length)];
      if (!tags.includes(tag)) tags.push(tag);
    }
    const createdAt = new Date(CORPUS_START + Math.floor((span * i) / total)).toISOString();
    const agentId = AGENTS[Math.floor(Math.pow(random(), 1.5) * AGENTS.length)];
    return { projectId: BENCH_PROJECT, title, content, tags, agentId, createdAt };
  }

  return { make, vocab, tags: TAGS, agents: AGENTS };
}
