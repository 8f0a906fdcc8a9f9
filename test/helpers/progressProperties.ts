// Property-based testing of the progress toolset (log_progress, get_context, search_logs) through a
// real MCP client: hostile argument generators, an oracle of the documented input rules, a model of
// what the ledger holds, and the checks every call's outcome must pass. Shared by the in-memory unit
// test and the stdio e2e test, which differ only in how a call reaches the server (`Harness`).
//
// The oracle and the model are written from the specification (Agent Progress Tracker, README "Tools") and ARCHITECTURE
// ("Deviations"), not from src/: lengths in code points, NUL and unpaired surrogates refused,
// identifiers (projectId, agentId, id, tags) without control characters, unknown arguments refused,
// title matching case-insensitive (NFKC + lower case), tags trimmed and de-duplicated
// case-insensitively (first spelling kept), dates ISO 8601 with a date alone meaning 00:00 UTC (a
// whole day for endDate), search_logs newest first.

import * as assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import * as fc from 'fast-check';
import { LIMITS } from '../../src/core/progress/schemas';

// ---------------------------------------------------------------------------------------------
// Seeds and run counts

export const DEFAULT_SEED = 20_250_615;

/** The seed of every property: PROPERTY_SEED when set (a failure prints the one to replay). */
export function propertySeed(): number {
  const raw = process.env.PROPERTY_SEED;
  if (raw === undefined || raw.trim() === '') return DEFAULT_SEED;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`PROPERTY_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return n | 0; // fast-check seeds are 32-bit
}

/** Runs scaled by PROPERTY_RUNS_SCALE (e.g. 0.1 for a quick pass, 10 for a soak). */
export function runs(n: number): number {
  const scale = Number(process.env.PROPERTY_RUNS_SCALE ?? '1');
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

// ---------------------------------------------------------------------------------------------
// Values that are built only when a call is made, so that fast-check prints them short and so that
// some can refer to what the ledger holds at that moment.

/** A long string: `unit` repeated `count` times. */
export class Huge {
  constructor(
    readonly unit: string,
    readonly count: number,
    readonly suffix = '',
  ) {}
  value(): string {
    return this.unit.repeat(this.count) + this.suffix;
  }
  [fc.toStringMethod](): string {
    return `Huge(${JSON.stringify(this.unit)} x ${this.count}${this.suffix ? ` + ${JSON.stringify(this.suffix)}` : ''})`;
  }
}

/** An array of `count` copies of `item`. */
export class Many {
  constructor(
    readonly item: unknown,
    readonly count: number,
  ) {}
  [fc.toStringMethod](): string {
    return `Many(${fc.stringify(this.item)} x ${this.count})`;
  }
}

/** Objects or arrays nested `depth` deep. */
export class Nested {
  constructor(
    readonly depth: number,
    readonly shape: 'object' | 'array' | 'mixed',
  ) {}
  value(): unknown {
    let v: unknown = 'leaf';
    for (let i = 0; i < this.depth; i++) {
      const asArray = this.shape === 'array' || (this.shape === 'mixed' && i % 2 === 1);
      v = asArray ? [v] : { a: v };
    }
    return v;
  }
  [fc.toStringMethod](): string {
    return `Nested(${this.shape}, depth ${this.depth})`;
  }
}

/** A field of an entry already in the ledger (the index wraps); a placeholder when there is none. */
export class EntryRef {
  constructor(
    readonly index: number,
    readonly field: 'id' | 'projectId' | 'title' | 'tag' | 'titleSlice',
    readonly start = 0,
    readonly length = 0,
    readonly upper = false,
  ) {}
  [fc.toStringMethod](): string {
    return `EntryRef(#${this.index}.${this.field}${this.field === 'titleSlice' ? `[${this.start},+${this.length}]${this.upper ? ' upper' : ''}` : ''})`;
  }
}

/** A look-alike of an entry's id: other case, padded with blanks, one character short. */
export class TwistedId {
  constructor(
    readonly ref: EntryRef,
    readonly twist: 'upper' | 'padded' | 'prefix',
  ) {}
  [fc.toStringMethod](): string {
    return `TwistedId(${fc.stringify(this.ref)}, ${this.twist})`;
  }
}

export interface DateFormat {
  precision: 'date' | 'minute' | 'second' | 'ms' | 'micro';
  /** Minutes east of UTC for the written offset; undefined writes Z (or nothing, see zone). */
  offsetMinutes: number;
  zone: 'Z' | 'offset' | 'none';
}

/** A date near an entry's createdAt (the index wraps), written in the given format. */
export class DateAnchor {
  constructor(
    readonly index: number,
    readonly deltaMs: number,
    readonly format: DateFormat,
  ) {}
  [fc.toStringMethod](): string {
    return `DateAnchor(#${this.index} ${this.deltaMs >= 0 ? '+' : ''}${this.deltaMs} ms, ${this.format.precision}, ${this.format.zone}${this.format.zone === 'offset' ? ` ${this.format.offsetMinutes}` : ''})`;
  }
}

/** `arguments` that is not an object (an array, a string, a number, null...). */
export class RawArguments {
  constructor(readonly value: unknown) {}
  [fc.toStringMethod](): string {
    return `RawArguments(${fc.stringify(this.value)})`;
  }
}

/** Marks a field left out of the arguments. */
export const OMIT: unique symbol = Symbol('omit');

export type ToolName = 'log_progress' | 'get_context' | 'search_logs';
export const TOOL_NAMES: readonly ToolName[] = ['log_progress', 'get_context', 'search_logs'];

/** One generated call: the tool, its fields (or raw non-object arguments) and extra keys. */
export interface CallPlan {
  tool: ToolName;
  fields: Record<string, unknown> | RawArguments;
  extra: [unknown, unknown][];
}

// ---------------------------------------------------------------------------------------------
// The rules (the specification's ids and inputs, with the limits the tools advertise)

type Rule =
  | { kind: 'text'; max: number; required: boolean; identifier: boolean }
  | { kind: 'labels'; maxItems: number; max: number }
  | { kind: 'date' }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'bool' };

const text = (max: number, required: boolean, identifier = false): Rule => ({ kind: 'text', max, required, identifier });
const labels: Rule = { kind: 'labels', maxItems: LIMITS.tags, max: LIMITS.tag };

export const RULES: Record<ToolName, Record<string, Rule>> = {
  log_progress: {
    projectId: text(LIMITS.projectId, true, true),
    title: text(LIMITS.title, true),
    content: text(LIMITS.content, true),
    tags: labels,
    agentId: text(LIMITS.agentId, false, true),
  },
  get_context: {
    projectId: text(LIMITS.projectId, true, true),
    id: text(LIMITS.entryId, true, true),
    includeFull: { kind: 'bool' },
  },
  search_logs: {
    projectId: text(LIMITS.projectId, true, true),
    query: text(LIMITS.query, false),
    tags: labels,
    startDate: { kind: 'date' },
    endDate: { kind: 'date' },
    limit: { kind: 'int', min: 1, max: LIMITS.searchLimit },
    text: text(LIMITS.text, false),
  },
};

// ---------------------------------------------------------------------------------------------
// Text helpers of the oracle (independent of src/core/text.ts)

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function fold(s: string): string {
  return s.normalize('NFKC').toLowerCase();
}

/** Text that comes back as sent: no NUL, no unpaired surrogate, no leading byte order mark. */
function storable(s: string): boolean {
  return !s.includes('\0') && !LONE_SURROGATE.test(s) && !s.startsWith('\ufeff');
}

function textRefused(v: unknown, rule: Extract<Rule, { kind: 'text' }>): boolean {
  if (typeof v !== 'string') return true;
  if (rule.required && v.trim() === '') return true;
  if (codePoints(v) > rule.max) return true;
  if (!storable(v)) return true;
  return rule.identifier && CONTROL.test(v);
}

function labelsRefused(v: unknown, rule: Extract<Rule, { kind: 'labels' }>): boolean {
  if (!Array.isArray(v)) return true;
  if (v.length > rule.maxItems) return true;
  return v.some((t) => typeof t !== 'string' || t.trim() === '' || codePoints(t) > rule.max || !storable(t) || CONTROL.test(t));
}

