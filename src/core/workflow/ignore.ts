// .gitignore rules outside git, for checksum snapshots: the same pattern language (negation,
// directory-only patterns, anchoring, **, character classes), one rule set per folder, the last
// matching rule winning, and nothing re-included under an excluded folder. Patterns are matched by
// globMatcher, never compiled to a RegExp: a repository's .gitignore is untrusted.

import { globMatcher } from './globMatcher';

export interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  /** Matched against the path relative to the rule's folder (anchored) or against the name. */
  anchored: boolean;
  matches: (path: string) => boolean;
}

/** Where a run of characters satisfying `pred` that ends the text starts (a loop, not /x+$/: linear). */
function trailingRunStart(text: string, pred: (c: string) => boolean): number {
  let end = text.length;
  while (end > 0 && pred(text[end - 1]!)) end--;
  return end;
}

const isSpace = (c: string): boolean => /\s/.test(c);

/** Parses the text of one .gitignore file. */
export function parseIgnoreFile(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    // Trailing spaces are dropped, except the one after a backslash.
    const spaces = trailingRunStart(line, isSpace);
    if (spaces < line.length) {
      line = spaces > 0 && line[spaces - 1] === '\\' ? `${line.slice(0, spaces - 1)}${line[spaces]!}` : line.slice(0, spaces);
    }
    if (line === '') continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith('/') && !line.endsWith('\\/')) {
      dirOnly = true;
      line = line.slice(
        0,
        trailingRunStart(line, (c) => c === '/'),
      );
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    rules.push({ negate, dirOnly, anchored, matches: globMatcher(line) });
  }
  return rules;
}

/** The rules of one folder (relative path from the walked root, '' for the root itself). */
export interface IgnoreLayer {
  base: string;
  rules: IgnoreRule[];
}

/**
 * Whether `rel` (relative to the walked root, '/'-separated) is excluded by the layers that apply
 * to it (the root's first, the deepest last): the last matching rule decides.
 */
export function isIgnored(layers: readonly IgnoreLayer[], rel: string, isDir: boolean): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  let ignored = false;
  for (const layer of layers) {
    const local = layer.base === '' ? rel : rel.slice(layer.base.length + 1);
    for (const rule of layer.rules) {
      if (rule.dirOnly && !isDir) continue;
      if (rule.matches(rule.anchored ? local : name)) ignored = !rule.negate;
    }
  }
  return ignored;
}
