// Parsers for review definition files that remember the line of every value, so a refusal can say
// "line 7: agents[1].name ...". JSON in full; YAML in the subset a definition needs (block
// mappings and sequences, quoted and plain scalars, flow lists of scalars, | and > blocks,
// comments). Anything else in YAML (anchors, tags, flow mappings) is refused by line.

export interface Located {
  value: unknown;
  /** Line (1-based) of each value by its path: '' for the root, 'agents[1].name'. */
  lines: Map<string, number>;
}

export class SourceError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

// ---------- JSON ----------

export function parseJsonLocated(text: string): Located {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const fail = (message: string): never => {
    throw new SourceError(line, message);
  };
  const ws = () => {
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\n') line++;
      else if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\ufeff') return;
      i++;
    }
  };
  const describe = () => (i >= text.length ? 'end of file' : JSON.stringify(text[i]));
  const str = (): string => {
    const start = i;
    i++;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text[i]!;
      if (c === '\n') fail('unterminated string (a newline inside quotes must be written \\n)');
      if (c === '\\') i += 2;
      else if (c === '"') break;
      else i++;
    }
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('invalid escape in string');
    }
  };
  let depth = 0;
  const value = (p: string): unknown => {
    ws();
    lines.set(p, line);
    if (++depth > 64) fail('nested more than 64 levels deep');
    try {
      return valueAt(p);
    } finally {
      depth--;
    }
  };
  /** After a member of an object or array: true at its closing bracket, false after a comma (both consumed). */
  const closed = (bracket: '}' | ']'): boolean => {
    ws();
    const c = text[i];
    if (c !== ',' && c !== bracket) fail(`expected ',' or '${bracket}', found ${describe()}`);
    i++;
    return c === bracket;
  };
  const valueAt = (p: string): unknown => {
    const c = text[i];
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a quoted field name, found ${describe()}`);
        const key = str();
        ws();
        if (text[i] !== ':') fail(`expected ':' after "${key}", found ${describe()}`);
        i++;
        if (Object.prototype.hasOwnProperty.call(out, key)) fail(`field "${key}" appears twice`);
        out[key] = value(childPath(p, key));
        if (closed('}')) return out;
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value(childPath(p, out.length)));
        if (closed(']')) return out;
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) return fail(`unexpected ${describe()}`);
    i += m[0].length;
    return JSON.parse(m[0]) as unknown;
  };
  const root = value('');
  ws();
  if (i < text.length) fail(`unexpected ${describe()} after the end of the document`);
  return { value: root, lines };
}

// ---------- YAML (subset) ----------

interface YamlLine {
  no: number;
  indent: number;
  text: string;
}

function stripComment(s: string): string {
  let quote: string | null = null;
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!;
    if (quote) {
      if (c === '\\' && quote === '"') k++;
      else if (c === "'" && quote === "'" && s[k + 1] === "'") k++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      if (k === 0 || /[\s:[,-]/.test(s[k - 1]!)) quote = c;
    } else if (c === '#' && (k === 0 || /\s/.test(s[k - 1]!))) {
      return s.slice(0, k).trimEnd();
    }
  }
  return s.trimEnd();
}

export function parseYamlLocated(text: string): Located {
  const raw = text.replace(/^\ufeff/, '').split(/\r?\n/);
  const lines = new Map<string, number>();
  const all: YamlLine[] = raw.map((t, k) => ({ no: k + 1, indent: t.length - t.trimStart().length, text: t }));
  for (const l of all) {
    if (/^\s*\t/.test(l.text) && l.text.trim() !== '') throw new SourceError(l.no, 'tabs are not allowed for indentation in YAML; use spaces');
  }
  let k = 0;
  const significant = (from: number): number => {
    let j = from;
    while (j < all.length) {
      const t = all[j]!.text.trim();
      if (t === '---' && j === 0) {
        j++;
        continue;
      }
      if (t !== '' && !t.startsWith('#')) return j;
      j++;
    }
    return j;
  };

  const scalar = (s: string, no: number): unknown => {
    const t = s.trim();
    if (t === '' || t === '~' || t === 'null') return null;
    if (t === 'true') return true;
    if (t === 'false') return false;
    if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(t)) return Number(t);
    if (t.startsWith('"')) {
      if (!t.endsWith('"') || t.length < 2) throw new SourceError(no, 'unterminated double-quoted string');
      try {
        return JSON.parse(t) as string;
      } catch {
        throw new SourceError(no, 'invalid double-quoted string');
      }
    }
    if (t.startsWith("'")) {
      if (!t.endsWith("'") || t.length < 2) throw new SourceError(no, 'unterminated single-quoted string');
      return t.slice(1, -1).replace(/''/g, "'");
    }
    if (/^[&*!{|>%@`]/.test(t))
      throw new SourceError(
        no,
        `unsupported YAML (${JSON.stringify(t.slice(0, 20))}): anchors, aliases, tags and flow mappings are not read here; write plain values or use a .json file`,
      );
    if (t.startsWith('[')) return flowList(t, no);
    return t;
  };

  const flowList = (t: string, no: number): unknown[] => {
    if (!t.endsWith(']')) throw new SourceError(no, 'a flow list must end with ] on the same line');
    const inner = t.slice(1, -1).trim();
    if (inner === '') return [];
    const parts: string[] = [];
    let cur = '';
    let quote: string | null = null;
    for (let j = 0; j < inner.length; j++) {
      const c = inner[j]!;
      if (quote) {
        cur += c;
        if (c === '\\' && quote === '"') cur += inner[++j] ?? '';
        else if (c === quote) quote = null;
      } else if (c === '"' || c === "'") {
        quote = c;
        cur += c;
      } else if (c === ',') {
        parts.push(cur);
        cur = '';
      } else if (c === '[' || c === '{') {
        throw new SourceError(no, 'nested flow collections are not read here; use block style or a .json file');
      } else cur += c;
    }
    parts.push(cur);
    return parts.map((p) => scalar(p, no));
  };

  const blockScalar = (indicator: string, parentIndent: number): string => {
    const folded = indicator.startsWith('>');
    const keep = indicator.includes('+');
    const strip = indicator.includes('-');
    const body: string[] = [];
    let blockIndent = -1;
    while (k < all.length) {
      const l = all[k]!;
      if (l.text.trim() === '') {
        body.push('');
        k++;
        continue;
      }
      if (l.indent <= parentIndent) break;
      if (blockIndent < 0) blockIndent = l.indent;
      if (l.indent < blockIndent) break;
      body.push(l.text.slice(blockIndent));
      k++;
    }
    let trailing = 0;
    while (body.length > 0 && body[body.length - 1] === '') {
      body.pop();
      trailing++;
    }
    let out = folded ? body.reduce((acc, cur, j) => (j === 0 ? cur : cur === '' || body[j - 1] === '' ? `${acc}\n${cur}` : `${acc} ${cur}`), '') : body.join('\n');
    if (!strip && body.length > 0) out += '\n';
    if (keep) out += '\n'.repeat(trailing);
    return out;
  };

  const keyValue = (s: string, no: number): { key: string; rest: string } | undefined => {
    const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'#][^:#]*?)\s*:(?:\s+(.*)|$)/.exec(s);
    if (!m) return undefined;
    const key = String(scalar(m[1]!, no));
    return { key, rest: (m[2] ?? '').trim() };
  };

  // A value after "key:" or "- " on the same line, or the block below it.
  const inlineOrBlock = (rest: string, p: string, no: number, parentIndent: number): unknown => {
    if (rest === '') {
      const j = significant(k);
      if (j < all.length && all[j]!.indent > parentIndent) {
        k = j;
        return block(all[j]!.indent, p);
      }
      // A sequence may sit at its key's own indentation.
      if (j < all.length && all[j]!.indent === parentIndent && stripComment(all[j]!.text.trim()).startsWith('- ')) {
        k = j;
        return block(all[j]!.indent, p);
      }
      return null;
    }
    if (/^[|>][+-]?$/.test(rest)) return blockScalar(rest, parentIndent);
    return scalar(rest, no);
  };

  const block = (indent: number, p: string): unknown => {
    const first = all[k]!;
    lines.set(p, first.no);
    const isSeq = (t: string) => t === '-' || t.startsWith('- ');
    if (isSeq(stripComment(first.text.trim()))) {
      const out: unknown[] = [];
      for (;;) {
        k = significant(k);
        if (k >= all.length) break;
        const l = all[k]!;
        const t = stripComment(l.text.trim());
        if (l.indent < indent) break;
        if (l.indent > indent) throw new SourceError(l.no, 'unexpected indentation');
        if (!isSeq(t)) break;
        const itemPath = childPath(p, out.length);
        const after = t === '-' ? '' : t.slice(2);
        const itemIndent = l.indent + 2 + (after.length - after.trimStart().length);
        lines.set(itemPath, l.no);
        k++;
        const kv = keyValue(after.trim(), l.no);
        if (kv && !after.trim().startsWith('[')) {
          // "- key: value" starts a mapping whose further keys sit at itemIndent.
          out.push(mapping(itemIndent, itemPath, { key: kv.key, rest: kv.rest, no: l.no }));
        } else {
          out.push(inlineOrBlock(after.trim(), itemPath, l.no, l.indent));
        }
      }
      return out;
    }
    return mapping(indent, p);
  };

  const mapping = (indent: number, p: string, firstPair?: { key: string; rest: string; no: number }): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const put = (key: string, rest: string, no: number) => {
      if (Object.prototype.hasOwnProperty.call(out, key)) throw new SourceError(no, `field "${key}" appears twice`);
      const cp = childPath(p, key);
      lines.set(cp, no);
      out[key] = inlineOrBlock(rest, cp, no, indent);
    };
    if (firstPair) put(firstPair.key, firstPair.rest, firstPair.no);
    for (;;) {
      k = significant(k);
      if (k >= all.length) break;
      const l = all[k]!;
      if (l.indent < indent) break;
      if (l.indent > indent) throw new SourceError(l.no, 'unexpected indentation');
      const t = stripComment(l.text.trim());
      if (t === '-' || t.startsWith('- ')) break;
      const kv = keyValue(t, l.no);
      if (!kv) throw new SourceError(l.no, `expected "name: value", found ${JSON.stringify(t.slice(0, 40))}`);
      k++;
      put(kv.key, kv.rest, l.no);
    }
    return out;
  };

  k = significant(0);
  if (k >= all.length) return { value: null, lines: new Map([['', 1]]) };
  const rootIndent = all[k]!.indent;
  const firstText = stripComment(all[k]!.text.trim());
  let value: unknown;
  if (firstText !== '-' && !firstText.startsWith('- ') && !keyValue(firstText, all[k]!.no)) {
    lines.set('', all[k]!.no);
    value = scalar(firstText, all[k]!.no);
    k++;
  } else {
    value = block(rootIndent, '');
  }
  k = significant(k);
  if (k < all.length) throw new SourceError(all[k]!.no, 'unexpected content (check the indentation)');
  return { value, lines };
}