/** Tags as the specification's "categorisation" keeps them: trimmed, case-insensitive repeats dropped. */
export function normaliseTags(tags: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags ?? []) {
    const tag = raw.trim();
    if (tag === '' || seen.has(fold(tag))) continue;
    seen.add(fold(tag));
    out.push(tag);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Dates: an independent reading of ISO 8601 / RFC 3339

export const DAY_MS = 86_400_000;

export interface DateVerdict {
  /** valid: must be accepted; either: may be accepted or refused; invalid: must be refused. */
  kind: 'valid' | 'either' | 'invalid';
  /** The instant (UTC ms), when known. */
  ms?: number;
  dateOnly?: boolean;
}

const STRICT_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const LOOSE_DATE = /^\s*(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?\s*$/;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** The instant of a proleptic Gregorian date-time (years 0-99 included, unlike Date.UTC). */
export function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, ms);
  return t.getTime();
}

export function dateVerdict(value: unknown): DateVerdict {
  if (typeof value !== 'string') return { kind: 'invalid' };
  const m = LOOSE_DATE.exec(value);
  if (!m) return { kind: 'invalid' };
  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m;
  const y = Number(ys);
  const mo = Number(mos);
  const d = Number(ds);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return { kind: 'invalid' };
  const h = Number(hs ?? '0');
  const mi = Number(mis ?? '0');
  const s = Number(ss ?? '0');
  if (h > 23 || mi > 59 || s > 60) return { kind: 'invalid' };
  let offset = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return { kind: 'invalid' };
    offset = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  if (s === 60) return { kind: 'either' }; // a leap second: ISO allows it, refusing it is fine too
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  const instant = utcMs(y, mo, d, h, mi, s, ms) - offset * 60_000;
  const dateOnly = hs === undefined;
  const strict = STRICT_DATE.test(value) && (dateOnly || zone !== undefined);
  // Lower-case t/z, a space separator, surrounding blanks, offsets without a colon or without
  // minutes, more than 9 fraction digits, and date-times without a zone (read as UTC) are not
  // RFC 3339: accepting them is fine, refusing them too, but if accepted the instant must be right.
  return { kind: strict ? 'valid' : 'either', ms: instant, dateOnly };
}

