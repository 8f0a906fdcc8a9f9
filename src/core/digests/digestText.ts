// What a session digest says, built from a session's structure and its tool calls' arguments:
// what was asked, files written or edited, commands run and which failed, tests run, tokens, the
// ledger entries the agent logged itself, and the session id to drill into. Pure, and every text
// that comes from a transcript passes through the traces redaction.

import * as path from 'node:path';
import { truncateText } from '../text';
import type { SessionBuilder, TurnInfo } from '../traces/builder';
import { redactText } from '../traces/redact';
import { PROVIDER_LABELS, addTokens, zeroTokens, type Provider, type TokenCounts } from '../traces/types';

/** Tools that write or edit files, across the four agents' names. */
const EDIT_TOOLS =
  /^(write|edit|multiedit|notebookedit|write_file|replace|edit_file|create_file|insert_edit_into_file|replace_string_in_file|multi_replace_string_in_file|apply_patch|str_replace_based_edit_tool|str_replace_editor|edit_notebook_file)$/i;
/** Tools that run a shell command. */
const SHELL_TOOLS = /^(bash|shell|shell_command|exec_command|local_shell|local_shell_call|run_shell_command|run_in_terminal|container\.exec)$/i;
/** A command that runs tests. */
const TEST_COMMAND =
  /(^|[\s;&|(])((npm|pnpm|yarn|bun)\s+(run\s+)?test\b|npm\s+t\b|npx\s+(mocha|jest|vitest|playwright\s+test)\b|(mocha|jest|vitest|pytest|tox|rspec|phpunit)\b|go\s+test\b|cargo\s+(test|nextest)\b|dotnet\s+test\b|mvn\s+(\S+\s+)*test\b|gradle\w*\s+test\b|make\s+(test|check)\b|python3?\s+-m\s+(pytest|unittest)\b)/i;
const PATH_KEYS = ['file_path', 'filePath', 'path', 'absolute_path', 'notebook_path', 'target_file', 'file'];

export interface DigestCall {
  name: string;
  status: string;
  exitCode: number | null;
  args: unknown;
}

export interface LinkedEntry {
  id: string;
  title: string;
  agentId: string | null;
  createdAt: string;
}

export interface DigestInput {
  provider: Provider;
  sessionId: string;
  part: number;
  fromEvent: number;
  toEvent: number;
  /** The session's folder (paths inside it are shown relative to it). */
  cwd: string | null;
  builder: SessionBuilder;
  /** Full texts of the human prompts in the range, in order. */
  prompts: string[];
  /** The tool calls in the range with their arguments, in order. */
  calls: DigestCall[];
  linked: LinkedEntry[];
  start: string | null;
  end: string | null;
}

export interface DigestText {
  title: string;
  content: string;
  files: string[];
  commands: { command: string; failed: boolean; exitCode: number | null; test: boolean }[];
}

function short(text: string, max: number): string {
  return truncateText(redactText(text).replace(/\s+/g, ' ').trim(), max);
}

/** Files a call wrote or edited, as the agent named them. */
export function filesOf(call: { name: string; arguments: unknown }): string[] {
  if (!EDIT_TOOLS.test(call.name)) return [];
  const a = call.arguments;
  const patchFiles = (text: string): string[] => [...text.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
  if (typeof a === 'string') return patchFiles(a);
  if (!a || typeof a !== 'object' || Array.isArray(a)) return [];
  const o = a as Record<string, unknown>;
  for (const key of PATH_KEYS) if (typeof o[key] === 'string' && o[key] !== '') return [o[key] as string];
  for (const key of ['input', 'patch', 'content'])
    if (typeof o[key] === 'string') {
      const found = patchFiles(o[key] as string);
      if (found.length > 0) return found;
    }
  if (Array.isArray(o.edits)) {
    return o.edits.flatMap((e) =>
      e && typeof e === 'object' && typeof (e as Record<string, unknown>).filePath === 'string' ? [(e as Record<string, unknown>).filePath as string] : [],
    );
  }
  return [];
}

/** The command a shell call ran, or undefined for other tools. */
export function commandOf(call: { name: string; arguments: unknown }): string | undefined {
  if (!SHELL_TOOLS.test(call.name)) return undefined;
  const a = call.arguments;
  if (typeof a === 'string') return a;
  if (!a || typeof a !== 'object' || Array.isArray(a)) return undefined;
  const o = a as Record<string, unknown>;
  for (const key of ['command', 'cmd']) {
    const v = o[key];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
      const parts = v as string[];
      // ["bash", "-lc", "npm test"]: the script is what was run.
      if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0]!) && /^-\w*c$/.test(parts[1]!)) return parts[2];
      return parts.join(' ');
    }
  }
  return undefined;
}

export function isTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command);
}

/** A call failed when its status says so or it exited non-zero. */
function callFailed(call: DigestCall): boolean {
  return call.status === 'error' || (call.exitCode !== null && call.exitCode !== 0);
}

function displayPath(file: string, cwd: string | null): string {
  if (cwd && path.isAbsolute(file)) {
    const rel = path.relative(cwd, file);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return file;
}

function turnsIn(builder: SessionBuilder, from: number, to: number): TurnInfo[] {
  return builder.turns.filter((t, i) => (i === 0 && from === 0 ? true : t.firstEvent >= from) && t.firstEvent < to);
}

function tokenLine(t: TokenCounts): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  const parts = [`input ${n(t.input)}`, `output ${n(t.output)}`];
  if (t.cache_read > 0) parts.push(`cache read ${n(t.cache_read)}`);
  if (t.cache_creation > 0) parts.push(`cache write ${n(t.cache_creation)}`);
  return `${n(t.total)} (${parts.join(', ')})`;
}

