// A focused TOML editor for one thing: the `[mcp_servers.<name>]` table of a Codex config. It
// replaces that table (and its subtables) and leaves every other line of the file, comments and
// layout included, as it was. Pure (no vscode, no file system); not a general TOML library.

export interface StdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** What the file already says about the server, as far as this editor reads it. */
export interface ExistingServer {
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  /** Other keys of the table (kept verbatim when the table is replaced), by name. */
  other: Record<string, string>;
}

export class ConfigFormatError extends Error {}

type Value = string | number | boolean | Value[] | { [key: string]: Value } | { raw: string };

interface Statement {
  kind: 'trivia' | 'header' | 'keyvalue';
  first: number;
  last: number;
  text: string;
  /** header: the table's key path; keyvalue: the key path within the current table. */
  path?: string[];
  arrayTable?: boolean;
}

/** Walks one line, carrying string and bracket state across lines (multi-line arrays, strings). */
function scanLine(line: string, state: { depth: number; multi: '"""' | "'''" | undefined }): void {
  let i = 0;
  while (i < line.length) {
    if (state.multi) {
      const end = line.indexOf(state.multi, i);
      if (end < 0) return;
      // A basic multi-line string's delimiter may be escaped.
      if (state.multi === '"""' && isEscaped(line, end)) {
        i = end + 1;
        continue;
      }
      i = end + 3;
      while (line[i] === state.multi[0]) i++; // up to two quotes may close the content
      state.multi = undefined;
      continue;
    }
    const c = line[i]!;
    if (c === '#') return;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      state.multi = line.slice(i, i + 3) as '"""' | "'''";
      i += 3;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < line.length && line[i] !== c) i += c === '"' && line[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '[' || c === '{') state.depth++;
    else if (c === ']' || c === '}') state.depth = Math.max(0, state.depth - 1);
    i++;
  }
}

function isEscaped(text: string, at: number): boolean {
  let n = 0;
  for (let j = at - 1; j >= 0 && text[j] === '\\'; j--) n++;
  return n % 2 === 1;
}

function statements(lines: readonly string[]): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      out.push({ kind: 'trivia', first: i, last: i, text: line });
      i++;
      continue;
    }
    if (trimmed.startsWith('[')) {
      const m = /^\s*(\[\[?)(.*?)(\]\]?)\s*(#.*)?$/.exec(line);
      if (!m) throw new ConfigFormatError(`line ${i + 1}: cannot read the table header ${JSON.stringify(trimmed)}`);
      out.push({ kind: 'header', first: i, last: i, text: line, path: parseKeyPath(m[2]!, i), arrayTable: m[1] === '[[' });
      i++;
      continue;
    }
    const state = { depth: 0, multi: undefined as '"""' | "'''" | undefined };
    const first = i;
    scanLine(lines[i]!, state);
    while ((state.depth > 0 || state.multi) && i + 1 < lines.length) scanLine(lines[++i]!, state);
    if (state.depth > 0 || state.multi) throw new ConfigFormatError(`line ${first + 1}: a value is not closed before the end of the file`);
    const text = lines.slice(first, i + 1).join('\n');
    const eq = keyEnd(text);
    if (eq < 0) throw new ConfigFormatError(`line ${first + 1}: expected key = value, got ${JSON.stringify(lines[first]!.trim())}`);
    out.push({ kind: 'keyvalue', first, last: i, text, path: parseKeyPath(text.slice(0, eq), first) });
    i++;
  }
  return out;
}

/** The index of the `=` after a (possibly quoted, dotted) key. */
function keyEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c) i += c === '"' && text[i] === '\\' ? 2 : 1;
    } else if (c === '=') return i;
    else if (c === '\n') return -1;
  }
  return -1;
}

