// The glob matcher of .gitignore rules and scope areas: `*` and `?` stop at `/`, `**` crosses
// folders, `[...]` classes. Patterns are untrusted, so matching must never backtrack: it runs the
// pattern as a set of positions over the text once (O(text x pattern)), never as a RegExp.

export interface GlobOptions {
  caseInsensitive?: boolean;
  /** Also true when the glob matches a folder the text lies in: "src/*" covers "src/a/b.ts". */
  orInside?: boolean;
}

type CharTest = (c: string) => boolean;

/** One piece of a compiled glob. */
type Token =
  | { kind: 'char'; test: CharTest } // one code point
  | { kind: 'star' } // [^/]*
  | { kind: 'globstar' } // anything, slashes included
  | { kind: 'dirs' }; // nothing, or anything ending with a slash (the "**/" of "a/**/b")

interface ClassItem {
  lo: number;
  hi: number;
}

/** Compares two code points as a case-insensitive RegExp would (simple folding, approximately). */
function sameIgnoringCase(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase() || a.toUpperCase() === b.toUpperCase();
}

function inClass(items: readonly ClassItem[], c: string): boolean {
  const cp = c.codePointAt(0)!;
  // A case mapping to several characters ("ß" to "SS") is no single member.
  if (c.length > (cp > 0xffff ? 2 : 1)) return false;
  return items.some((r) => cp >= r.lo && cp <= r.hi);
}

/**
 * The class at pattern[start] === '[' (as code points), or undefined when it is not one (no closing
 * ']' before a '/'), in which case '[' is an ordinary character. '!' or '^' first negates; ']'
 * first is a member; a backslash escapes the next character; 'a-z' is a range.
 */
function parseClass(p: readonly string[], start: number, caseInsensitive: boolean): { test: CharTest; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (p[i] === '!' || p[i] === '^') {
    negate = true;
    i++;
  }
  const members: { ch: string; escaped: boolean }[] = [];
  for (let first = true; i < p.length; i++, first = false) {
    const c = p[i]!;
    if (c === ']' && !first) {
      const items: ClassItem[] = [];
      for (let k = 0; k < members.length; k++) {
        const lo = members[k]!.ch.codePointAt(0)!;
        const dash = members[k + 1];
        if (dash && dash.ch === '-' && !dash.escaped && k + 2 < members.length) {
          items.push({ lo, hi: members[k + 2]!.ch.codePointAt(0)! });
          k += 2;
        } else {
          items.push({ lo, hi: lo });
        }
      }
      const member = caseInsensitive
        ? (ch: string) => [ch, ch.toLowerCase(), ch.toUpperCase(), ch.toUpperCase().toLowerCase()].some((v) => inClass(items, v))
        : (ch: string) => inClass(items, ch);
      // A class never matches a separator, negated or not (as git's pathname matching).
      return { test: negate ? (ch) => ch !== '/' && !member(ch) : (ch) => ch !== '/' && member(ch), end: i + 1 };
    }
    if (c === '\\' && i + 1 < p.length) {
      members.push({ ch: p[++i]!, escaped: true });
      continue;
    }
    if (c === '/') return undefined;
    members.push({ ch: c, escaped: false });
  }
  return undefined;
}