/** The marker line that records which events a digest covers; read back to find where the next starts. */
export function coverageLine(provider: Provider, sessionId: string, part: number, from: number, to: number): string {
  return `Session ${provider} \`${sessionId}\`, part ${part + 1}, events ${from}-${to - 1}: drill in with get_session_details, analyze_session or search_event_previews (traces tools).`;
}

/** The covered range a digest's content records, or undefined when it records none. */
export function parseCoverage(content: string): { part: number; from: number; to: number } | undefined {
  const m = /\bpart (\d+), events (\d+)-(\d+): drill in\b/.exec(content.slice(-600));
  if (!m) return undefined;
  return { part: Number(m[1]) - 1, from: Number(m[2]), to: Number(m[3]) + 1 };
}

const MAX_FILES = 40;
const MAX_COMMANDS = 30;
const CONTENT_MAX = 10_000;

export function buildDigest(input: DigestInput): DigestText {
  const { builder, fromEvent, toEvent } = input;
  const turns = turnsIn(builder, fromEvent, toEvent);
  const human = turns.filter((t) => t.human && t.userMessage);
  const firstAsk = input.prompts[0] ?? human[0]?.userMessage ?? '(no request recorded)';
  const label = PROVIDER_LABELS[input.provider];
  const titleBase = short(firstAsk, 90) || 'session';
  const title = truncateText(input.part === 0 ? titleBase : `${titleBase} (continued)`, 100);

  const files = new Map<string, number>();
  for (const call of input.calls)
    for (const f of filesOf({ name: call.name, arguments: call.args })) {
      const shown = short(displayPath(f, input.cwd), 200);
      files.set(shown, (files.get(shown) ?? 0) + 1);
    }
  const commands = input.calls.flatMap((call) => {
    const command = commandOf({ name: call.name, arguments: call.args });
    if (command === undefined) return [];
    return [{ command: short(command, 200), failed: callFailed(call), exitCode: call.exitCode, test: isTestCommand(command) }];
  });
  const failedCalls = input.calls.filter(callFailed).length;
  const tokens = zeroTokens();
  for (const t of turns) addTokens(tokens, t.tokens);

  const lines: string[] = [];
  lines.push(
    `Digest of a ${label} session${input.part > 0 ? ` (part ${input.part + 1}: the session was resumed)` : ''}, written by Agent Progress from its transcript${input.start ? `, ${input.start}` : ''}${input.end ? ` to ${input.end}` : ''}.`,
  );
  lines.push('');
  lines.push(`**Asked:** ${short(firstAsk, 1500)}`);
  const later = input.prompts.slice(1);
  if (later.length > 0) {
    lines.push('', `**Then asked (${later.length}):**`);
    for (const p of later.slice(0, 8)) lines.push(`- ${short(p, 300)}`);
    if (later.length > 8) lines.push(`- … and ${later.length - 8} more`);
  }
  lines.push('', `**Files written or edited (${files.size}):**${files.size === 0 ? ' none' : ''}`);
  for (const [f, n] of [...files].slice(0, MAX_FILES)) lines.push(`- ${f}${n > 1 ? ` (${n} edits)` : ''}`);
  if (files.size > MAX_FILES) lines.push(`- … and ${files.size - MAX_FILES} more`);
  const failedCommands = commands.filter((c) => c.failed);
  // The same command run again (a retry loop) is one line with its counts.
  const grouped = new Map<string, { runs: number; failed: number; exit: number | null }>();
  for (const c of commands) {
    const g = grouped.get(c.command) ?? { runs: 0, failed: 0, exit: null };
    g.runs += 1;
    if (c.failed) {
      g.failed += 1;
      if (c.exitCode !== null && c.exitCode !== 0) g.exit = c.exitCode;
    }
    grouped.set(c.command, g);
  }
  lines.push('', `**Commands run (${commands.length}, ${failedCommands.length} failed):**${commands.length === 0 ? ' none' : ''}`);
  for (const [command, g] of [...grouped].slice(0, MAX_COMMANDS)) {
    const status = g.failed === 0 ? 'ok' : `FAILED${g.exit !== null ? ` (exit ${g.exit})` : ''}`;
    lines.push(`- ${status}: \`${command.replace(/`/g, "'")}\`${g.runs > 1 ? ` (${g.runs} runs, ${g.failed} failed)` : ''}`);
  }
  if (grouped.size > MAX_COMMANDS) lines.push(`- … and ${grouped.size - MAX_COMMANDS} more`);
  const tests = commands.filter((c) => c.test);
  lines.push(
    '',
    `**Tests run (${tests.length}):** ${
      tests.length === 0
        ? 'none'
        : tests
            .slice(0, 10)
            .map((c) => `\`${c.command.replace(/`/g, "'")}\` ${c.failed ? 'failed' : 'passed'}`)
            .join('; ')
    }`,
  );
  lines.push('', `**Tool calls:** ${input.calls.length}, ${failedCalls} failed. **Tokens:** ${tokenLine(tokens)}.`);
  if (input.linked.length > 0) {
    lines.push('', `**Logged by the agent during this session (${input.linked.length}):**`);
    for (const e of input.linked.slice(0, 10)) lines.push(`- ${short(e.title, 100)} (entry \`${e.id}\`${e.agentId ? `, ${short(e.agentId, 60)}` : ''})`);
  }
  const tail = `\n\n${coverageLine(input.provider, input.sessionId, input.part, fromEvent, toEvent)}`;
  const body = lines.join('\n');
  const content = `${truncateText(body, CONTENT_MAX - Array.from(tail).length - 1)}${tail}`;
  return { title, content, files: [...files.keys()], commands };
}