function parseKeyPath(raw: string, line: number): string[] {
  const parts: string[] = [];
  const p = new Parser(raw.trim(), line);
  for (;;) {
    p.skipSpaces();
    const c = p.peek();
    if (c === '"') parts.push(p.basicString());
    else if (c === "'") parts.push(p.literalString());
    else parts.push(p.bareKey());
    p.skipSpaces();
    if (p.done()) return parts;
    p.expect('.');
  }
}

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly line: number,
  ) {}
  done(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string | undefined {
    return this.s[this.i];
  }
  fail(what: string): never {
    throw new ConfigFormatError(`line ${this.line + 1}: ${what}`);
  }
  expect(c: string): void {
    if (this.s[this.i] !== c) this.fail(`expected "${c}"`);
    this.i++;
  }
  skipSpaces(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }
  /** Spaces, newlines and comments (inside arrays). */
  skipAll(): void {
    for (;;) {
      this.skipSpaces();
      const c = this.s[this.i];
      if (c === '\n' || c === '\r') this.i++;
      else if (c === '#') while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
      else return;
    }
  }
  bareKey(): string {
    const m = /^[A-Za-z0-9_-]+/.exec(this.s.slice(this.i));
    if (!m) this.fail('expected a key');
    this.i += m[0].length;
    return m[0];
  }
  basicString(): string {
    if (this.s.startsWith('"""', this.i)) return this.multiline('"""');
    this.expect('"');
    let out = '';
    while (this.s[this.i] !== '"') {
      if (this.done() || this.s[this.i] === '\n') this.fail('a string is not closed');
      out += this.s[this.i] === '\\' ? this.escape() : this.s[this.i++];
    }
    this.i++;
    return out;
  }
  literalString(): string {
    if (this.s.startsWith("'''", this.i)) return this.multiline("'''");
    this.expect("'");
    const end = this.s.indexOf("'", this.i);
    if (end < 0 || this.s.slice(this.i, end).includes('\n')) this.fail('a string is not closed');
    const out = this.s.slice(this.i, end);
    this.i = end + 1;
    return out;
  }
  multiline(delim: '"""' | "'''"): string {
    this.i += 3;
    if (this.s[this.i] === '\n') this.i++;
    else if (this.s.startsWith('\r\n', this.i)) this.i += 2;
    let out = '';
    for (;;) {
      if (this.done()) this.fail('a multi-line string is not closed');
      if (this.s.startsWith(delim, this.i)) {
        let n = 3;
        while (this.s[this.i + n] === delim[0] && n < 5) n++;
        out += delim[0]!.repeat(n - 3);
        this.i += n;
        return out;
      }
      if (delim === '"""' && this.s[this.i] === '\\') {
        if (/^\\[ \t]*\r?\n/.test(this.s.slice(this.i))) {
          this.i++;
          while (/[ \t\r\n]/.test(this.s[this.i] ?? '')) this.i++;
          continue;
        }
        out += this.escape();
      } else out += this.s[this.i++];
    }
  }
  escape(): string {
    this.i++;
    const c = this.s[this.i++];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
    if (c !== undefined && c in simple) return simple[c]!;
    const len = c === 'u' ? 4 : c === 'U' ? 8 : c === 'x' ? 2 : 0;
    const hex = this.s.slice(this.i, this.i + len);
    if (len === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) this.fail(`bad escape \\${c ?? ''} in a string`);
    this.i += len;
    return String.fromCodePoint(parseInt(hex, 16));
  }
  value(): Value {
    const c = this.peek();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') {
      this.i++;
      const items: Value[] = [];
      for (;;) {
        this.skipAll();
        if (this.peek() === ']') break;
        items.push(this.value());
        this.skipAll();
        if (this.peek() === ',') this.i++;
        else if (this.peek() !== ']') this.fail('expected "," or "]" in an array');
      }
      this.i++;
      return items;
    }
    if (c === '{') {
      this.i++;
      const table: Record<string, Value> = {};
      this.skipSpaces();
      if (this.peek() === '}') {
        this.i++;
        return table;
      }
      for (;;) {
        this.skipSpaces();
        const start = this.i;
        const eq = this.s.indexOf('=', start);
        if (eq < 0) this.fail('expected key = value in an inline table');
        const path = parseKeyPath(this.s.slice(start, eq), this.line);
        this.i = eq + 1;
        this.skipSpaces();
        setPath(table, path, this.value());
        this.skipSpaces();
        if (this.peek() === ',') this.i++;
        else if (this.peek() === '}') {
          this.i++;
          return table;
        } else this.fail('expected "," or "}" in an inline table');
      }
    }
    // Numbers, booleans, dates: kept as written (this editor never needs their value).
    const m = /^[^,\]}\s#]+/.exec(this.s.slice(this.i));
    if (!m) this.fail('expected a value');
    this.i += m[0].length;
    if (m[0] === 'true' || m[0] === 'false') return m[0] === 'true';
    return { raw: m[0] };
  }
}

function setPath(table: Record<string, Value>, path: readonly string[], value: Value): void {
  let t = table;
  for (const key of path.slice(0, -1)) {
    const next = t[key];
    if (next === undefined) t = t[key] = {} as Record<string, Value>;
    else if (typeof next === 'object' && !Array.isArray(next) && !('raw' in next)) t = next as Record<string, Value>;
    else throw new ConfigFormatError(`key ${path.join('.')} is defined twice`);
  }
  t[path[path.length - 1]!] = value;
}

function valueOf(text: string, line: number): Value {
  const p = new Parser(text.slice(keyEnd(text) + 1), line);
  p.skipSpaces();
  const v = p.value();
  p.skipSpaces();
  if (!p.done() && p.peek() !== '#') p.fail('unexpected text after a value');
  return v;
}

const startsWith = (path: readonly string[], prefix: readonly string[]): boolean => prefix.every((p, i) => path[i] === p);
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

export function tomlString(s: string): string {
  // JSON's escapes are TOML's, except that TOML also wants DEL escaped.
  return JSON.stringify(s).replace(/\x7f/g, '\\u007F');
}

