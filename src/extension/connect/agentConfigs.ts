// What "Connect Other Agents" writes: for Claude Code (.mcp.json), Codex (.codex/config.toml),
// Cursor (.cursor/mcp.json), Gemini CLI (.gemini/settings.json) and VS Code (.vscode/mcp.json), server entries that run the bundled
// dist/server.js on the extension's ledger, merged into what the files already hold. Pure planning
// and formatting (no vscode); the command reads and writes the files.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseJsonConfig, readJsonServer, upsertJsonServerText, type JsonObject } from './jsonMerge';
import { parse as parseToml } from 'smol-toml';
import { ConfigFormatError, readTomlServer, upsertTomlServer, type StdioServer } from './tomlMerge';
import { serverLaunch } from '../../core/leanNode';

export type AgentClientId = 'claude' | 'codex' | 'cursor' | 'gemini' | 'vscode';

export interface AgentClient {
  id: AgentClientId;
  label: string;
  /** The config file, relative to the workspace folder. */
  file: string;
  format: 'json' | 'toml';
  /** JSON: the object holding the servers. */
  rootKey?: string;
  /** JSON: written in each entry as `type` when the client wants it. */
  type?: 'stdio';
  detail: string;
}

export const AGENT_CLIENTS: readonly AgentClient[] = [
  {
    id: 'claude',
    label: 'Claude Code',
    file: '.mcp.json',
    format: 'json',
    rootKey: 'mcpServers',
    type: 'stdio',
    detail: 'project servers: .mcp.json (Claude Code asks once to approve them)',
  },
  { id: 'codex', label: 'Codex', file: path.join('.codex', 'config.toml'), format: 'toml', detail: 'project config: .codex/config.toml (read in trusted projects)' },
  { id: 'cursor', label: 'Cursor', file: path.join('.cursor', 'mcp.json'), format: 'json', rootKey: 'mcpServers', detail: 'project servers: .cursor/mcp.json' },
  {
    id: 'gemini',
    label: 'Gemini CLI',
    file: path.join('.gemini', 'settings.json'),
    format: 'json',
    rootKey: 'mcpServers',
    detail: 'project settings: .gemini/settings.json (other settings kept)',
  },
  {
    id: 'vscode',
    label: 'VS Code (mcp.json)',
    file: path.join('.vscode', 'mcp.json'),
    format: 'json',
    rootKey: 'servers',
    type: 'stdio',
    detail: 'only if you prefer mcp.json: Copilot already sees the servers this extension provides',
  },
];

/**
 * A connection string without its password, for files that may be shared or committed: the
 * agents' servers take the password from PGPASSWORD or ~/.pgpass, as every PostgreSQL client does.
 */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password && !u.searchParams.has('password')) return url;
    u.password = '';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    return url.replace(/(:\/\/[^:/@]*):[^@]*@/, '$1@');
  }
}

/** Toolsets that define the same tool name and so cannot share one server (a client would see one name for two tools; see src/mcp/toolsets.ts). */
export const COLLIDING_TOOLSETS: readonly (readonly [string, string])[] = [['queue', 'workflow']];

export const SERVER_ENTRY_NAME = 'agent-progress';

export interface ConnectInput {
  serverScript: string;
  /** How to run Node: a command, plus env (ELECTRON_RUN_AS_NODE when it is the editor's own runtime). */
  node: { command: string; env: Record<string, string> };
  ledgerPath: string;
  /** The team ledger on PostgreSQL when one is configured: written without its password. */
  databaseUrl?: string;
  workspace: string;
  projectId: string;
  toolsets: readonly string[];
  /** More environment: summary endpoint and model, transcript folders. Never a secret. */
  extraEnv?: Record<string, string>;
}

export interface ServerEntry {
  name: string;
  toolsets: string[];
  launch: StdioServer;
}

/**
 * The servers to write: as few as the toolsets allow (each server process holds the ledger in
 * memory), `agent-progress` with every toolset that fits beside the ones before it, then one
 * `agent-progress-<toolset>` per group that collides with it (queue and workflow share complete_task).
 */
