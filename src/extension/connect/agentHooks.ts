// What "Connect Agent Hooks" writes: Claude Code hooks (.claude/settings.json) and Gemini CLI hooks
// (.gemini/settings.json) that run the bundled CLI's `hook` command (the project's latest entries
// at session start, a digest when the agent stops or the session ends), and an opt-in section of
// AGENTS.md or .github/copilot-instructions.md telling agents when to log. Codex has no session
// hooks (only `notify`, a notification program with the event in argv): its sessions are
// digested when they go idle. Pure planning and formatting (no vscode): the command shows the diff,
// asks, then writes with applyPlans.

import * as path from 'node:path';
import { lineDiff, withoutPassword } from './agentConfigs';
import { parseJsonConfig, setJsonText, type JsonObject } from './jsonMerge';
import { ConfigFormatError } from './tomlMerge';

export type HookTargetId = 'claude' | 'gemini' | 'agents-md' | 'copilot-instructions';

export interface HookTarget {
  id: HookTargetId;
  label: string;
  file: string;
  detail: string;
  /** Picked by default in the quick pick (the instruction files are opt-in). */
  picked: boolean;
}

export const HOOK_TARGETS: readonly HookTarget[] = [
  {
    id: 'claude',
    label: 'Claude Code hooks',
    file: path.join('.claude', 'settings.json'),
    detail: 'SessionStart prints the latest entries; Stop and SessionEnd digest the session',
    picked: true,
  },
  {
    id: 'gemini',
    label: 'Gemini CLI hooks',
    file: path.join('.gemini', 'settings.json'),
    detail: 'SessionStart adds the latest entries as context; AfterAgent and SessionEnd digest the session',
    picked: true,
  },
  { id: 'agents-md', label: 'AGENTS.md section', file: 'AGENTS.md', detail: 'tells Codex, Cursor and other agents when to call log_progress (opt-in)', picked: false },
  {
    id: 'copilot-instructions',
    label: 'Copilot instructions section',
    file: path.join('.github', 'copilot-instructions.md'),
    detail: 'tells Copilot when to call log_progress (opt-in)',
    picked: false,
  },
];

export interface HookInput {
  /** How to run Node (a command, plus ELECTRON_RUN_AS_NODE when it is the editor's runtime). */
  node: { command: string; env: Record<string, string> };
  cliScript: string;
  ledgerPath: string;
  databaseUrl?: string;
  projectId: string;
  /** The person's exclusions, passed on so that the hook narrows capture as the extension does. */
  excludeProviders?: readonly string[];
  excludeFolders?: readonly string[];
}

export interface HookPlan {
  target: HookTarget;
  file: string;
  status: 'create' | 'update' | 'unchanged' | 'error';
  before: string | undefined;
  after: string | undefined;
  error?: string;
}