/** Where the server's table is, and what it says. */
interface Found {
  existing: ExistingServer | undefined;
  /** Line ranges [first, last] of the server's table and subtables. */
  ranges: [number, number][];
  lines: string[];
  eol: string;
}

function find(text: string, name: string): Found {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text === '' ? [] : text.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const prefix = ['mcp_servers', name];
  let table: string[] = [];
  let inBlock = false;
  const ranges: [number, number][] = [];
  let existing: ExistingServer | undefined;
  const ensure = (): ExistingServer => (existing ??= { other: {} });
  for (const st of statements(lines)) {
    if (st.kind === 'header') {
      table = st.path!;
      inBlock = startsWith(table, prefix);
      if (inBlock) {
        if (st.arrayTable)
          throw new ConfigFormatError(`line ${st.first + 1}: [[${table.join('.')}]] is an array of tables; Codex expects [mcp_servers.${tomlKey(name)}]. Fix the file by hand.`);
        ensure();
        ranges.push([st.first, st.last]);
        if (table.length > 3 || (table.length === 3 && table[2] !== 'env')) ensure().other[table.slice(2).join('.')] = '(table)';
      }
      continue;
    }
    if (inBlock) {
      ranges[ranges.length - 1]![1] = st.last;
      if (st.kind !== 'keyvalue') continue;
      const full = [...table, ...st.path!];
      const value = valueOf(st.text, st.first);
      const key = full.slice(2);
      if (sameList(key, ['command'])) ensure().command = typeof value === 'string' ? value : undefined;
      else if (sameList(key, ['args'])) ensure().args = Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
      else if (sameList(key, ['env'])) ensure().env = stringTable(value);
      else if (key[0] === 'env' && key.length === 2) {
        const env = (ensure().env ??= {});
        if (typeof value === 'string') env[key[1]!] = value;
      } else if (table.length === 2) ensure().other[st.path!.join('.')] = st.text;
      continue;
    }
    if (st.kind === 'keyvalue' && startsWith([...table, ...st.path!], prefix)) {
      throw new ConfigFormatError(
        `line ${st.first + 1}: ${name} is defined with a dotted key or an inline table (${st.text.split('\n')[0]!.trim()}); ` +
          `replace it with a [mcp_servers.${tomlKey(name)}] table, or remove it, and run the command again.`,
      );
    }
  }
  // Trailing blank lines belong to the gap before the next table, not to the server's table.
  for (const r of ranges) while (r[1] > r[0] && lines[r[1]]!.trim() === '') r[1]--;
  return { existing, ranges, lines, eol };
}

function stringTable(value: Value): Record<string, string> | undefined {
  if (typeof value !== 'object' || Array.isArray(value) || 'raw' in value) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Reads the server's table, if any; throws ConfigFormatError when the file cannot be read safely. */
export function readTomlServer(text: string, name: string): ExistingServer | undefined {
  return find(text, name).existing;
}

/** The table as this editor writes it. `other` lines (keys the user added) are kept after ours. */
export function formatTomlServer(name: string, server: StdioServer, other: readonly string[] = []): string[] {
  const lines = [`[mcp_servers.${tomlKey(name)}]`, `command = ${tomlString(server.command)}`, `args = [${server.args.map(tomlString).join(', ')}]`];
  const env = Object.entries(server.env);
  lines.push(env.length === 0 ? 'env = {}' : `env = { ${env.map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`).join(', ')} }`);
  return [...lines, ...other];
}

/**
 * The file with the server's table set to `server`: replaced where it was (keys other than
 * command, args and env kept), else appended. Everything else is left as written.
 */
export function upsertTomlServer(text: string, name: string, server: StdioServer): string {
  const { existing, ranges, lines, eol } = find(text, name);
  const block = formatTomlServer(
    name,
    server,
    Object.values(existing?.other ?? {}).filter((t) => t !== '(table)'),
  );
  let out: string[];
  if (ranges.length === 0) {
    out = [...lines];
    if (out.length > 0 && out[out.length - 1]!.trim() !== '') out.push('');
    out.push(...block);
  } else {
    const keep = new Set<number>();
    lines.forEach((_, i) => keep.add(i));
    // Subtables other than env (rare) are kept as written, after the new table.
    const subtables: string[] = [];
    for (const [first, last] of ranges) {
      const header = lines[first]!;
      const m = /^\s*\[(.*?)\]/.exec(header);
      const path = m ? parseKeyPath(m[1]!, first) : [];
      if (path.length > 2 && !(path.length === 3 && path[2] === 'env')) subtables.push('', ...lines.slice(first, last + 1));
      for (let i = first; i <= last; i++) keep.delete(i);
    }
    out = [];
    lines.forEach((line, i) => {
      if (i === ranges[0]![0]) out.push(...block, ...subtables);
      if (keep.has(i)) out.push(line);
    });
  }
  return out.join(eol) + eol;
}