export function formatDate(ms: number, f: DateFormat): string {
  const local = new Date(ms + (f.zone === 'offset' ? f.offsetMinutes : 0) * 60_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${p(local.getUTCFullYear(), 4)}-${p(local.getUTCMonth() + 1)}-${p(local.getUTCDate())}`;
  if (f.precision === 'date') return date;
  let time = `${p(local.getUTCHours())}:${p(local.getUTCMinutes())}`;
  if (f.precision !== 'minute') time += `:${p(local.getUTCSeconds())}`;
  if (f.precision === 'ms') time += `.${p(local.getUTCMilliseconds(), 3)}`;
  if (f.precision === 'micro') time += `.${p(local.getUTCMilliseconds(), 3)}000`;
  let zone = '';
  if (f.zone === 'Z') zone = 'Z';
  if (f.zone === 'offset') {
    const a = Math.abs(f.offsetMinutes);
    zone = `${f.offsetMinutes < 0 ? '-' : '+'}${p(Math.floor(a / 60))}:${p(a % 60)}`;
  }
  return `${date}T${time}${zone}`;
}

// ---------------------------------------------------------------------------------------------
// Full-text grammar of search_logs.text (tool description: words ANDed, "a phrase", prefix*, OR,
// -exclude; anything else is text). OR binds looser than the implicit AND; an exclusion removes
// matching entries whatever the OR branches.

const RUN = /[\p{L}\p{N}\p{M}]+/gu;

export interface Phrase {
  words: string[];
  prefix: boolean;
}

export interface FtsQuery {
  /** OR of AND-groups. */
  groups: Phrase[][];
  negatives: Phrase[];
}

/** The query a text means, or undefined when it has no word to search for. */
export function parseFts(value: string): FtsQuery | undefined {
  const positives: (Phrase | 'OR')[] = [];
  const negatives: Phrase[] = [];
  for (const m of value.matchAll(/(-?)"([^"]*)"|(\S+)/g)) {
    if (m[2] !== undefined) {
      const words = m[2].match(RUN);
      if (!words) continue;
      (m[1] === '-' ? negatives : positives).push({ words, prefix: false });
      continue;
    }
    const raw = m[3]!;
    if (raw === 'AND') continue;
    if (raw === 'OR') {
      if (positives.length > 0 && positives[positives.length - 1] !== 'OR') positives.push('OR');
      continue;
    }
    const words = raw.match(RUN);
    if (!words) continue;
    const phrase = { words, prefix: raw.endsWith('*') };
    (raw.startsWith('-') && raw.length > 1 ? negatives : positives).push(phrase);
  }
  const groups: Phrase[][] = [[]];
  for (const p of positives) {
    if (p === 'OR') groups.push([]);
    else groups[groups.length - 1]!.push(p);
  }
  const nonEmpty = groups.filter((g) => g.length > 0);
  return nonEmpty.length === 0 ? undefined : { groups: nonEmpty, negatives };
}

/** Tokens as SQLite's unicode61 tokenizer makes them of ASCII text. */
export function asciiTokens(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function phraseIn(tokens: string[], p: Phrase): boolean {
  const words = p.words.map((w) => w.toLowerCase());
  for (let i = 0; i + words.length <= tokens.length; i++) {
    let ok = true;
    for (let j = 0; j < words.length && ok; j++) {
      const last = j === words.length - 1;
      ok = last && p.prefix ? tokens[i + j]!.startsWith(words[j]!) : tokens[i + j] === words[j];
    }
    if (ok) return true;
  }
  return false;
}

export function ftsMatches(q: FtsQuery, title: string, content: string): boolean {
  const columns = [asciiTokens(title), asciiTokens(content)];
  const has = (p: Phrase) => columns.some((c) => phraseIn(c, p));
  return q.groups.some((g) => g.every(has)) && !q.negatives.some(has);
}

// ---------------------------------------------------------------------------------------------
// The model: every entry the ledger holds, as the tools reported them

export interface ModelEntry {
  id: string;
  projectId: string;
  title: string;
  content: string;
  tags: string[];
  agentId: string | null;
  createdAt: string;
  ms: number;
  /** The entry's text is ASCII from the full-text vocabulary (its project is FTS_PROJECT). */
  ascii: boolean;
}

export class LedgerModel {
  private readonly byId = new Map<string, ModelEntry>();
  readonly list: ModelEntry[] = [];

  add(e: ModelEntry): void {
    assert.ok(!this.byId.has(e.id), `log_progress returned an id already in use: ${e.id}`);
    this.byId.set(e.id, e);
    this.list.push(e);
  }

  get(projectId: string, id: string): ModelEntry | undefined {
    const e = this.byId.get(id);
    return e && e.projectId === projectId ? e : undefined;
  }

  get size(): number {
    return this.list.length;
  }

  at(index: number): ModelEntry | undefined {
    return this.list.length === 0 ? undefined : this.list[index % this.list.length];
  }
}

// ---------------------------------------------------------------------------------------------
// Building a call's arguments

function resolveRef(ref: EntryRef, model: LedgerModel): string {
  const e = model.at(ref.index);
  if (!e) return ref.field === 'projectId' ? 'no-entries-yet' : 'nothing-logged-yet';
  switch (ref.field) {
    case 'id':
      return e.id;
    case 'projectId':
      return e.projectId;
    case 'title':
      return e.title;
    case 'tag':
      return e.tags.length === 0 ? 'untagged' : e.tags[ref.start % e.tags.length]!;
    case 'titleSlice': {
      const chars = Array.from(e.title);
      const start = ref.start % Math.max(1, chars.length);
      const slice = chars.slice(start, start + Math.max(1, ref.length)).join('');
      return ref.upper ? slice.toUpperCase() : slice;
    }
  }
}

/** The value as it goes on the wire; markers built, fields left out dropped. */
export function materialize(value: unknown, model: LedgerModel): unknown {
  if (value instanceof Huge) return value.value();
  if (value instanceof Nested) return value.value();
  if (value instanceof Many) {
    const item = materialize(value.item, model);
    return Array.from({ length: value.count }, () => item);
  }
  if (value instanceof EntryRef) return resolveRef(value, model);
  if (value instanceof TwistedId) {
    const id = resolveRef(value.ref, model);
    if (value.twist === 'upper') return id.toUpperCase() === id ? id.toLowerCase() : id.toUpperCase();
    if (value.twist === 'padded') return ` ${id} `;
    return id.slice(0, 11);
  }
  if (value instanceof DateAnchor) {
    const e = model.at(value.index);
    return formatDate((e ? e.ms : Date.now()) + value.deltaMs, value.format);
  }
  if (value instanceof RawArguments) return materialize(value.value, model);
  if (Array.isArray(value)) return value.map((v) => materialize(v, model));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === OMIT) continue;
      Object.defineProperty(out, k, { value: materialize(v, model), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** The arguments of a plan, exactly as a JSON client would send them (own keys, even "__proto__"). */
export function buildArguments(plan: CallPlan, model: LedgerModel): unknown {
  if (plan.fields instanceof RawArguments) return JSON.parse(JSON.stringify(materialize(plan.fields, model)) ?? 'null');
  const args = materialize(plan.fields, model) as Record<string, unknown>;
  for (const [k, v] of plan.extra) {
    const key = String(materialize(k, model));
    if (key in RULES[plan.tool]) continue; // an extra key never replaces a real argument
    Object.defineProperty(args, key, { value: materialize(v, model), enumerable: true, writable: true, configurable: true });
  }
  return JSON.parse(JSON.stringify(args));
}

// ---------------------------------------------------------------------------------------------
// The oracle: what the server must do with given arguments

export interface Expectation {
  mustRefuse: boolean;
  mayRefuse: boolean;
  /** A refusal must name at least one of these (argument names, or the rule's own words). */
  blame: string[];
  start?: DateVerdict;
  end?: DateVerdict;
  fts?: FtsQuery;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function expect(tool: ToolName, rawArgs: unknown, model: LedgerModel): Expectation {
  const exp: Expectation = { mustRefuse: false, mayRefuse: false, blame: [] };
  const refuse = (...names: string[]) => {
    exp.mustRefuse = true;
    exp.blame.push(...names);
  };
  const args = rawArgs === null ? {} : rawArgs; // JSON null arguments are no arguments
  if (!isPlainObject(args)) {
    refuse('Arguments');
    return exp;
  }
  const rules = RULES[tool];
  if (Object.keys(args).some((k) => !Object.prototype.hasOwnProperty.call(rules, k))) refuse('Unknown argument');
  for (const [name, rule] of Object.entries(rules)) {
    const present = Object.prototype.hasOwnProperty.call(args, name);
    const v = args[name];
    if (!present) {
      if (rule.kind === 'text' && rule.required) refuse(name);
      continue;
    }
    switch (rule.kind) {
      case 'text':
        if (textRefused(v, rule)) refuse(name);
        break;
      case 'labels':
        if (labelsRefused(v, rule)) refuse(name);
        break;
      case 'int':
        if (typeof v !== 'number' || !Number.isInteger(v) || v < rule.min || v > rule.max) refuse(name);
        break;
      case 'bool':
        if (typeof v !== 'boolean') refuse(name);
        break;
      case 'date': {
        const verdict = dateVerdict(v);
        if (name === 'startDate') exp.start = verdict;
        else exp.end = verdict;
        if (verdict.kind === 'invalid') refuse(name);
        else if (verdict.kind === 'either') {
          exp.mayRefuse = true;
          exp.blame.push(name);
        }
        break;
      }
    }
  }
  if (exp.mustRefuse) return exp;
  if (tool === 'search_logs') {
    const { start, end } = exp;
    if (start?.ms !== undefined && end?.ms !== undefined) {
      const endMs = end.dateOnly ? end.ms + DAY_MS - 1 : end.ms;
      // Whether refused for the format or for the order, a backwards range is refused.
      if (start.ms > endMs) refuse('startDate', 'endDate');
    }
    const t = args.text;
    if (typeof t === 'string' && t.trim() !== '') {
      const q = parseFts(t);
      if (!q) refuse('text');
      else exp.fts = q;
    }
  }
  if (tool === 'get_context' && !exp.mustRefuse && !exp.mayRefuse) {
    if (!model.get(args.projectId as string, args.id as string)) refuse('Entry not found');
  }
  return exp;
}

/** The entries a search must return, newest first, and whether the model can tell exactly. */
export function expectedSearch(args: Record<string, unknown>, exp: Expectation, model: LedgerModel): { all: ModelEntry[]; exact: boolean } {
  const projectId = args.projectId as string;
  const query = typeof args.query === 'string' && args.query.trim() !== '' ? fold(args.query) : undefined;
  const tags = Array.isArray(args.tags) ? (args.tags as string[]).map((t) => fold(t.trim())) : [];
  const startMs = exp.start?.ms;
  const endMs = exp.end?.ms === undefined ? undefined : exp.end.dateOnly ? exp.end.ms + DAY_MS - 1 : exp.end.ms;
  let exact = !(exp.start && exp.start.ms === undefined) && !(exp.end && exp.end.ms === undefined);
  // unicode61 folds diacritics and more; the model tokenizes ASCII only.
  // eslint-disable-next-line no-control-regex -- ASCII is exactly what this checks
  if (exp.fts && [...exp.fts.groups.flat(), ...exp.fts.negatives].some((p) => p.words.some((w) => !/^[\u0000-\u007f]*$/.test(w)))) exact = false;
  const all = model.list.filter((e) => {
    if (e.projectId !== projectId) return false;
    if (query !== undefined && !fold(e.title).includes(query)) return false;
    if (!tags.every((t) => e.tags.some((s) => fold(s) === t))) return false;
    if (startMs !== undefined && e.ms < startMs) return false;
    if (endMs !== undefined && e.ms > endMs) return false;
    if (exp.fts) {
      if (!e.ascii) {
        exact = false;
        return true;
      }
      return ftsMatches(exp.fts, e.title, e.content);
    }
    return true;
  });
  all.sort((a, b) => b.ms - a.ms);
  return { all, exact };
}

// ---------------------------------------------------------------------------------------------
// Calling the server

export type Outcome = { ok: true; result: CallToolResult } | { ok: false; code: number; message: string; data: unknown };

/** How a call reaches a server, and how to read the ledger's sequence number beside it. */
export interface Harness {
  client: Client;
  /** The ledger's count of data changes (stats().changes; index upkeep not counted). */
  seq(): Promise<number>;
  /** Server log lines so far. */
  logLines(): string[];
}

export async function callTool(client: Client, tool: string, args: unknown, timeoutMs = 30_000): Promise<Outcome> {
  try {
    const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: args as Record<string, unknown> } }, CallToolResultSchema, { timeout: timeoutMs });
    return { ok: true, result: result as CallToolResult };
  } catch (err) {
    if (err instanceof McpError && Number.isInteger(err.code) && err.code !== -32001 /* request timeout */ && err.code !== -32000 /* connection closed */) {
      const prefix = `MCP error ${err.code}: `;
      return { ok: false, code: err.code, message: err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message, data: err.data };
    }
    throw err; // the server did not answer: crashed, hung, or the connection broke
  }
}

const RULE_WORDS =
  /is required|cannot be empty|exceeds maximum|must be|must not contain|contains a NUL|unpaired|byte order mark|Unknown argument|Invalid date format|is after|has no words|not found/;

function namesOneOf(message: string, names: readonly string[]): boolean {
  return names.some((name) => {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[\\s;("])${escaped}(?=s?(?:[\\s\\[:(.,]|$))`).test(message);
  });
}