/** A word for POSIX sh (Claude Code and Gemini CLI run hook commands through a shell). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line a hook runs: environment, Node, the CLI, the ledger, `hook`. */
export function hookCommand(input: HookInput, format?: 'gemini'): string {
  const env = { ...input.node.env, AGENT_PROGRESS_PROJECT: input.projectId, ...(input.databaseUrl ? { AGENT_PROGRESS_DATABASE_URL: withoutPassword(input.databaseUrl) } : {}) };
  const words = [
    ...Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`),
    shellQuote(input.node.command),
    shellQuote(input.cliScript),
    ...(input.databaseUrl ? [] : ['--db', shellQuote(input.ledgerPath)]),
    'hook',
    ...(format ? ['--format', format] : []),
    ...(input.excludeProviders ?? []).flatMap((p) => ['--exclude-provider', shellQuote(p)]),
    ...(input.excludeFolders ?? []).flatMap((f) => ['--exclude-folder', shellQuote(f)]),
  ];
  return words.join(' ');
}

/** A hook command this command wrote (any copy of the extension): replaced rather than added twice. */
export function isOwnHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /[\\/]dist[\\/]cli\.js'?\s.*\bhook\b/.test(command);
}

function asObject(value: unknown, what: string, file: string): JsonObject {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigFormatError(`${what} in ${file} is not an object; fix it and run the command again`);
  return value as JsonObject;
}

/**
 * `hooks.<event>` with our command in a group of its own (with `matcher` when given): groups and
 * hooks of others kept in order, our earlier commands removed, nothing else touched.
 */
export function upsertHook(config: JsonObject, event: string, matcher: string | undefined, hook: JsonObject, file: string): JsonObject {
  const hooks = asObject(config.hooks, '"hooks"', file);
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups)) throw new ConfigFormatError(`"hooks.${event}" in ${file} is not a list; fix it and run the command again`);
  const kept: unknown[] = [];
  for (const group of groups) {
    if (!group || typeof group !== 'object' || Array.isArray(group) || !Array.isArray((group as JsonObject).hooks)) {
      kept.push(group);
      continue;
    }
    const inner = ((group as JsonObject).hooks as unknown[]).filter((h) => !(h && typeof h === 'object' && isOwnHookCommand((h as JsonObject).command)));
    if (inner.length > 0) kept.push({ ...(group as JsonObject), hooks: inner });
  }
  kept.push({ ...(matcher ? { matcher } : {}), hooks: [hook] });
  return { ...config, hooks: { ...hooks, [event]: kept } };
}

const CLAUDE_EVENTS: readonly (readonly [string, string | undefined])[] = [
  ['SessionStart', 'startup|resume|clear|compact'],
  ['Stop', undefined],
  ['SessionEnd', undefined],
];
const GEMINI_EVENTS: readonly string[] = ['SessionStart', 'AfterAgent', 'SessionEnd'];

export const SECTION_BEGIN = '<!-- agent-progress:begin (written by Agent Progress: Connect Agent Hooks; edit freely) -->';
export const SECTION_END = '<!-- agent-progress:end -->';

export function instructionsSection(projectId: string): string {
  return [
    SECTION_BEGIN,
    '## Recording progress (Agent Progress)',
    '',
    `This repository keeps a shared progress log (MCP server \`agent-progress\`, project \`${projectId}\`).`,
    '',
    '- At the start of a task, call `search_logs` (or `get_context` on a recent entry) to see what other agents did.',
    '- After each meaningful step (a feature works, a bug is found or fixed, a decision is made, tests pass or fail), call',
    '  `log_progress` with a short title and what you did: files changed, commands run, results, what is left.',
    '- Before you stop, log what is done and what is not.',
    'Sessions that log nothing are still recorded as digests tagged `auto`, but only you know why you did what you did.',
    SECTION_END,
  ].join('\n');
}

/** The Markdown file with our section added, or replaced between its markers. */
export function upsertSection(existing: string | undefined, section: string): string {
  const text = existing ?? '';
  const begin = text.indexOf('<!-- agent-progress:begin');
  const end = begin >= 0 ? text.indexOf(SECTION_END, begin) : -1;
  if (begin >= 0 && end >= 0) return text.slice(0, begin) + section + text.slice(end + SECTION_END.length);
  if (text.trim() === '') return `${section}\n`;
  return `${text.replace(/\s*$/, '')}\n\n${section}\n`;
}

/** What writing the hooks (or the section) into one target's file would change. */
export function planHooks(target: HookTarget, workspace: string, existing: string | undefined, input: HookInput): HookPlan {
  const file = path.join(workspace, target.file);
  const plan: HookPlan = { target, file, status: 'unchanged', before: existing, after: existing };
  try {
    let after: string;
    if (target.id === 'agents-md' || target.id === 'copilot-instructions') {
      after = upsertSection(existing, instructionsSection(input.projectId));
    } else {
      const parsed = parseJsonConfig(existing ?? '', target.file);
      let config = parsed.config;
      if (target.id === 'claude') {
        const command = hookCommand(input);
        for (const [event, matcher] of CLAUDE_EVENTS) config = upsertHook(config, event, matcher, { type: 'command', command, timeout: 60 }, target.file);
      } else {
        const command = hookCommand(input, 'gemini');
        for (const event of GEMINI_EVENTS) config = upsertHook(config, event, undefined, { name: 'agent-progress', type: 'command', command, timeout: 60_000 }, target.file);
      }
      // Edited in place (jsonc-parser): the file's comments, other keys and layout stay as written.
      after = JSON.stringify(parsed.config) === JSON.stringify(config) && existing !== undefined ? existing : setJsonText(existing ?? '', ['hooks'], config.hooks);
    }
    plan.after = after;
    plan.status = existing === undefined ? 'create' : after !== existing ? 'update' : 'unchanged';
  } catch (err) {
    if (!(err instanceof ConfigFormatError)) throw err;
    plan.status = 'error';
    plan.error = err.message;
  }
  return plan;
}

/** The Markdown shown before anything is written: each file's diff. */
export function describeHookPlans(plans: readonly HookPlan[]): string {
  const lines = ['# Agent Progress: agent hooks', '', 'Nothing is written until you choose **Write**. Hooks run the bundled CLI on the ledger the sidebar shows.', ''];
  for (const plan of plans) {
    const what = plan.status === 'create' ? 'to be created' : plan.status === 'update' ? 'to be updated' : plan.status === 'error' ? 'not changed (error)' : 'already up to date';
    lines.push(`## ${plan.target.label}: \`${plan.target.file}\` ${what}`, '');
    if (plan.error) lines.push(plan.error, '');
    if (plan.status === 'create' || plan.status === 'update') lines.push('```diff', ...lineDiff(plan.before, plan.after), '```', '');
  }
  lines.push(
    'Codex has no session hooks (its `notify` program only announces finished turns): Codex sessions are digested when they go idle.',
    'Gemini CLI runs project hooks only in versions with hooks enabled; see its documentation.',
    'Hook files name paths on this machine: keep them out of version control, and run the command again after the extension is updated.',
  );
  return lines.join('\n') + '\n';
}
