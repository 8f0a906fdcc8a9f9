// .gitignore rules outside git, for checksum snapshots: the same pattern language (negation,
// directory-only patterns, anchoring, **, character classes), one rule set per folder, the last
// matching rule winning, and nothing re-included under an excluded folder. Also the glob
// matcher the scope check uses for areas.

export interface GlobOptions {
  caseInsensitive?: boolean;
}

function classBody(pattern: string, start: number): { source: string; end: number } | undefined {
  // pattern[start] === '['; returns the class and the index after its closing ']'.
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']' && !first) return { source: `[${negate ? '^' : ''}${body}]`, end: i + 1 };
    first = false;
    if (c === '\\' && i + 1 < pattern.length) {
      body += `\\${pattern[++i]}`;
      continue;
    }
    if (c === '/') return undefined; // a class never matches a separator
    body += c === '^' || c === '[' || c === '\\' ? `\\${c}` : c;
  }
  return undefined;
}

/** The regular-expression source of a glob: `*` and `?` stop at `/`, `**` crosses folders. */
export function globSource(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        const before = i === 0 || pattern[i - 1] === '/';
        const after = pattern[i + 2];
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
        // Other runs of asterisks are ordinary asterisks.
        while (pattern[i] === '*') i++;
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
      const cls = classBody(pattern, i);
      if (cls) {
        out += cls.source;
        i = cls.end;
        continue;
      }
      out += '\\[';
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < pattern.length) {
      out += pattern[i + 1]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i += 2;
      continue;
    }
    out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    i++;
  }
  return out;
}

export function globToRegExp(pattern: string, options: GlobOptions = {}): RegExp {
  return new RegExp(`^${globSource(pattern)}$`, options.caseInsensitive ? 'iu' : 'u');
}

export function hasGlobMagic(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

export interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  /** Matched against the path relative to the rule's folder (anchored) or against the name. */
  anchored: boolean;
  regex: RegExp;
}

/** Parses the text of one .gitignore file. */
export function parseIgnoreFile(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    // Trailing spaces are dropped unless escaped.
    line = line.replace(/(?<!\\)\s+$/, '').replace(/\\(\s)$/, '$1');
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
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    try {
      rules.push({ negate, dirOnly, anchored, regex: new RegExp(`^${globSource(line)}$`, 'u') });
    } catch {
      // a pattern git would also fail to use; skip it
    }
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
      if (rule.regex.test(rule.anchored ? local : name)) ignored = !rule.negate;
    }
  }
  return ignored;
}
