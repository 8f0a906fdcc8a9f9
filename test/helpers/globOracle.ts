// Pathological globs for property tests: stars between short literals ("*a*ab*b*a"), the shape
// that made backtracking matchers run for minutes on a long name, and a plain scan that says
// whether a name matches one (each literal found leftmost, in order), to check answers against.

import fc from 'fast-check';

export interface StarGlob {
  literals: string[];
  leadingStar: boolean;
  trailingStar: boolean;
  pattern: string;
}

/**
 * Star globs over 'a' and 'b', mostly 'a' (literals that keep matching a long run are what makes a
 * backtracking matcher try every way to place the stars): up to `maxLiterals` literals. Never empty.
 */
export function starGlob(maxLiterals = 24): fc.Arbitrary<StarGlob> {
  const literal = fc.constantFrom('a', 'a', 'a', 'aa', 'b', 'ab', 'ba', 'aab');
  return fc
    .tuple(fc.array(literal, { maxLength: maxLiterals }), fc.boolean(), fc.boolean())
    .filter(([literals, leading]) => literals.length > 0 || leading)
    .map(([literals, leadingStar, trailing]) => {
      const trailingStar = literals.length === 0 || trailing;
      return { literals, leadingStar, trailingStar, pattern: `${leadingStar ? '*' : ''}${literals.join('*')}${literals.length > 0 && trailingStar ? '*' : ''}` };
    });
}

/** Names that nearly match such globs: a long run of 'a' (mostly), 'b' or 'ab', then a short tail. */
export function longName(maxUnits: number): fc.Arbitrary<string> {
  return fc.tuple(fc.nat({ max: maxUnits }), fc.constantFrom('a', 'a', 'b', 'ab'), fc.constantFrom('', 'b', 'ba', 'c', 'c')).map(([n, unit, tail]) => unit.repeat(n) + tail);
}

/** Whether `text` (no '/') matches the glob. */
export function starGlobMatches(glob: StarGlob, text: string): boolean {
  const { literals, leadingStar, trailingStar } = glob;
  if (literals.length === 0) return true;
  let from = 0;
  let end = text.length;
  let middle = literals;
  if (!leadingStar) {
    if (!text.startsWith(literals[0]!)) return false;
    from = literals[0]!.length;
    middle = middle.slice(1);
  }
  if (!trailingStar) {
    if (middle.length === 0) return from === text.length;
    const last = literals[literals.length - 1]!;
    if (text.length - last.length < from || !text.endsWith(last)) return false;
    end = text.length - last.length;
    middle = middle.slice(0, -1);
  }
  for (const l of middle) {
    const at = text.indexOf(l, from);
    if (at < 0 || at + l.length > end) return false;
    from = at + l.length;
  }
  return true;
}

/** The report's stalling area, "*a*a*a*a*a*a*a*b": seven stars placed every way over a run of 'a'. */
export const STALLING_GLOB: StarGlob = { literals: [...'aaaaaaab'], leadingStar: true, trailingStar: false, pattern: '*a*a*a*a*a*a*a*b' };