/** A preview of a value for assertion messages: long strings cut. */
export function preview(value: unknown, max = 600): string {
  let s: string;
  try {
    s = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 60)}…(${v.length} chars)` : v)) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** What a refusal must look like: -32602, the argument and the rule named, nothing internal. */
export function checkRefusal(outcome: Extract<Outcome, { ok: false }>, blame: readonly string[], context: string): void {
  const { code, message } = outcome;
  assert.equal(code, -32602, `${context}: refused with code ${code} instead of -32602 (invalid params): ${preview(message)}`);
  assert.equal(typeof message, 'string', `${context}: error message is not a string`);
  assert.ok(message.trim().length > 0, `${context}: empty error message`);
  assert.ok(codePoints(message) <= 500, `${context}: error message of ${codePoints(message)} characters (limit 500): ${preview(message)}`);
  assert.ok(!/^\s+at\s/m.test(message), `${context}: stack trace in the error message: ${preview(message)}`);
  assert.ok(!/\.(ts|js|mjs|cjs):\d+|[/\\](src|dist|node_modules)[/\\]/.test(message), `${context}: source path in the error message: ${preview(message)}`);
  assert.ok(!/^\s*[[{]/.test(message), `${context}: a raw data dump as the error message: ${preview(message)}`);
  assert.ok(RULE_WORDS.test(message), `${context}: the message does not say which rule was broken: ${preview(message)}`);
  if (blame.length > 0) assert.ok(namesOneOf(message, blame), `${context}: the message names none of ${blame.join(', ')}: ${preview(message)}`);
}

// ---------------------------------------------------------------------------------------------
// The runner: one call, checked against the oracle and the model

export const PING_PROJECT = 'property-ping';
export const FTS_PROJECT = 'fts-lab';

export interface Counts {
  generated: number;
  accepted: number;
  refused: number;
  followUps: number;
}

export class PropertyRunner {
  readonly model = new LedgerModel();
  readonly counts = new Map<string, Counts>();
  private validators = new Map<string, (value: unknown) => { valid: boolean; errorMessage?: string | undefined }>();
  private logSeen = 0;

  constructor(readonly harness: Harness) {}

  /** Reads tools/list once: the outputSchemas every accepted result must match. */
  async init(): Promise<void> {
    const listed = await this.harness.client.listTools();
    const ajv = new AjvJsonSchemaValidator();
    for (const tool of listed.tools as Tool[]) {
      assert.ok(tool.outputSchema, `${tool.name} declares no outputSchema`);
      this.validators.set(tool.name, ajv.getValidator(tool.outputSchema as Parameters<typeof ajv.getValidator>[0]));
    }
    for (const name of TOOL_NAMES) assert.ok(this.validators.has(name), `tools/list lacks ${name}`);
    await this.ping('setup');
  }

  countsFor(property: string): Counts {
    let c = this.counts.get(property);
    if (!c) this.counts.set(property, (c = { generated: 0, accepted: 0, refused: 0, followUps: 0 }));
    return c;
  }

  /** The connection still answers: a valid call succeeds. */
  async ping(property: string): Promise<void> {
    this.countsFor(property).followUps++;
    const out = await callTool(this.harness.client, 'search_logs', { projectId: PING_PROJECT, limit: 1 });
    assert.ok(out.ok, `the server stopped answering valid calls: ${out.ok ? '' : out.message}`);
    this.checkSchema('search_logs', out.result, 'ping');
  }

  private checkSchema(tool: string, result: CallToolResult, context: string): Record<string, unknown> {
    assert.ok(!result.isError, `${context}: an isError result instead of a normal one: ${preview(result)}`);
    assert.ok(Array.isArray(result.content) && result.content.length > 0 && result.content[0]!.type === 'text', `${context}: no text content: ${preview(result)}`);
    const sc = result.structuredContent;
    assert.ok(sc && typeof sc === 'object', `${context}: no structuredContent`);
    const verdict = this.validators.get(tool)!(sc);
    assert.ok(verdict.valid, `${context}: structuredContent does not match ${tool}'s outputSchema (${verdict.errorMessage}): ${preview(sc)}`);
    return sc;
  }

  /** New server log lines must carry no stack trace and no error. */
  checkLog(context: string): void {
    const lines = this.harness.logLines();
    const fresh = lines.slice(this.logSeen);
    this.logSeen = lines.length;
    const bad = fresh.filter((l) => /^\s+at\s/m.test(l) || /\[error\]|Uncaught|Unhandled/.test(l));
    assert.deepEqual(
      bad.map((l) => preview(l, 400)),
      [],
      `${context}: the server logged an error or a stack trace`,
    );
  }

  /**
   * Makes one call of a plan and checks everything: refusal shape, ledger unchanged when refused,
   * output schema, byte-for-byte storage, search order and contents. `exact` is false while other
   * calls run concurrently (the model cannot then predict searches).
   */
  async exercise(property: string, plan: CallPlan, options: { exact?: boolean; ping?: boolean } = {}): Promise<Outcome> {
    const counts = this.countsFor(property);
    counts.generated++;
    const args = buildArguments(plan, this.model);
    const exp = expect(plan.tool, args, this.model);
    const context = `${plan.tool}(${preview(args)})`;
    const before = options.exact === false ? undefined : await this.harness.seq();
    const t0 = Date.now();
    const outcome = await callTool(this.harness.client, plan.tool, args);
    const t1 = Date.now();
    const after = options.exact === false ? undefined : await this.harness.seq();
    if (!outcome.ok) {
      counts.refused++;
      assert.ok(exp.mustRefuse || exp.mayRefuse, `${context}: a valid call was refused: ${outcome.code} ${preview(outcome.message)}`);
      checkRefusal(outcome, exp.blame, context);
      if (before !== undefined) assert.equal(after, before, `${context}: a refused call changed the ledger (seq ${before} -> ${after})`);
    } else {
      counts.accepted++;
      assert.ok(!exp.mustRefuse, `${context}: accepted, but it breaks a rule (${exp.blame.join(', ')}): ${preview(outcome.result.structuredContent)}`);
      const sc = this.checkSchema(plan.tool, outcome.result, context);
      const a = args as Record<string, unknown>;
      if (plan.tool === 'log_progress') {
        if (before !== undefined) assert.equal(after, before + 1, `${context}: one entry logged, but seq went ${before} -> ${after}`);
        await this.acceptedLog(property, a, sc, t0, t1, context);
      } else {
        if (before !== undefined) assert.equal(after, before, `${context}: a read changed the ledger (seq ${before} -> ${after})`);
        if (plan.tool === 'get_context') this.acceptedContext(a, sc, context);
        else this.acceptedSearch(a, exp, sc, context, options.exact !== false);
      }
    }
    this.checkLog(context);
    if (options.ping !== false) await this.ping(property);
    return outcome;
  }

  private async acceptedLog(property: string, a: Record<string, unknown>, sc: Record<string, unknown>, t0: number, t1: number, context: string): Promise<void> {
    const id = sc.id as string;
    assert.match(id, /^[A-Za-z0-9_-]{12}$/, `${context}: id is not 12 nanoid characters`);
    assert.equal(sc.projectId, a.projectId, `${context}: projectId changed on the way`);
    assert.equal(sc.title, a.title, `${context}: title changed on the way`);
    const createdAt = sc.createdAt as string;
    assert.match(createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, `${context}: createdAt is not ISO 8601 UTC`);
    const ms = Date.parse(createdAt);
    assert.ok(ms >= t0 - 2_000 && ms <= t1 + 2_000, `${context}: createdAt ${createdAt} is not the time of the call`);
    const sentTags = a.tags as string[] | undefined;
    const tags = normaliseTags(sentTags);
    const agentId = typeof a.agentId === 'string' && a.agentId.trim() !== '' ? a.agentId : null;
    const title = a.title as string;
    const content = a.content as string;
    this.model.add({ id, projectId: a.projectId as string, title, content, tags, agentId, createdAt, ms, ascii: a.projectId === FTS_PROJECT });

    // Read it back in full: byte for byte what was sent.
    this.countsFor(property).followUps++;
    const back = await callTool(this.harness.client, 'get_context', { projectId: a.projectId, id, includeFull: true });
    assert.ok(back.ok, `${context}: reading the new entry back failed: ${back.ok ? '' : back.message}`);
    const got = this.checkSchema('get_context', back.result, `${context} read back`);
    assert.ok(
      got.title === title && Buffer.from(got.title as string, 'utf8').equals(Buffer.from(title, 'utf8')),
      `${context}: title not stored byte for byte: ${preview(got.title)}`,
    );
    assert.ok(
      got.content === content && Buffer.from(got.content as string, 'utf8').equals(Buffer.from(content, 'utf8')),
      `${context}: content not stored byte for byte: ${preview(got.content)}`,
    );
    assert.deepEqual(got.tags, tags, `${context}: tags not stored as sent (trimmed, repeats dropped)`);
    if (sentTags && sentTags.length === tags.length && sentTags.every((t, i) => t === tags[i])) {
      assert.deepEqual(got.tags, sentTags, `${context}: tags not stored byte for byte`);
    }
    assert.equal(got.agentId ?? null, agentId, `${context}: agentId not stored as sent`);
    assert.equal(got.projectId, a.projectId);
    assert.equal(got.id, id);
    assert.equal(got.createdAt, createdAt);
  }

  private acceptedContext(a: Record<string, unknown>, sc: Record<string, unknown>, context: string): void {
    const e = this.model.get(a.projectId as string, a.id as string);
    assert.ok(e, `${context}: found an entry the model does not know`);
    assert.equal(sc.id, e.id, `${context}: wrong id`);
    assert.equal(sc.projectId, e.projectId, `${context}: wrong projectId`);
    assert.equal(sc.title, e.title, `${context}: wrong title`);
    assert.equal(sc.createdAt, e.createdAt, `${context}: wrong createdAt`);
    assert.deepEqual(sc.tags, e.tags, `${context}: wrong tags`);
    assert.equal(sc.agentId ?? null, e.agentId, `${context}: wrong agentId`);
    assert.equal(typeof sc.summary, 'string', `${context}: no summary`);
    assert.ok(codePoints(sc.summary as string) <= LIMITS.summary, `${context}: summary over ${LIMITS.summary} characters`);
    if (a.includeFull === true) assert.equal(sc.content, e.content, `${context}: full content differs from what was logged`);
    else assert.ok(!('content' in sc), `${context}: content returned without includeFull=true`);
  }

  private acceptedSearch(a: Record<string, unknown>, exp: Expectation, sc: Record<string, unknown>, context: string, exactOk: boolean): void {
    const entries = sc.entries as { id: string; title: string; createdAt: string; tags: string[] }[];
    const total = sc.total as number;
    const limit = typeof a.limit === 'number' ? a.limit : LIMITS.defaultSearchLimit;
    assert.ok(Number.isInteger(total) && total >= entries.length, `${context}: total ${total} < ${entries.length} entries`);
    assert.ok(entries.length <= limit, `${context}: ${entries.length} entries for limit ${limit}`);
    assert.equal(new Set(entries.map((e) => e.id)).size, entries.length, `${context}: an entry listed twice`);
    for (const e of entries) {
      assert.ok(!('content' in e) && !('summary' in e), `${context}: search results carry content or summary`);
      assert.deepEqual(Object.keys(e).sort(), ['createdAt', 'id', 'tags', 'title'], `${context}: unexpected fields in a search result`);
    }
    if (!exp.fts) {
      for (let i = 1; i < entries.length; i++) {
        assert.ok(entries[i - 1]!.createdAt >= entries[i]!.createdAt, `${context}: not newest first at ${i}: ${entries[i - 1]!.createdAt} then ${entries[i]!.createdAt}`);
      }
    }
    const { all, exact } = expectedSearch(a, exp, this.model);
    const byId = new Map(all.map((e) => [e.id, e]));
    for (const e of entries) {
      const m = byId.get(e.id);
      assert.ok(m || !exactOk, `${context}: returned ${e.id}, which does not match the filters (or is unknown)`);
      if (!m) continue;
      assert.equal(e.title, m.title, `${context}: ${e.id} listed with another title`);
      assert.equal(e.createdAt, m.createdAt, `${context}: ${e.id} listed with another createdAt`);
      assert.deepEqual(e.tags, m.tags, `${context}: ${e.id} listed with other tags`);
    }
    if (!exactOk) return;
    if (!exact) {
      assert.ok(total <= all.length, `${context}: total ${total}, but only ${all.length} entries pass the other filters`);
      return;
    }
    assert.equal(total, all.length, `${context}: total ${total}, the model expects ${all.length}`);
    assert.equal(entries.length, Math.min(limit, all.length), `${context}: ${entries.length} entries, the model expects ${Math.min(limit, all.length)}`);
    if (!exp.fts) {
      // Newest first; entries logged in the same millisecond may come in either order.
      assert.deepEqual(
        entries.map((e) => e.createdAt),
        all.slice(0, entries.length).map((e) => e.createdAt),
        `${context}: not the newest ${entries.length} of the ${all.length} matching entries`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Generators

export const ODD_UNICODE = [
  '𝒜𝓅𝓅',
  '😀',
  '👩‍👩‍👧‍👦',
  '🇫🇷',
  '👍🏽',
  'e\u0301',
  '\u0301',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '\u202eevil\u202c',
  '\u2066isolate\u2069',
  '\u200f',
  '\u200b',
  '\u200c\u200d',
  '\ufeff',
  '\u2028',
  '\u2029',
  '\u00a0',
  '\u3000',
  'ＡＢＣ',
  'ﬁ',
  'İ',
  'ß',
  'ς',
  'аuth' /* Cyrillic а */,
  '\ufe0f',
  '\u{e0041}',
  '\ue000',
  '\ufffe',
  '\uffff',
  '\u{10ffff}',
  '\ufffd',
  '日本語テキスト',
  'العربية',
  'עברית',
  '\u0085',
  '\u180e',
];
export const UNSTORABLE = ['\u0000', 'a\u0000b', '\ud800', '\udc00', 'x\udbff', '\udfffy', '\ud83d'];
export const CONTROLS = ['\u0001', '\t', '\n', '\r\n', '\u007f', '\u001b[31m', '\b'];
export const SQL_BITS = [
  "'; DROP TABLE log_entries; --",
  '" OR 1=1 --',
  "' OR ''='",
  '%',
  '_',
  '\\',
  '/* */',
  'UNION SELECT * FROM projects',
  'NULL',
  '?',
  '?1',
  ':name',
  '$x',
  '@p',
  "Robert'); DELETE FROM entry_tags;--",
  '0x00',
  'char(0)',
];
export const FTS_BITS = [
  'NEAR',
  'NEAR/3',
  'a NEAR b',
  '*',
  'auth*',
  '"',
  '""',
  '"unbalanced',
  '(',
  ')',
  '(a OR b)',
  'OR',
  'AND',
  'NOT',
  '-',
  '--x',
  '-auth',
  '^a',
  'title:x',
  'content:',
  '{',
  '}',
  ':',
  'OR OR',
  'a OR',
  'OR b',
  '-"a phrase"',
  '"a phrase"*',
];
export const MARKUP = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '```js\nconsole.log(1)\n```',
  '# Heading',
  '[link](javascript:alert(1))',
  '**bold**',
  '| a | b |\n|---|---|',
  '&lt;&gt;&amp;',
  '&#0;',
  '<!--',
  ']]>',
  '${process.env.HOME}',
  '{{constructor}}',
  '</textarea>',
  '<svg/onload=alert(1)>',
];
export const NAN_LIKE = ['NaN', 'Infinity', '-Infinity', '1e309', '-0', '0x10', 'null', 'undefined', 'true', 'false', '[]', '{}', '1,5', ' 5 ', '5.0', '+1', ''];
export const WORDS = ['auth', 'refactor', 'jwt', 'token', 'db', 'migration', 'fix', 'test', 'api', 'users', 'Auth', 'TOKEN'];

export const PROJECT_POOL = [
  'alpha',
  'Alpha',
  'mobile-app',
  '𝒫rojekt',
  'e\u0301cole',
  'rtl\u202eevil',
  'zw\u200bsp',
  ' padded ',
  "o'brien; DROP TABLE projects; --",
  '<script>alert(1)</script>',
  '"quoted"',
  'NEAR',
  '%_',
  '日本',
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_UNICODE) },
  { weight: 1, arbitrary: fc.constantFrom(...UNSTORABLE) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: fc.constantFrom(...CONTROLS) },
  { weight: 2, arbitrary: fc.constantFrom(...SQL_BITS) },
  { weight: 2, arbitrary: fc.constantFrom(...FTS_BITS) },
  { weight: 2, arbitrary: fc.constantFrom(...MARKUP) },
  { weight: 1, arbitrary: fc.constantFrom(...NAN_LIKE) },
  { weight: 3, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 6 }) },
  { weight: 2, arbitrary: fc.constantFrom(' ', '  ', '\t', '\n', ' \u00a0 ') },
);

