// Input schemas shared by every transport (MCP, CLI, extension), with the seeds' own validation
// messages ("title exceeds maximum length of 100 characters"). Lengths count code points, as the
// JSON Schema maxLength advertised to models does.

import * as z from 'zod';
import { invalidArgument } from './errors';
import { codePointLength, truncateText, unstorableReason } from './text';

type Issue = z.core.$ZodIssue;

// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
const CONTROL = /[\u0000-\u001f\u007f]/;

function typeError(name: string, expected: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${expected}`);
}

function checkText(name: string, value: string, max: number, ctx: z.core.$RefinementCtx<string>, opts: { required: boolean; identifier?: boolean }): void {
  if (opts.required && value.trim().length === 0) {
    ctx.addIssue({ code: 'custom', message: `${name} is required and cannot be empty` });
    return;
  }
  if (codePointLength(value) > max) {
    ctx.addIssue({ code: 'custom', message: `${name} exceeds maximum length of ${max} characters` });
    return;
  }
  const bad = unstorableReason(value);
  if (bad) {
    ctx.addIssue({ code: 'custom', message: `${name} ${bad}` });
    return;
  }
  if (opts.identifier && CONTROL.test(value)) {
    ctx.addIssue({ code: 'custom', message: `${name} must not contain control characters such as newlines or tabs` });
  }
}

/** A required, non-blank string of at most `max` code points. */
export function requiredText(name: string, max: number, opts: { identifier?: boolean } = {}) {
  return z
    .string({ error: typeError(name, 'a string') })
    .superRefine((value, ctx) => checkText(name, value, max, ctx, { required: true, identifier: opts.identifier ?? false }))
    .meta({ maxLength: max });
}

/** An optional string of at most `max` code points (empty allowed). */
export function optionalText(name: string, max: number, opts: { identifier?: boolean } = {}) {
  return z
    .string({ error: typeError(name, 'a string') })
    .superRefine((value, ctx) => checkText(name, value, max, ctx, { required: false, identifier: opts.identifier ?? false }))
    .meta({ maxLength: max })
    .optional();
}

/**
 * An array of at most maxItems strings, each non-blank and at most maxLength characters; `refuse`
 * says what else is wrong with an item (the end of the message after its name), if anything.
 */
function stringList(name: string, maxItems: number, maxLength: number, refuse: (item: string) => string | undefined) {
  return z
    .array(z.unknown(), { error: typeError(name, 'an array of strings') })
    .superRefine((items, ctx) => {
      if (items.length > maxItems) {
        ctx.addIssue({ code: 'custom', message: `${name} exceeds maximum of ${maxItems} items` });
        return;
      }
      items.forEach((item, i) => {
        const label = `${name}[${i}]`;
        if (typeof item !== 'string') {
          ctx.addIssue({ code: 'custom', message: `${label} must be a string` });
          return;
        }
        const wrong = item.trim().length === 0 ? 'cannot be empty' : codePointLength(item) > maxLength ? `exceeds maximum length of ${maxLength} characters` : refuse(item);
        if (wrong) ctx.addIssue({ code: 'custom', message: `${label} ${wrong}` });
      });
    })
    .transform((items) => items as string[])
    .meta({ type: 'array', items: { type: 'string', minLength: 1, maxLength }, maxItems });
}

/** A list of short labels such as tags: each non-blank, without control characters. */
export function labelList(name: string, maxItems: number, maxLength: number) {
  return stringList(name, maxItems, maxLength, (item) => (unstorableReason(item) || CONTROL.test(item) ? 'must be plain text without control characters' : undefined));
}

/** A list of free-text items (achievements, commands): each non-blank and storable; line breaks allowed. */
export function textList(name: string, maxItems: number, maxLength: number) {
  return stringList(name, maxItems, maxLength, unstorableReason);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

export interface ParsedDate {
  /** The instant as an ISO string in UTC with milliseconds, comparable with stored timestamps. */
  iso: string;
  /** true when only a calendar date was given (no time of day). */
  dateOnly: boolean;
}

/** Parses an ISO 8601 date or date-time; undefined when it is not one. Dates alone are UTC. */
export function parseIsoDate(value: string): ParsedDate | undefined {
  const m = ISO_DATE.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? '0') > 59)) return undefined;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    if (Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2, 4)) > 59) return undefined; // +24:00, -99:99
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const check = new Date(0);
  check.setUTCFullYear(Number(y), month - 1, day);
  if (check.getUTCDate() !== day) return undefined; // 2025-02-30
  const utc = check.getTime() + Date.UTC(1970, 0, 1, Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms) - offsetMinutes * 60_000;
  if (!Number.isFinite(utc)) return undefined;
  return { iso: new Date(utc).toISOString(), dateOnly: h === undefined };
}

export function isoDate(name: string) {
  return z
    .string({ error: typeError(name, 'a string') })
    .superRefine((value, ctx) => {
      if (!parseIsoDate(value)) ctx.addIssue({ code: 'custom', message: `Invalid date format for ${name}: expected ISO 8601` });
    })
    .meta({ format: 'date-time' })
    .optional();
}

export function boundedInt(name: string, min: number, max: number, defaultValue?: number) {
  return z
    .number({ error: typeError(name, 'a number') })
    .superRefine((value, ctx) => {
      if (!Number.isInteger(value)) ctx.addIssue({ code: 'custom', message: `${name} must be an integer` });
      else if (value < min || value > max) ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max}` });
    })
    .meta({ type: 'integer', minimum: min, maximum: max, ...(defaultValue === undefined ? {} : { default: defaultValue }) })
    .optional();
}