function compile(pattern: string, caseInsensitive: boolean): Token[] {
  const p = Array.from(pattern);
  const tokens: Token[] = [];
  const push = (t: Token): void => {
    const last = tokens[tokens.length - 1];
    // Runs that match the same as one of them: keeps the pattern's size honest.
    if (last && t.kind !== 'char' && last.kind === t.kind) return;
    tokens.push(t);
  };
  const literal = (c: string): Token => ({ kind: 'char', test: caseInsensitive ? (ch) => sameIgnoringCase(ch, c) : (ch) => ch === c });
  for (let i = 0; i < p.length; ) {
    const c = p[i]!;
    if (c === '*') {
      if (p[i + 1] === '*') {
        const before = i === 0 || p[i - 1] === '/';
        const after = p[i + 2];
        if (before && after === '/') {
          push({ kind: 'dirs' });
          i += 3;
          continue;
        }
        if (before && after === undefined) {
          push({ kind: 'globstar' });
          i += 2;
          continue;
        }
        // Other runs of asterisks are ordinary asterisks.
        while (p[i] === '*') i++;
        push({ kind: 'star' });
        continue;
      }
      push({ kind: 'star' });
      i++;
      continue;
    }
    if (c === '?') {
      tokens.push({ kind: 'char', test: (ch) => ch !== '/' });
      i++;
      continue;
    }
    if (c === '[') {
      const cls = parseClass(p, i, caseInsensitive);
      if (cls) {
        tokens.push({ kind: 'char', test: cls.test });
        i = cls.end;
        continue;
      }
      tokens.push(literal('['));
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < p.length) {
      tokens.push(literal(p[i + 1]!));
      i += 2;
      continue;
    }
    tokens.push(literal(c));
    i++;
  }
  return tokens;
}

/**
 * A matcher for one glob: true when the whole text matches (or, with `orInside`, the text or a
 * folder it lies in). Runs in time proportional to text length times pattern length, whatever the
 * pattern, so a hostile `.gitignore` or area cannot stall the server.
 */
export function globMatcher(pattern: string, options: GlobOptions = {}): (text: string) => boolean {
  const tokens = compile(pattern, options.caseInsensitive === true);
  const m = tokens.length;
  // The fewest code points a match consumes: a longer pattern cannot match, whatever its stars.
  const minLength = tokens.filter((t) => t.kind === 'char').length;
  const orInside = options.orInside === true;

  // States: 2*i "before token i", 2*i+1 "inside the dirs token i" (after its optional text, before
  // its slash). State 2*m accepts.
  const size = 2 * m + 2;
  return (text: string): boolean => {
    const chars = Array.from(text);
    const n = chars.length;
    if (minLength > n) return false;
    let current = new Int32Array(size);
    let next = new Int32Array(size);
    let nextCount = 0;
    const seen = new Int32Array(size); // generation at which a state was added
    let generation = 1;

    const add = (list: Int32Array, count: number, state: number): number => {
      // Adds a state and what it reaches without consuming a character (edges only go forward).
      for (let s = state; ; ) {
        if (seen[s] === generation) return count;
        seen[s] = generation;
        list[count++] = s;
        if (s % 2 === 1 || s === 2 * m) return count;
        const t = tokens[s / 2]!;
        if (t.kind === 'char') return count;
        if (t.kind === 'dirs' && seen[s + 1] !== generation) {
          seen[s + 1] = generation;
          list[count++] = s + 1;
        }
        s += 2;
      }
    };

    const accepts = (at: number): boolean => {
      if (seen[2 * m] !== generation) return false;
      if (at === n) return true;
      return orInside && chars[at] === '/';
    };

    let currentCount = add(current, 0, 0);
    if (accepts(0)) return true;
    for (let k = 0; k < n; k++) {
      const c = chars[k]!;
      generation++;
      nextCount = 0;
      for (let j = 0; j < currentCount; j++) {
        const s = current[j]!;
        if (s % 2 === 1) {
          const i = (s - 1) / 2;
          nextCount = add(next, nextCount, s);
          if (c === '/') nextCount = add(next, nextCount, 2 * (i + 1));
          continue;
        }
        const i = s / 2;
        if (i === m) continue;
        const t = tokens[i]!;
        if (t.kind === 'char') {
          if (t.test(c)) nextCount = add(next, nextCount, 2 * (i + 1));
        } else if (t.kind === 'star') {
          if (c !== '/') nextCount = add(next, nextCount, s);
        } else if (t.kind === 'globstar') {
          nextCount = add(next, nextCount, s);
        }
      }
      if (nextCount === 0) return false;
      [current, next] = [next, current];
      currentCount = nextCount;
      if (accepts(k + 1)) return true;
    }
    return false;
  };
}

export function hasGlobMagic(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}