/** Anything: odd Unicode, SQL, FTS syntax, markup, control characters, unstorable text. */
export const weirdText = (maxPieces = 10): fc.Arbitrary<string> => fc.array(piece, { maxLength: maxPieces }).map((a) => a.join(''));

function cut(s: string, max: number): string {
  return codePoints(s) <= max ? s : Array.from(s).slice(0, max).join('');
}

/** Odd but storable text within a limit (non-blank when required, no control characters for identifiers). */
export function validText(max: number, opts: { required?: boolean; identifier?: boolean } = {}): fc.Arbitrary<string> {
  return fc.tuple(fc.oneof(weirdText(8), fc.constantFrom(...WORDS), fc.lorem({ maxCount: 5 })), fc.constantFrom(...WORDS)).map(([s, word]) => {
    let t = s
      .replaceAll('\0', '')
      .toWellFormed()
      // eslint-disable-next-line no-control-regex -- removing exactly the control characters
      .replace(opts.identifier ? /[\u0000-\u001f\u007f]/g : /(?!)/g, '')
      .replace(/^\ufeff+/, '');
    if (opts.required && t.trim() === '') t = word + t;
    return cut(t, max);
  });
}

const UNITS = ['a', '𝒜', 'e\u0301', '\u200b', ' ', '<script>', "'; DROP TABLE x; --", 'NEAR(', '\u202e'];