export function serverEntries(input: ConnectInput): ServerEntry[] {
  const groups: string[][] = [];
  const clash = (a: string, b: string): boolean => COLLIDING_TOOLSETS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  for (const toolset of input.toolsets) {
    const group = groups.find((g) => !g.some((t) => clash(t, toolset)));
    if (group) group.push(toolset);
    else groups.push([toolset]);
  }
  const env: Record<string, string> = {
    ...input.node.env,
    AGENT_PROGRESS_DB_PATH: input.ledgerPath,
    ...(input.databaseUrl ? { AGENT_PROGRESS_DATABASE_URL: withoutPassword(input.databaseUrl) } : {}),
    AGENT_PROGRESS_PROJECT: input.projectId,
    AGENT_PROGRESS_WORKSPACE: input.workspace,
    ...(input.extraEnv ?? {}),
  };
  return groups.map((toolsets, i) => ({
    name: i === 0 ? SERVER_ENTRY_NAME : `${SERVER_ENTRY_NAME}-${toolsets[0]}`,
    toolsets,
    // Run lean, as the servers the editor starts do.
    launch: { command: input.node.command, ...serverLaunch(input.serverScript, toolsets, env) },
  }));
}

export type EntryStatus = 'added' | 'unchanged' | 'updated' | 'replaced' | 'kept';

export interface EntryChange {
  name: string;
  status: EntryStatus;
  /** A different entry of that name that is not one of ours (asked about before replacing). */
  foreign?: string;
}

export interface FilePlan {
  client: AgentClient;
  file: string;
  status: 'create' | 'update' | 'unchanged' | 'error';
  before: string | undefined;
  after: string | undefined;
  changes: EntryChange[];
  error?: string;
}

const sameLaunch = (a: { command?: unknown; args?: unknown; env?: unknown }, b: StdioServer): boolean =>
  a.command === b.command && JSON.stringify(a.args ?? []) === JSON.stringify(b.args) && JSON.stringify(sortKeys(a.env ?? {})) === JSON.stringify(sortKeys(b.env));

