// Merges one server into an MCP client's JSON config (`mcpServers` of Claude Code and Cursor,
// `servers` of VS Code's mcp.json), keeping every other server and key. Reads JSON with comments
// and trailing commas, as those files allow; writes plain JSON. Pure: no vscode, no file system.

import { ConfigFormatError } from './tomlMerge';

export type JsonObject = Record<string, unknown>;

/** Removes comments and trailing commas outside strings; `hadComments` when any were removed. */
export function stripJsonc(text: string): { json: string; hadComments: boolean } {
  let out = '';
  let hadComments = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      hadComments = true;
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      hadComments = true;
      const end = text.indexOf('*/', i + 2);
      const body = text.slice(i, end < 0 ? text.length : end + 2);
      out += body.replace(/[^\n]/g, ' ');
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  // A comma followed only by blanks and a closing bracket.
  return { json: out.replace(/,(\s*[}\]])/g, '$1'), hadComments };
}

export function parseJsonConfig(text: string, file: string): { config: JsonObject; hadComments: boolean } {
  if (text.trim() === '') return { config: {}, hadComments: false };
  const { json, hadComments } = stripJsonc(text.replace(/^\uFEFF/, ''));
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new ConfigFormatError(`${file} is not valid JSON (${(err as Error).message}); fix or remove it and run the command again`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigFormatError(`${file} does not hold a JSON object; fix or remove it and run the command again`);
  }
  return { config: value as JsonObject, hadComments };
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

/**
 * The config with `rootKey.name` set: other servers and top-level keys kept in their order; keys
 * of an existing entry other than the ones given (a client's own flags, such as `disabled`) kept.
 */
export function upsertJsonServer(config: JsonObject, rootKey: string, name: string, entry: JsonObject): JsonObject {
  const servers = (config[rootKey] as JsonObject | undefined) ?? {};
  const previous = servers[name];
  const kept = previous && typeof previous === 'object' && !Array.isArray(previous) ? (previous as JsonObject) : {};
  return { ...config, [rootKey]: { ...servers, [name]: { ...kept, ...entry } } };
}

export function formatJson(config: JsonObject, eol = '\n'): string {
  return JSON.stringify(config, null, 2).replace(/\n/g, eol) + eol;
}
