// Merges one server into an MCP client's JSON config (`mcpServers` of Claude Code, Cursor and
// Gemini CLI, `servers` of VS Code's mcp.json), keeping every other server and key. Reads JSON with
// comments and trailing commas, as those files allow, and edits the text in place with
// jsonc-parser (`modify`/`applyEdits`): comments, strings and the layout of everything else stay as
// written. Pure: no vscode, no file system.

import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { ConfigFormatError } from './tomlMerge';

export type JsonObject = Record<string, unknown>;

/** Parses a JSON-with-comments text as the editors read it; null when it is not valid. */
export function parseJsonc(text: string): { value: unknown; errors: ParseError[] } {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  return { value, errors };
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

export function parseJsonConfig(text: string, file: string): { config: JsonObject } {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { config: {} };
  const { value, errors } = parseJsonc(body);
  if (errors.length > 0) {
    const e = errors[0]!;
    throw new ConfigFormatError(`${file} is not valid JSON (${printParseErrorCode(e.error)} at ${lineColumn(body, e.offset)}); fix or remove it and run the command again`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigFormatError(`${file} does not hold a JSON object; fix or remove it and run the command again`);
  }
  return { config: value as JsonObject };
}

/** The entry under `rootKey.name`, if any (refusing a `rootKey` that is not an object). */
export function readJsonServer(config: JsonObject, rootKey: string, name: string, file: string): JsonObject | undefined {
  const servers = config[rootKey];
  if (servers === undefined) return undefined;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new ConfigFormatError(`"${rootKey}" in ${file} is not an object; fix it and run the command again`);
  }
  const entry = (servers as JsonObject)[name];
  return entry && typeof entry === 'object' && !Array.isArray(entry) ? (entry as JsonObject) : entry === undefined ? undefined : { value: entry };
}

/** The file's own indentation (first indented line) and line ends, for what is inserted. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? Math.min(indent.length, 8) : 2, eol };
}

/**
 * The text with `rootKey.name` set to `entry`, edited in place: other servers, keys, comments and
 * layout kept. Keys of an existing entry other than the ones given (a client's own flags, such as
 * `disabled`) are kept; an entry that is not an object is replaced whole.
 */
export function upsertJsonServerText(text: string, rootKey: string, name: string, entry: JsonObject): string {
  const servers = parseJsonConfig(text, 'the file').config[rootKey];
  const current = servers && typeof servers === 'object' ? (servers as JsonObject)[name] : undefined;
  const whole = current === null || typeof current !== 'object' || Array.isArray(current);
  return editJsonText(text, whole ? [[[rootKey, name], entry]] : Object.entries(entry).map(([k, v]) => [[rootKey, name, k], v]));
}

/** The text with the value at `at` set, edited in place like `upsertJsonServerText` (comments and layout kept). */
export function setJsonText(text: string, at: readonly string[], value: unknown): string {
  return editJsonText(text, [[at, value]]);
}

/** The one in-place edit: each value set at its path in turn, in the file's own indentation and line ends, BOM kept. */
function editJsonText(text: string, edits: readonly (readonly [readonly string[], unknown])[]): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  let out = text.slice(bom.length);
  const formattingOptions = formattingOf(out);
  if (out.trim() === '') out = '{}';
  for (const [at, value] of edits) out = applyEdits(out, modify(out, [...at], value, { formattingOptions }));
  if (!out.endsWith('\n')) out += formattingOptions.eol;
  return bom + out;
}