function sortKeys(o: unknown): unknown {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return o;
  return Object.fromEntries(Object.entries(o as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** An entry this command wrote before (for an older copy of the extension): updated without asking. */
export function isOwnEntry(entry: { args?: unknown; env?: unknown }): boolean {
  const args = Array.isArray(entry.args) ? entry.args : [];
  const env = entry.env && typeof entry.env === 'object' ? (entry.env as JsonObject) : {};
  // The script is the first argument that is not a Node option (older copies wrote none before it).
  const script: unknown = args.find((a) => typeof a !== 'string' || !a.startsWith('-'));
  return typeof script === 'string' && /[\\/]dist[\\/]server\.js$/.test(script) && typeof env.AGENT_PROGRESS_DB_PATH === 'string';
}

function describeForeign(entry: { command?: unknown; args?: unknown; url?: unknown }): string {
  if (typeof entry.url === 'string') return entry.url;
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  return [String(entry.command ?? '(no command)'), ...args].join(' ').slice(0, 200);
}

/**
 * What writing `entries` into one client's file would change. `replaceForeign`: whether entries of
 * the same name written by someone else may be replaced (else they are kept and reported).
 */
export function planClient(client: AgentClient, workspace: string, existing: string | undefined, entries: readonly ServerEntry[], replaceForeign: boolean): FilePlan {
  const file = path.join(workspace, client.file);
  const plan: FilePlan = { client, file, status: 'unchanged', before: existing, after: existing, changes: [] };
  try {
    let text = existing ?? '';
    if (client.format === 'toml') {
      for (const entry of entries) {
        const previous = readTomlServer(text, entry.name);
        const status = decide(previous, entry, replaceForeign);
        plan.changes.push({ name: entry.name, status, ...(previous && status !== 'unchanged' && !isOwnEntry(previous) ? { foreign: describeForeign(previous) } : {}) });
        if (status === 'added' || status === 'updated' || status === 'replaced') text = upsertTomlServer(text, entry.name, entry.launch);
      }
      const written = entries.filter((e) => ['added', 'updated', 'replaced'].includes(plan.changes.find((c) => c.name === e.name)!.status));
      if (written.length > 0) checkToml(existing ?? '', text, written);
    } else {
      const { config } = parseJsonConfig(text, client.file);
      for (const entry of entries) {
        const previous = readJsonServer(config, client.rootKey!, entry.name, client.file);
        const status = decide(previous, entry, replaceForeign);
        plan.changes.push({ name: entry.name, status, ...(previous && status !== 'unchanged' && !isOwnEntry(previous) ? { foreign: describeForeign(previous) } : {}) });
        if (status === 'added' || status === 'updated' || status === 'replaced') {
          const value: JsonObject = { ...(client.type ? { type: client.type } : {}), command: entry.launch.command, args: entry.launch.args, env: entry.launch.env };
          // Edited in place: the file's comments, strings and layout stay as they were.
          text = upsertJsonServerText(text, client.rootKey!, entry.name, value);
        }
      }
      // What the client will read back: every other server as it was, ours as written.
      const after = parseJsonConfig(text, client.file).config;
      for (const entry of entries) {
        const written = readJsonServer(after, client.rootKey!, entry.name, client.file);
        const status = plan.changes.find((c) => c.name === entry.name)!.status;
        if ((status === 'added' || status === 'updated' || status === 'replaced') && !(written && sameLaunch(written, entry.launch))) {
          throw new ConfigFormatError(`${client.file}: the merged file would not hold ${entry.name} as written; fix the file by hand and run the command again`);
        }
      }
    }
    plan.after = text;
    if (existing === undefined) plan.status = 'create';
    else if (text !== existing) plan.status = 'update';
    if (existing === undefined && !plan.changes.some((c) => c.status === 'added')) plan.status = 'unchanged';
  } catch (err) {
    if (!(err instanceof ConfigFormatError)) throw err;
    plan.status = 'error';
    plan.after = existing;
    plan.error = client.format === 'toml' ? `${client.file}${err.message.startsWith('line ') ? ',' : ''} ${err.message}` : err.message;
  }
  return plan;
}

/**
 * Refuses a merge that a TOML parser does not read back as written: the editor only replaces its
 * own table, so a file that defines `mcp_servers` another way (an inline `mcp_servers = {...}`)
 * would otherwise be left invalid. Checked before anything is written.
 */
function checkToml(before: string, after: string, written: readonly ServerEntry[]): void {
  const read = (text: string): Record<string, unknown> | Error => {
    try {
      return parseToml(text) as Record<string, unknown>;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  };
  const first = (err: Error): string => err.message.split('\n')[0]!.trim();
  const original = read(before);
  if (original instanceof Error) throw new ConfigFormatError(`is not valid TOML (${first(original)}); fix it and run the command again`);
  const merged = read(after);
  if (merged instanceof Error) {
    const inline = typeof original.mcp_servers === 'object' && /^\s*mcp_servers\s*=/m.test(before);
    throw new ConfigFormatError(
      inline
        ? 'defines mcp_servers inline (mcp_servers = { ... }), and adding a [mcp_servers.<name>] table to it would make the file invalid TOML; ' +
          'write each server as its own [mcp_servers.<name>] table, then run the command again. Nothing was written.'
        : `would not be valid TOML after the merge (${first(merged)}); fix the file by hand and run the command again. Nothing was written.`,
    );
  }
  const servers = (merged.mcp_servers ?? {}) as Record<string, { command?: unknown; args?: unknown; env?: unknown }>;
  for (const entry of written) {
    const read = servers[entry.name];
    if (!read || !sameLaunch(read, entry.launch)) {
      throw new ConfigFormatError(`would not hold ${entry.name} as written when read as TOML; fix the file by hand and run the command again. Nothing was written.`);
    }
  }
}

function decide(previous: { command?: unknown; args?: unknown; env?: unknown } | undefined, entry: ServerEntry, replaceForeign: boolean): EntryStatus {
  if (!previous) return 'added';
  if (sameLaunch(previous, entry.launch)) return 'unchanged';
  if (isOwnEntry(previous)) return 'updated';
  return replaceForeign ? 'replaced' : 'kept';
}

/** The plans' entries that name a different server someone else wrote: asked about first. */
export function foreignConflicts(plans: readonly FilePlan[]): { file: string; name: string; foreign: string }[] {
  return plans.flatMap((p) =>
    p.changes.filter((c) => c.foreign !== undefined && (c.status === 'kept' || c.status === 'replaced')).map((c) => ({ file: p.client.file, name: c.name, foreign: c.foreign! })),
  );
}

/** Writes the plans that change something: parent folders created, each file replaced atomically. */
export function applyPlans(plans: readonly Pick<FilePlan, 'status' | 'file' | 'after'>[]): void {
  for (const plan of plans) {
    if ((plan.status !== 'create' && plan.status !== 'update') || plan.after === undefined) continue;
    fs.mkdirSync(path.dirname(plan.file), { recursive: true });
    const temp = `${plan.file}.${process.pid}.tmp`;
    let mode: number | undefined;
    try {
      mode = fs.statSync(plan.file).mode & 0o777;
    } catch {
      mode = undefined;
    }
    fs.writeFileSync(temp, plan.after, { encoding: 'utf8', ...(mode !== undefined ? { mode } : {}) });
    fs.renameSync(temp, plan.file);
  }
}

/** A short line diff (changed lines with a little context), for the summary. */
export function lineDiff(before: string | undefined, after: string | undefined, context = 2): string[] {
  const a = (before ?? '').replace(/\r\n/g, '\n').split('\n');
  const b = (after ?? '').replace(/\r\n/g, '\n').split('\n');
  if (a[a.length - 1] === '') a.pop();
  if (b[b.length - 1] === '') b.pop();
  // LCS table: config files are small.
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: { op: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: ' ', line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ op: '-', line: a[i++]! });
    else ops.push({ op: '+', line: b[j++]! });
  }
  const show = ops.map((o, k) => o.op !== ' ' || ops.slice(Math.max(0, k - context), k + context + 1).some((x) => x.op !== ' '));
  const out: string[] = [];
  ops.forEach((o, k) => {
    if (show[k]) out.push(`${o.op} ${o.line}`);
    else if (k === 0 || show[k - 1]) out.push('  ...');
  });
  return out;
}

const STATUS_WORDS: Record<EntryStatus, string> = {
  added: 'added',
  unchanged: 'already up to date',
  updated: 'updated (written earlier by this command)',
  replaced: 'replaced a different server of that name',
  kept: 'left as it was: a different server of that name is there',
};

/** The Markdown summary shown after the command ran. */
export function describePlans(
  plans: readonly FilePlan[],
  entries: readonly ServerEntry[],
  input: Pick<ConnectInput, 'ledgerPath' | 'databaseUrl' | 'node' | 'serverScript'>,
): string {
  const ledger = input.databaseUrl ? `the PostgreSQL ledger \`${withoutPassword(input.databaseUrl)}\`` : `the ledger \`${input.ledgerPath}\``;
  const lines = [
    '# Agent Progress: other agents connected',
    '',
    `Every server below runs \`${input.serverScript}\` with \`${input.node.command}\` on ${ledger}, the one the sidebar shows.`,
    '',
  ];
  if (input.databaseUrl && withoutPassword(input.databaseUrl) !== input.databaseUrl) {
    lines.push('The password is not written into these files: give the agents `PGPASSWORD` in their environment or an entry in `~/.pgpass`.', '');
  }
  for (const e of entries) lines.push(`- \`${e.name}\`: toolsets ${e.toolsets.join(', ')}`);
  lines.push('');
  for (const plan of plans) {
    const what = plan.status === 'create' ? 'created' : plan.status === 'update' ? 'updated' : plan.status === 'error' ? 'not changed (error)' : 'unchanged';
    lines.push(`## ${plan.client.label}: \`${plan.client.file}\` ${what}`, '');
    if (plan.error) lines.push(plan.error, '');
    for (const c of plan.changes) lines.push(`- \`${c.name}\`: ${STATUS_WORDS[c.status]}${c.foreign ? ` (\`${c.foreign}\`)` : ''}`);
    if (plan.status === 'create' || plan.status === 'update') lines.push('', '```diff', ...lineDiff(plan.before, plan.after), '```');
    lines.push('');
  }
  lines.push(
    'Start the agent in this folder (Claude Code asks once to approve project servers; Codex reads `.codex/config.toml` only in a trusted project).',
    'These files name paths on this machine: keep them out of version control, and run the command again after the extension is updated.',
  );
  return lines.join('\n') + '\n';
}

/** The first `node` on PATH (absolute), if any. */
export function findOnPath(pathEnv: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  const names = platform === 'win32' ? ['node.exe', 'node.cmd'] : ['node'];
  for (const dir of (pathEnv ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        const stat = fs.statSync(candidate);
        if (stat.isFile() && (platform === 'win32' || (stat.mode & 0o111) !== 0)) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * How the written configs run Node. A Node 20+ found on PATH, by its absolute path (GUI-started
 * clients may not share the terminal's PATH); else the editor's own runtime: plain Node in a
 * remote or web editor, or Electron with ELECTRON_RUN_AS_NODE=1 in desktop VS Code.
 */
export function resolveNode(options: { pathEnv: string | undefined; execPath: string; electron: boolean; versionOf: (command: string) => string | undefined }): {
  command: string;
  env: Record<string, string>;
  source: 'path' | 'editor';
} {
  const found = findOnPath(options.pathEnv);
  const version = found ? options.versionOf(found) : undefined;
  const major = version ? Number(/^v?(\d+)/.exec(version.trim())?.[1]) : NaN;
  if (found && major >= 20) return { command: found, env: {}, source: 'path' };
  return { command: options.execPath, env: options.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}, source: 'editor' };
}
