// The glob matcher of .gitignore rules and scope areas: examples of its language, agreement with the
// regular expressions it replaced (on inputs short enough for them), and pathological patterns on
// long paths through the scope check and the .gitignore rules, checked against a plain scan.

import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { globMatcher } from '../../../../src/core/workflow/globMatcher';
import { isIgnored, parseIgnoreFile } from '../../../../src/core/workflow/ignore';
import { scopeFor } from '../../../../src/core/workflow/scope';
import { longName, STALLING_GLOB, starGlob, starGlobMatches } from '../../../helpers/globOracle';

const SEED = Number(process.env.PROPERTY_SEED ?? 20260301);
const RUNS = (n: number) => Math.max(1, Math.round(n * Number(process.env.PROPERTY_RUNS_SCALE ?? 1)));

/**
 * The regular expression the matcher replaced (globSource of src/core/workflow/ignore.ts until the
 * matcher came), as the oracle: backtracking, so only for short inputs. Two deliberate differences
 * are built in: a class never matches '/' (git's rule; the expression let "[!a]" match it), and a
 * class member is always literal ("\d" in a class was a digit class, or an invalid expression).
 */
function oracleSource(pattern: string): string {
  const p = Array.from(pattern);
  const lit = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`;
  let out = '';
  for (let i = 0; i < p.length; ) {
    const c = p[i]!;
    if (c === '*') {
      if (p[i + 1] === '*') {
        const before = i === 0 || p[i - 1] === '/';
        const after = p[i + 2];
        if (before && after === '/') {
          out += '(?:.*/)?';
          i += 3;
          continue;
        }
        if (before && after === undefined) {
          out += '.*';
          i += 2;
          continue;
        }
        while (p[i] === '*') i++;
        out += '[^/]*';
        continue;
      }
      out += '[^/]*';
      i++;
      continue;
    }
    if (c === '?') {
      out += '[^/]';
      i++;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      let negate = false;
      if (p[j] === '!' || p[j] === '^') {
        negate = true;
        j++;
      }
      let body = '';
      let closed = -1;
      for (let first = true; j < p.length; j++, first = false) {
        const d = p[j]!;
        if (d === ']' && !first) {
          closed = j + 1;
          break;
        }
        if (d === '\\' && j + 1 < p.length) {
          body += lit(p[++j]!);
          continue;
        }
        if (d === '/') break;
        body += d === '-' ? '-' : lit(d);
      }
      if (closed > 0) {
        out += `(?!/)[${negate ? '^' : ''}${body}]`;
        i = closed;
        continue;
      }
      out += lit('[');
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < p.length) {
      out += lit(p[i + 1]!);
      i += 2;
      continue;
    }
    out += lit(c);
    i++;
  }
  return out;
}

function oracle(pattern: string, options: { caseInsensitive?: boolean; orInside?: boolean } = {}): ((text: string) => boolean) | undefined {
  try {
    const re = new RegExp(`^${oracleSource(pattern)}${options.orInside ? '(?:/.*)?' : ''}$`, options.caseInsensitive ? 'iu' : 'u');
    return (text) => re.test(text);
  } catch {
    return undefined; // e.g. a range out of order, which the expression refused
  }
}

describe('glob matcher', () => {
  it('matches * and ? within a folder, ** across folders, and classes', () => {
    const m = (p: string, t: string, o = {}) => globMatcher(p, o)(t);
    assert.ok(m('src/**/*.ts', 'src/a/b/c.ts'));
    assert.ok(m('src/**/*.ts', 'src/c.ts'));
    assert.ok(!m('src/*.ts', 'src/a/c.ts'));
    assert.ok(m('a/**', 'a/b/c'));
    assert.ok(!m('a/**', 'a'));
    assert.ok(m('**', 'x/y'));
    assert.ok(m('**/x', 'x') && m('**/x', 'a/b/x') && !m('**/x', 'ax'));
    assert.ok(m('a/**/b', 'a/b') && m('a/**/b', 'a/x/y/b') && !m('a/**/b', 'a/xb'));
    assert.ok(m('x**y', 'xaay') && !m('x**y', 'xa/y'), 'a ** inside a name is an ordinary *');
    assert.ok(m('[!a]b', 'cb'));
    assert.ok(!m('[!a]b', 'ab'));
    assert.ok(!m('x[!a]y', 'x/y'), 'a class never matches a separator');
    assert.ok(m('[a-c]x', 'bx') && !m('[a-c]x', 'dx'));
    assert.ok(m('[]]', ']') && m('[a\\-c]', '-') && !m('[a\\-c]', 'b'));
    assert.ok(!m('[z-a]', 'm') && !m('[z-a]', 'z'), 'a range out of order matches nothing, as in git');
    assert.ok(m('[ab', '[ab'), 'an unclosed [ is an ordinary character');
    assert.ok(m('x.(1)+', 'x.(1)+'), 'regular-expression characters are literal');
    assert.ok(m('\\*', '*') && !m('\\*', 'a'));
    assert.ok(m('ÉTÉ*', 'été.txt', { caseInsensitive: true }) && !m('ÉTÉ*', 'été.txt'));
    assert.ok(m('[A-C]*', 'bob', { caseInsensitive: true }));
    assert.ok(m('src/*', 'src/deep/file.ts', { orInside: true }) && !m('src/*', 'srcx/a', { orInside: true }));
    assert.ok(m('?', '😀'), '? is one code point');
  });

  it('agrees with the regular expressions it replaced, on short patterns and paths', () => {
    const patternChar = fc.constantFrom('a', 'b', 'A', 'é', 'É', '.', '/', '*', '*', '?', '[', ']', '!', '^', '-', '\\');
    const textChar = fc.constantFrom('a', 'b', 'A', 'B', 'é', 'É', '.', '/', '-', ']', '[', '!', '*');
    fc.assert(
      fc.property(
        fc.array(patternChar, { maxLength: 9 }).map((a) => a.join('')),
        fc.array(textChar, { maxLength: 10 }).map((a) => a.join('')),
        fc.boolean(),
        fc.boolean(),
        (pattern, text, caseInsensitive, orInside) => {
          const expected = oracle(pattern, { caseInsensitive, orInside });
          fc.pre(expected !== undefined);
          assert.equal(globMatcher(pattern, { caseInsensitive, orInside })(text), expected(text), `${JSON.stringify(pattern)} on ${JSON.stringify(text)}`);
        },
      ),
      { seed: SEED, numRuns: RUNS(5000) },
    );
  });
});

describe('pathological globs (scope areas and .gitignore rules)', function () {
  // The regular expressions these replaced took minutes on such inputs; the answers are checked here,
  // and the time is not measured (a stall shows as this timeout).
  this.timeout(60_000);

  it('answers the stalling area of a report on a long file name', () => {
    const area = '*a*a*a*a*a*a*a*b';
    const name = 'a'.repeat(200);
    const scope = scopeFor([area]);
    assert.equal(scope.inScope(`src/${name}`), false);
    assert.equal(scope.inScope(`src/${name}b`), true);
    assert.equal(scopeFor([`src/${area}`]).inScope(`src/${name}`), false);
    const rules = [{ base: '', rules: parseIgnoreFile(`${area}\n`) }];
    assert.equal(isIgnored(rules, name, false), false);
    assert.equal(isIgnored(rules, `${name}b`, false), true);
    assert.equal(isIgnored([{ base: '', rules: parseIgnoreFile(`/**/**/**/**/**/**/**/**/**/**/x\n`) }], `${'a/'.repeat(500)}y`, false), false);
    assert.equal(parseIgnoreFile(`a${' '.repeat(200_000)}b\n`).length, 1, 'inner spaces are no trailing spaces');
    assert.equal(parseIgnoreFile(`a${'/'.repeat(200_000)}b/\n`).length, 1);
  });

  it('agrees with a plain scan for stars between literals, however many, on long names', () => {
    fc.assert(
      fc.property(starGlob(), longName(400), (glob, name) => {
        const expected = starGlobMatches(glob, name);
        assert.equal(scopeFor([glob.pattern]).inScope(`dir/${name}`), expected, `area ${glob.pattern} on dir/${name}`);
        assert.equal(isIgnored([{ base: '', rules: parseIgnoreFile(`${glob.pattern}\n`) }], `dir/${name}`, false), expected, `.gitignore ${glob.pattern} on dir/${name}`);
      }),
      { seed: SEED, numRuns: RUNS(300), examples: [[STALLING_GLOB, 'a'.repeat(400)]] },
    );
  });
});