/** Strings at, just past, far past and 1 MB past a limit (counted in code points). */
export function sizedText(max: number): fc.Arbitrary<Huge> {
  return fc.tuple(fc.constantFrom(...UNITS), fc.constantFrom('at', 'past', 'double', 'far', 'mega')).map(([unit, size]) => {
    const cps = codePoints(unit);
    const target = size === 'at' ? max : size === 'past' ? max + 1 : size === 'double' ? max * 2 : size === 'far' ? max * 20 : 1_000_000;
    const count = Math.max(1, Math.floor(target / cps));
    const rest = target - count * cps;
    return new Huge(unit, count, 'x'.repeat(Math.max(0, rest)));
  });
}

const nested = fc.tuple(fc.integer({ min: 2, max: 3_000 }), fc.constantFrom('object' as const, 'array' as const, 'mixed' as const)).map(([d, s]) => new Nested(d, s));

/** Values of the wrong JSON type for a string argument. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(), // NaN and Infinity become null on the wire, as from any JSON client
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 2, 5e-324, 0.5, -0, 101, 1e21),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 4 }),
  fc.array(fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant({ toString: 'x', valueOf: 1 }),
  nested,
);

/** A value for a text argument: mostly valid, often hostile. */
export function textValue(max: number, opts: { required?: boolean; identifier?: boolean } = {}): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: validText(max, opts) },
    { weight: 2, arbitrary: sizedText(max) },
    { weight: 3, arbitrary: weirdText(10) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t\n ', '\u00a0\u3000', '\u200b', ...UNSTORABLE, ...CONTROLS) },
    { weight: 2, arbitrary: wrongType },
  );
}

const validTag = fc.oneof(
  fc.constantFrom(...WORDS, ' auth ', 'AUTH', 'ﬁx', 'fix', 'Ｆｉｘ', 'e\u0301', '日本', '𝒜', 'c++', 'node.js', '#1', 'a b'),
  validText(LIMITS.tag, { required: true, identifier: true }),
);

const tagItem = fc.oneof(
  { weight: 6, arbitrary: validTag },
  { weight: 2, arbitrary: textValue(LIMITS.tag, { required: true, identifier: true }) },
  { weight: 1, arbitrary: sizedText(LIMITS.tag) },
);

/** A value for tags. */
export const tagsValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<unknown>('', ' ', 'a\u0000', '\ud800', '\ufeffx', 'a\nb', 1, null, {}, []).map((bad) => new Many(bad, LIMITS.tags)) },
  { weight: 6, arbitrary: fc.array(validTag, { maxLength: LIMITS.tags }) },
  { weight: 3, arbitrary: fc.array(tagItem, { maxLength: LIMITS.tags + 2 }) },
  { weight: 1, arbitrary: fc.array(validTag, { minLength: LIMITS.tags + 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom<unknown>('x', 1, null, ['x']), fc.constantFrom(11, 1_000, 100_000)).map(([item, n]) => new Many(item, n)) },
  { weight: 2, arbitrary: fc.oneof(validText(LIMITS.tag), wrongType, fc.constant('["auth","db"]'), fc.constant('auth,db')) },
);

const dateFormat: fc.Arbitrary<DateFormat> = fc.record({
  precision: fc.constantFrom('date' as const, 'minute' as const, 'second' as const, 'ms' as const, 'micro' as const),
  offsetMinutes: fc.oneof(fc.constantFrom(0, 60, -300, 330, 345, -720, 840, -59, 1439, -1439), fc.integer({ min: -1439, max: 1439 })),
  zone: fc.constantFrom('Z' as const, 'offset' as const, 'none' as const),
});

const p2 = (n: number) => String(n).padStart(2, '0');

/** Date strings built from (possibly out-of-range) components, in strict and loose spellings. */
const componentDateOf = (years: fc.Arbitrary<number>): fc.Arbitrary<string> =>
  fc
    .record({
      y: years,
      mo: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 2, 2, 12, 13, 99)),
      d: fc.oneof(fc.integer({ min: 1, max: 28 }), fc.constantFrom(0, 1, 29, 29, 30, 31, 32)),
      time: fc.option(
        fc.record({
          h: fc.oneof(fc.integer({ min: 0, max: 23 }), fc.constantFrom(24, 99)),
          mi: fc.oneof(fc.integer({ min: 0, max: 59 }), fc.constantFrom(60)),
          s: fc.option(fc.oneof(fc.integer({ min: 0, max: 59 }), fc.constantFrom(60, 61)), { nil: undefined }),
          frac: fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }),
          sep: fc.constantFrom('T', 'T', 'T', 't', ' '),
          zone: fc.constantFrom('Z', 'Z', 'z', '', '+00:00', '-00:00', '+05:30', '-12:00', '+14:00', '+23:59', '+24:00', '-99:99', '+0530', '+05', '+5:30', '+05:60'),
        }),
        { nil: undefined },
      ),
      pad: fc.constantFrom('', '', '', ' ', '\t'),
    })
    .map(({ y, mo, d, time, pad }) => {
      let s = `${String(y).padStart(4, '0')}-${p2(mo)}-${p2(d)}`;
      if (time) {
        s += `${time.sep}${p2(time.h)}:${p2(time.mi)}`;
        if (time.s !== undefined) {
          s += `:${p2(time.s)}`;
          if (time.frac !== undefined) s += `.${time.frac}`;
        }
        s += time.zone;
      }
      return pad + s + pad;
    });

const componentDate = componentDateOf(fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 4, 99, 100, 1900, 1970, 2000, 2024, 2025, 2026, 9999)));

