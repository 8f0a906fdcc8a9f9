// The response budget every toolset answers within: what an answer weighs, and the two ways a
// too-large answer is cut. Plain data in, plain data out (no SDK, no VS Code): the MCP server's
// safety net (mcp/toolResult.ts fitResult), its resources (mcp/resources.ts) and the traces
// toolset's own paging (core/traces) all measure and cut with these functions.
//
// - A uniform cut (capStrings + longestFitting): every string longer than N characters is cut to
//   N, N the largest that fits; short fields stay whole. Marker: `…[truncated: K more characters]`.
// - A longest-first cut (shrinkToFit): the longest strings are halved until the value fits, and the
//   paths cut are returned so a cursor can serve the rest. Marker: `…[+K chars]` (as clip).

/** No tool answers more than this by default (bytes of the whole result, text and structured content). */
export const RESPONSE_BUDGET = 30 * 1024;
/** No tool answers more than this at all, whatever it is asked. */
export const RESPONSE_CEILING = 100 * 1024;
/**
 * The traces tools' own cap on one result, in bytes: they page to stay under it, a little below
 * RESPONSE_CEILING so the server's net never has to cut them.
 */
export const RESPONSE_CAP = 100_000;

/** UTF-8 bytes of a value's JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * The size of the tool result that carries `data` as structuredContent and the same JSON as its
 * one text block (how the traces tools answer: mcp/tools/traces/traceResult.ts traceSuccess).
 */
export function resultBytes(data: unknown): number {
  return jsonBytes({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data });
}

/** What one item adds to such a result: its JSON, and the same JSON again escaped inside the text. */
export function costOf(value: unknown): number {
  const s = JSON.stringify(value) ?? 'null';
  return Buffer.byteLength(s, 'utf8') + Buffer.byteLength(JSON.stringify(s), 'utf8') - 2 + 2;
}

// ---- the uniform cut ----------------------------------------------------------------------------

/** A copy of `value` with every string longer than `max` characters cut, saying how much was left out. */
export function capStrings(value: unknown, max: number, cut: { count: number } = { count: 0 }): unknown {
  if (typeof value === 'string') {
    if (value.length <= max) return value;
    const chars = Array.from(value);
    if (chars.length <= max) return value;
    cut.count++;
    return `${chars.slice(0, max).join('')}…[truncated: ${chars.length - max} more characters]`;
  }
  if (Array.isArray(value)) return value.map((v) => capStrings(v, max, cut));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capStrings(v, max, cut)]));
  return value;
}

/** The length (UTF-16 units) of the longest string anywhere in a value. */
export function longestString(v: unknown): number {
  if (typeof v === 'string') return v.length;
  let n = 0;
  if (Array.isArray(v)) for (const x of v) n = Math.max(n, longestString(x));
  else if (v && typeof v === 'object') for (const x of Object.values(v)) n = Math.max(n, longestString(x));
  return n;
}

/**
 * The largest n in [lo, hi] for which `fits(n)` holds, by bisection; `fits` must grow false as n
 * grows (a longer cut never weighs less). Returns lo when nothing above it fits; callers check lo.
 */
export function longestFitting(lo: number, hi: number, fits: (n: number) => boolean): number {
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Cuts text to at most `maxBytes` of UTF-8, on a character boundary, saying how much was left out. */
export function capText(text: string, maxBytes: number, more: string): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const budget = maxBytes - 300;
  let cut = Buffer.from(text, 'utf8').subarray(0, budget).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  const left = [...text].length - [...cut].length;
  return `${cut}\n\n[truncated: ${left} more characters. ${more}]`;
}

// ---- the longest-first cut ----------------------------------------------------------------------

/** Cuts a text to `max` code points, saying how much was cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max).join('')}…[+${chars.length - max} chars]`;
}

/** Every string in a value cut to `max` code points (arrays to 20 items, depth to 6). */
export function clipDeep(value: unknown, max: number, depth = 0): unknown {
  if (typeof value === 'string') return clip(value, max);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 6) return clip(JSON.stringify(value), max);
  if (Array.isArray(value)) {
    const items = value.slice(0, 20).map((v) => clipDeep(v, max, depth + 1));
    if (value.length > 20) items.push(`…[+${value.length - 20} items]`);
    return items;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = clipDeep(v, max, depth + 1);
  return out;
}

interface StringLeaf {
  path: string;
  length: number;
}

function stringLeaves(value: unknown, at: string, out: StringLeaf[]): void {
  if (typeof value === 'string') out.push({ path: at, length: value.length });
  else if (Array.isArray(value)) value.forEach((v, i) => stringLeaves(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) stringLeaves(v, at ? `${at}.${k}` : k, out);
}

/** The value at a path shrinkToFit reported (`a.b[2].c`). */
export function getAt(root: unknown, leaf: string): unknown {
  let cur: unknown = root;
  for (const part of leaf.match(/[^.[\]]+/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function setAt(root: unknown, leaf: string, value: unknown): void {
  const parts = leaf.match(/[^.[\]]+/g) ?? [];
  let cur: unknown = root;
  for (const part of parts.slice(0, -1)) cur = (cur as Record<string, unknown>)[part];
  if (cur && typeof cur === 'object') (cur as Record<string, unknown>)[parts.at(-1)!] = value;
}

/**
 * Cuts the longest strings of a (copied) value until costOf(value) fits `budget`; returns what was
 * cut: path, characters shown, characters in all.
 */
export function shrinkToFit(value: unknown, budget: number): { path: string; shown: number; total: number }[] {
  const cut = new Map<string, { shown: number; total: number }>();
  for (let guard = 0; guard < 64 && costOf(value) > budget; guard++) {
    const leaves: StringLeaf[] = [];
    stringLeaves(value, '', leaves);
    leaves.sort((a, b) => b.length - a.length);
    const longest = leaves[0];
    if (!longest || longest.length <= 64) break;
    const current = getAt(value, longest.path) as string;
    const excess = costOf(value) - budget;
    const original = cut.get(longest.path)?.total ?? current.length;
    const plain = current.replace(/\u2026\[\+\d+ chars\]$/, ''); // \u2026: the bundles stay ASCII (esbuild.mjs)
    // Escaping can make a character cost up to 6 bytes in the text copy; cut generously.
    const keep = Math.max(32, Math.min(Math.floor(plain.length / 2), plain.length - Math.ceil(excess / 2) - 40));
    const kept = Array.from(plain).slice(0, keep).join('');
    setAt(value, longest.path, `${kept}…[+${original - keep} chars]`);
    cut.set(longest.path, { shown: keep, total: original });
  }
  return [...cut].map(([p, c]) => ({ path: p, ...c }));
}