export function flag(name: string) {
  return z.boolean({ error: typeError(name, 'true or false') }).optional();
}

function pathLabel(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

function issueMessage(issue: Issue, known: readonly string[]): string {
  const where = pathLabel(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      // The keys are the caller's: name a few, each cut short, so the message stays readable.
      const shown = issue.keys.slice(0, 3).map((k) => `"${truncateText(k, 40)}"`);
      const more = issue.keys.length > shown.length ? ` and ${issue.keys.length - shown.length} more` : '';
      return `Unknown argument${issue.keys.length > 1 ? 's' : ''} ${shown.join(', ')}${more}; accepted: ${known.join(', ')}`;
    }
    case 'invalid_type':
      if (where === '') return 'Arguments must be a JSON object';
      return issue.message.startsWith('Invalid input') ? `${where} must be ${issue.expected}` : issue.message;
    case 'custom':
      return issue.message;
    default:
      return where && !issue.message.startsWith(`${where} `) ? `${where}: ${issue.message}` : issue.message;
  }
}

/** Problems listed in one refusal up to about this many characters. */
const MAX_REFUSAL_LENGTH = 400;

/** Validates raw arguments; throws an invalid_argument LedgerError with every problem named. */
export function parseInput<S extends z.ZodObject>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const known = Object.keys(schema.shape);
  const messages = [...new Set(result.error.issues.map((issue) => issueMessage(issue, known)))];
  // Every problem while the message stays readable (the first ones are the first to fix); the rest counted.
  let text = messages[0] ?? 'Invalid arguments';
  let shown = 1;
  while (shown < messages.length && text.length + 2 + messages[shown]!.length <= MAX_REFUSAL_LENGTH) text += `; ${messages[shown++]}`;
  if (shown < messages.length) text += `; and ${messages.length - shown} more problem${messages.length - shown > 1 ? 's' : ''}`;
  throw invalidArgument(text);
}

/** A number (fractions allowed) within bounds, e.g. minutes of a lease. */
export function boundedNumber(name: string, min: number, max: number, unit: string) {
  return z
    .number({ error: typeError(name, 'a number') })
    .superRefine((value, ctx) => {
      if (!Number.isFinite(value) || value < min || value > max) ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max} ${unit}` });
    })
    .meta({ minimum: min, maximum: max })
    .optional();
}

/** One of a fixed set of strings, refused with a message that lists them (the seeds' enums). */
export function requiredOneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z
    .string({ error: typeError(name, `one of ${values.join(', ')}`) })
    .superRefine((value, ctx) => {
      if (!(values as readonly string[]).includes(value)) {
        const shown = codePointLength(value) > 40 ? `${Array.from(value).slice(0, 40).join('')}…` : value;
        ctx.addIssue({ code: 'custom', message: `${name} must be one of ${values.join(', ')} (got ${JSON.stringify(shown)})` });
      }
    })
    .transform((value) => value as T[number])
    .meta({ type: 'string', enum: [...values] });
}

/** An optional one of a fixed set of strings. */
export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return requiredOneOf(name, values).optional();
}

/**
 * An object of short named string values, such as a task's template variables. A blank value is
 * refused by name: filled into a template it would leave a hole in the instructions.
 */
export function stringMap(name: string, opts: { maxKeys: number; maxValue: number; keyPattern: RegExp }) {
  return z
    .record(z.string(), z.unknown(), { error: typeError(name, 'an object of string values') })
    .superRefine((map, ctx) => {
      const keys = Object.keys(map);
      if (keys.length > opts.maxKeys) {
        ctx.addIssue({ code: 'custom', message: `${name} has ${keys.length} entries; at most ${opts.maxKeys}` });
        return;
      }
      for (const key of keys) {
        const value = map[key];
        const label = `${name}.${key.length > 40 ? `${key.slice(0, 40)}…` : key}`;
        if (!opts.keyPattern.test(key)) ctx.addIssue({ code: 'custom', message: `${label}: variable names are letters, digits, _ . or -, starting with a letter or _` });
        else if (typeof value !== 'string') ctx.addIssue({ code: 'custom', message: `${label} must be a string` });
        else if (codePointLength(value) > opts.maxValue) ctx.addIssue({ code: 'custom', message: `${label} exceeds maximum length of ${opts.maxValue} characters` });
        else if (value.trim() === '') ctx.addIssue({ code: 'custom', message: `${label} is ${value === '' ? 'empty' : 'only whitespace'}: give it a value` });
        else if (unstorableReason(value)) ctx.addIssue({ code: 'custom', message: `${label} ${unstorableReason(value)}` });
      }
    })
    .transform((map) => map as Record<string, string>)
    .meta({ type: 'object', additionalProperties: { type: 'string', minLength: 1, maxLength: opts.maxValue }, maxProperties: opts.maxKeys })
    .optional();
}