/** Years where calendars and Date.UTC disagree: 0-99, century leap rules, the range's ends. */
const edgeDate = componentDateOf(fc.constantFrom(0, 1, 4, 50, 96, 99, 100, 101, 400, 1899, 1900, 1970, 2000, 2024, 2025, 2026, 2100, 9999));

const garbageDate = fc.constantFrom(
  '',
  ' ',
  'yesterday',
  'now',
  'NaN',
  'Infinity',
  '2025',
  '2025-01',
  '2025-1-1',
  '2025-01-01T',
  '2025-01-01T10',
  '2025-01-01T10:00:00ZZ',
  '20250101',
  '2025/01/01',
  'Mon, 01 Jan 2025 00:00:00 GMT',
  '1700000000',
  '1700000000000',
  '-2025-01-01',
  '+002025-01-01',
  '2025-W01-1',
  '2025-001',
  '2025-01-01T00:00:00.Z',
  '2025-01-01T00:00:00,5Z',
  "2025-01-01'; DROP TABLE log_entries; --",
  '2025-01-01\u0000',
  '２０２５-０１-０１',
  '2025-01-01T00:00:00+01:00:00',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01',
  '0000-02-29',
  '1900-02-29',
  '2000-02-29',
  '2100-02-29',
  '0099-12-31',
  '0100-01-01',
  '2025-02-29',
  '2024-02-29',
  '2025-04-31',
  '2025-01-01T23:59:60Z',
  '9999-12-31T23:00:00-05:00',
  '0000-01-01T00:00:00+05:00',
);

/** A value for startDate / endDate. */
export const dateValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.nat(), fc.oneof(fc.integer({ min: -3_000, max: 3_000 }), fc.constantFrom(0, -1, 1, -DAY_MS, DAY_MS)), dateFormat)
      .map(([i, delta, f]) => new DateAnchor(i, delta, f)),
  },
  { weight: 4, arbitrary: componentDate },
  { weight: 2, arbitrary: garbageDate },
  { weight: 1, arbitrary: weirdText(4) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(' ', '\n', '\u00a0'), fc.constantFrom(100, 100_000, 1_000_000)).map(([u, n]) => new Huge(u, n, '2025-01-01')) },
  { weight: 1, arbitrary: sizedText(40) },
  { weight: 1, arbitrary: wrongType },
);

/** Valid RFC 3339 dates in years where calendars and Date.UTC disagree, last days of months included. */
const validEdgeDate: fc.Arbitrary<string> = fc
  .record({
    y: fc.constantFrom(0, 1, 4, 50, 96, 99, 100, 101, 400, 1899, 1900, 1970, 2000, 2100, 9999),
    mo: fc.integer({ min: 1, max: 12 }),
    day: fc.constantFrom('first', 'last', 'mid'),
    time: fc.option(fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.constantFrom('Z', '+00:00', '+05:30', '-08:00', '+23:59', '-23:59')), {
      nil: undefined,
    }),
  })
  .map(({ y, mo, day, time }) => {
    const d = day === 'first' ? 1 : day === 'last' ? daysInMonth(y, mo) : 15;
    const date = `${String(y).padStart(4, '0')}-${p2(mo)}-${p2(d)}`;
    return time ? `${date}T${p2(time[0])}:${p2(time[1])}:00${time[2]}` : date;
  });

/** search_logs with date bounds only: edge years, Feb 29, offsets, both ends of the range. */
export const datePlan: fc.Arbitrary<CallPlan> = fc
  .record({
    projectId: fc.nat().map((i) => new EntryRef(i, 'projectId')),
    startDate: field(fc.oneof({ weight: 4, arbitrary: validEdgeDate }, { weight: 2, arbitrary: edgeDate }, { weight: 2, arbitrary: dateValue }), 8),
    endDate: field(fc.oneof({ weight: 4, arbitrary: validEdgeDate }, { weight: 2, arbitrary: edgeDate }, { weight: 2, arbitrary: dateValue }), 8),
    limit: field(fc.integer({ min: 1, max: 100 }), 3),
  })
  .map((fields): CallPlan => ({ tool: 'search_logs', fields, extra: [] }));

/** A value for limit. */
export const limitValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 100 }) },
  { weight: 3, arbitrary: fc.constantFrom(0, -1, 101, 1000, 2 ** 31, 2 ** 53, -(2 ** 53), 1.5, 99.999, 1e308, -0, 5e-324) },
  { weight: 2, arbitrary: fc.constantFrom(...NAN_LIKE, '5', '20') },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: wrongType },
);

/** A value for includeFull. */
export const flagValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constantFrom('true', 'false', 1, 0, 'yes', '', null, [], {}, [true]) },
  { weight: 1, arbitrary: wrongType },
);

const projectValue = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...PROJECT_POOL) },
  { weight: 3, arbitrary: textValue(LIMITS.projectId, { required: true, identifier: true }) },
);

/** Keys that are not arguments: look-alikes, prototype names, huge, empty. */
const extraKey: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'project_id',
    'projectid',
    'ProjectId',
    'title ',
    'tags[0]',
    '',
    ' ',
    'id\u0000',
    '\ud800',
    'limit\u200b',
    'query.text',
    '$where',
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.constantFrom(1_000, 1_000_000).map((n) => new Huge('k', n)),
);
const extraValue: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom({ projectId: 'alpha', title: 't', content: 'c' }, 'x'));

const extras = fc.oneof(
  { weight: 9, arbitrary: fc.constant<[unknown, unknown][]>([]) },
  { weight: 1, arbitrary: fc.array(fc.tuple(extraKey, extraValue), { minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), fc.constant(1)), { minLength: 10, maxLength: 60 }) },
);

/** A field that is present with probability `presence` (out of 10). */
function field<T>(arb: fc.Arbitrary<T>, presence: number): fc.Arbitrary<T | typeof OMIT> {
  return fc.oneof({ weight: presence, arbitrary: arb }, { weight: 10 - presence, arbitrary: fc.constant(OMIT) });
}

const rawArguments = fc
  .oneof(
    fc.constantFrom<unknown>([], ['alpha', 't', 'c'], [{ projectId: 'alpha' }], 'projectId=alpha', '', 0, 1, -1, 3.14, true, false, null),
    fc.string({ maxLength: 20 }),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    nested.filter((n) => n.shape !== 'object'),
    fc.constant(new Huge('[', 1, '1]')),
  )
  .map((v) => new RawArguments(v));

export const logProgressPlan: fc.Arbitrary<CallPlan> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .record({
        projectId: field(projectValue, 9),
        title: field(textValue(LIMITS.title, { required: true }), 9),
        content: field(
          fc.oneof({ weight: 4, arbitrary: textValue(LIMITS.content, { required: true }) }, { weight: 1, arbitrary: fc.lorem({ maxCount: 40, mode: 'sentences' }) }),
          9,
        ),
        tags: field(tagsValue, 6),
        agentId: field(textValue(LIMITS.agentId, { identifier: true }), 4),
      })
      .chain((fields) => extras.map((extra): CallPlan => ({ tool: 'log_progress', fields, extra }))),
  },
  { weight: 1, arbitrary: rawArguments.map((fields): CallPlan => ({ tool: 'log_progress', fields, extra: [] })) },
  {
    // everything wrong at once: the refusal must still be one short, clear message
    weight: 1,
    arbitrary: fc
      .record({
        projectId: fc.oneof(wrongType, sizedText(LIMITS.projectId)),
        title: fc.oneof(wrongType, sizedText(LIMITS.title)),
        content: fc.oneof(wrongType, sizedText(LIMITS.content)),
        tags: fc.constantFrom<unknown>('', 'a\u0000', 7).map((bad) => new Many(bad, LIMITS.tags)),
        agentId: fc.oneof(wrongType, sizedText(LIMITS.agentId)),
      })
      .chain((fields) => fc.array(fc.tuple(extraKey, extraValue), { minLength: 1, maxLength: 30 }).map((extra): CallPlan => ({ tool: 'log_progress', fields, extra }))),
  },
);

/** log_progress with odd but valid arguments only: must be accepted and round-trip exactly. */
export const validLogPlan: fc.Arbitrary<CallPlan> = fc
  .record({
    projectId: fc.constantFrom(...PROJECT_POOL),
    title: fc.oneof(
      { weight: 6, arbitrary: validText(LIMITS.title, { required: true }) },
      { weight: 1, arbitrary: sizedText(LIMITS.title).filter((h) => codePoints(h.value()) <= LIMITS.title && h.value().trim() !== '') },
    ),
    content: fc.oneof(
      { weight: 6, arbitrary: validText(LIMITS.content, { required: true }) },
      { weight: 2, arbitrary: fc.array(validText(400, { required: true }), { minLength: 1, maxLength: 30 }).map((parts) => cut(parts.join('\n\n'), LIMITS.content)) },
      { weight: 1, arbitrary: sizedText(LIMITS.content).filter((h) => h.count * codePoints(h.unit) + codePoints(h.suffix) <= LIMITS.content && h.unit.trim() !== '') },
    ),
    tags: field(fc.array(validTag, { maxLength: LIMITS.tags }), 7),
    agentId: field(validText(LIMITS.agentId, { identifier: true }), 5),
  })
  .map((fields): CallPlan => ({ tool: 'log_progress', fields, extra: [] }));

const entryIndex = fc.nat();

export const getContextPlan: fc.Arbitrary<CallPlan> = fc.oneof(
  {
    // an entry that exists, asked for correctly
    weight: 10,
    arbitrary: fc
      .tuple(entryIndex, field(flagValue, 7))
      .map(([i, includeFull]): CallPlan => ({ tool: 'get_context', fields: { projectId: new EntryRef(i, 'projectId'), id: new EntryRef(i, 'id'), includeFull }, extra: [] })),
  },
  {
    // an id from one entry with the project of another, or a look-alike id
    weight: 4,
    arbitrary: fc.tuple(entryIndex, entryIndex, fc.constantFrom('same', 'upper', 'padded', 'prefix'), field(flagValue, 5)).map(
      ([i, j, twist, includeFull]): CallPlan => ({
        tool: 'get_context',
        fields: { projectId: new EntryRef(j, 'projectId'), id: twist === 'same' ? new EntryRef(i, 'id') : new TwistedId(new EntryRef(i, 'id'), twist), includeFull },
        extra: [],
      }),
    ),
  },
  {
    weight: 10,
    arbitrary: fc
      .record({
        projectId: field(projectValue, 9),
        id: field(fc.oneof(textValue(LIMITS.entryId, { required: true, identifier: true }), fc.constantFrom('x7k9m2p4q1w3', "' OR 1=1 --", '*', '%', '../../etc/passwd')), 9),
        includeFull: field(flagValue, 6),
      })
      .chain((fields) => extras.map((extra): CallPlan => ({ tool: 'get_context', fields, extra }))),
  },
  { weight: 1, arbitrary: rawArguments.map((fields): CallPlan => ({ tool: 'get_context', fields, extra: [] })) },
);

const queryValue = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(entryIndex, fc.nat(), fc.integer({ min: 1, max: 12 }), fc.boolean()).map(([i, s, l, u]) => new EntryRef(i, 'titleSlice', s, l, u)) },
  { weight: 2, arbitrary: entryIndex.map((i) => new EntryRef(i, 'title')) },
  { weight: 2, arbitrary: fc.constantFrom(...WORDS, 'AUTH', 'ｆｉｘ', 'e\u0301', 'é') },
  { weight: 4, arbitrary: textValue(LIMITS.query) },
);

const searchTagsValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(
      fc.tuple(entryIndex, fc.nat()).map(([i, k]) => new EntryRef(i, 'tag', k)),
      { minLength: 1, maxLength: 3 },
    ),
  },
  { weight: 2, arbitrary: fc.array(fc.constantFrom('auth', 'AUTH', ' auth ', 'fix', 'ﬁx', 'db'), { minLength: 1, maxLength: 3 }) },
  { weight: 3, arbitrary: tagsValue },
);

const textQueryValue = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom(...FTS_BITS)), { minLength: 1, maxLength: 8 }).map((a) => a.join(' ')) },
  { weight: 2, arbitrary: textValue(LIMITS.text) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map((n) => `auth ${Array.from({ length: n }, (_, i) => `-w${i}`).join(' ')}`) },
);

export const searchPlan: fc.Arbitrary<CallPlan> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .record({
        projectId: field(fc.oneof({ weight: 3, arbitrary: entryIndex.map((i) => new EntryRef(i, 'projectId')) }, { weight: 2, arbitrary: projectValue }), 9),
        query: field(queryValue, 4),
        tags: field(searchTagsValue, 3),
        startDate: field(dateValue, 3),
        endDate: field(dateValue, 3),
        limit: field(limitValue, 5),
        text: field(textQueryValue, 2),
      })
      .chain((fields) => extras.map((extra): CallPlan => ({ tool: 'search_logs', fields, extra }))),
  },
  { weight: 1, arbitrary: rawArguments.map((fields): CallPlan => ({ tool: 'search_logs', fields, extra: [] })) },
);

/** Any hostile call of any tool. */
export const anyPlan: fc.Arbitrary<CallPlan> = fc.oneof(logProgressPlan, getContextPlan, searchPlan);

/** Non-object arguments for any tool. */
export const rawArgumentsPlan: fc.Arbitrary<CallPlan> = fc.tuple(fc.constantFrom(...TOOL_NAMES), rawArguments).map(([tool, fields]): CallPlan => ({ tool, fields, extra: [] }));

// ---------------------------------------------------------------------------------------------
// The full-text laboratory: a project of ASCII entries whose matches the model can compute

export const FTS_VOCABULARY = ['alpha', 'beta', 'gamma', 'delta', 'auth', 'authz', 'author', 'token', 'tokens', 'jwt', 'near', 'not', 'or', 'and', 'x1', '42'];

export const ftsEntryPlan: fc.Arbitrary<CallPlan> = fc
  .record({
    title: fc.array(fc.constantFrom(...FTS_VOCABULARY), { minLength: 1, maxLength: 4 }),
    content: fc.array(fc.tuple(fc.constantFrom(...FTS_VOCABULARY), fc.constantFrom(' ', ' ', ', ', '. ', '-', '_', ' (', ') ', ': ')), { minLength: 1, maxLength: 15 }),
    tags: fc.array(fc.constantFrom('auth', 'db', 'fix'), { maxLength: 2 }),
  })
  .map(
    ({ title, content, tags }): CallPlan => ({
      tool: 'log_progress',
      fields: {
        projectId: FTS_PROJECT,
        title: title.join(' '),
        content:
          content
            .map(([w, sep]) => w + sep)
            .join('')
            .trim() || 'alpha',
        tags,
      },
      extra: [],
    }),
  );

const ftsToken = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FTS_VOCABULARY).chain((w) => fc.constantFrom(w, w.toUpperCase(), `${w.slice(0, 2)}*`, `${w}*`, `-${w}`)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...FTS_VOCABULARY), fc.constantFrom(...FTS_VOCABULARY), fc.boolean()).map(([a, b, neg]) => `${neg ? '-' : ''}"${a} ${b}"`) },
  { weight: 2, arbitrary: fc.constantFrom('OR', 'AND', 'NOT', 'NEAR', 'NEAR/2', '(', ')', '*', '-', '"', '^', ':', 'title:', 'OR OR', '""') },
);

export const ftsSearchPlan: fc.Arbitrary<CallPlan> = fc
  .record({
    text: fc.array(ftsToken, { minLength: 1, maxLength: 8 }).map((t) => t.join(' ')),
    limit: field(fc.integer({ min: 1, max: 100 }), 5),
    tags: field(fc.array(fc.constantFrom('auth', 'db', 'fix'), { minLength: 1, maxLength: 1 }), 2),
  })
  .map(({ text: t, limit, tags }): CallPlan => ({ tool: 'search_logs', fields: { projectId: FTS_PROJECT, text: t, limit, tags }, extra: [] }));
