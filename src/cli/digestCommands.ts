// CLI commands of session digests: `digest` (write the digests of idle sessions of a workspace)
// and `hook` (the command an agent's hooks run: context at session start, a digest when it stops).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DigestForce, DigestRun } from '../core/digests/digestService';
import type * as DigestServiceModule from '../core/digests/digestService';
import { LedgerError } from '../core/errors';
import { extractiveSummary } from '../core/progress/summariser';
import { PROVIDERS } from '../core/traces/types';
import { resolveWorkspace, workflowProjectId } from '../core/workflow/workspace';
import { truncateText } from '../core/text';
import { flagSet, flagValue, flagValues, parseArgv, UsageError, type Parsed } from './args';
import type { Command, CommandContext } from './command';

function printRun(ctx: CommandContext, run: DigestRun, json: boolean): void {
  if (json) {
    ctx.out.json(run);
    return;
  }
  if (!run.policy.enabled) {
    ctx.out.line(`Session digests are off: ${run.policy.reason}`);
    return;
  }
  for (const w of run.written) ctx.out.line(`Digested ${w.provider} session ${w.sessionId} (part ${w.part + 1}) as ${w.entryId} in ${w.projectId}: ${w.title}`);
  if (run.alreadyWritten > 0) ctx.out.line(`${run.alreadyWritten} digest(s) were written by another process meanwhile.`);
  for (const p of run.pending) ctx.out.line(`Not yet: ${p.provider} session ${p.sessionId}${p.dueInMinutes > 0 ? ` (idle in ${p.dueInMinutes} min)` : ''}`);
  if (run.written.length === 0 && run.pending.length === 0 && run.alreadyWritten === 0) ctx.out.line('Nothing to digest: every session of this workspace is in the ledger.');
}

/** The flags both commands take to narrow capture (the editor passes its settings through them). */
const EXCLUSION_FLAGS = { 'exclude-provider': { value: true, repeat: true }, 'exclude-folder': { value: true, repeat: true } } as const;

/** The --exclude-provider and --exclude-folder values, each provider checked. */
function exclusions(p: Parsed): { excludeProviders: string[]; excludeFolders: string[] } {
  const excludeProviders = flagValues(p, 'exclude-provider');
  for (const provider of excludeProviders)
    if (!(PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`--exclude-provider must be one of ${PROVIDERS.join(', ')}`);
  return { excludeProviders, excludeFolders: flagValues(p, 'exclude-folder') };
}

const digestCommand: Command = {
  name: 'digest',
  group: 'Session digests',
  summary: "write progress entries for this workspace's idle agent sessions",
  usage: `Usage: agent-progress digest [options]

Writes one progress entry per agent session (Claude Code, Codex, Gemini CLI, Copilot Chat) whose
folder is inside the workspace and that has been idle long enough, and a follow-up when a resumed
session grew. Each digest is written once, whichever process gets there first.
A committed .agent-progress/capture.json can turn this off ({"enabled": false}) or exclude
providers and folders ({"excludeProviders": ["codex"], "excludeFolders": ["secret"]}).

Options:
  --workspace DIR       the workspace (default: $AGENT_PROGRESS_WORKSPACE, else the current folder)
  --idle-minutes N      minutes without activity before a session is digested (default 10)
  --session ID          only this session (id or unique prefix)
  --now                 digest even sessions that are not idle yet (follow-ups included)
  --exclude-provider P  never digest this provider's sessions; repeat for several
  --exclude-folder DIR  never digest sessions in this folder of the workspace; repeat for several
  --dry-run             list what would be digested, write nothing
  --json                print the result as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, {
      workspace: { value: true },
      'idle-minutes': { value: true },
      session: { value: true },
      now: {},
      ...EXCLUSION_FLAGS,
      'dry-run': {},
      json: {},
    });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const idleRaw = flagValue(p, 'idle-minutes');
    const idleMinutes = idleRaw === undefined ? undefined : Number(idleRaw);
    if (idleMinutes !== undefined && (!/^\d+(\.\d+)?$/.test(idleRaw!) || !(idleMinutes >= 0 && idleMinutes <= 10_080)))
      throw new UsageError('--idle-minutes must be a number of minutes from 0 to 10080');
    const excluded = exclusions(p);
    const workspaceFlag = flagValue(p, 'workspace');
    const workspace = workspaceFlag !== undefined ? path.resolve(ctx.cwd, workspaceFlag) : resolveWorkspace(process.env, ctx.cwd);
    if (!isDirectory(workspace)) throw new UsageError(`--workspace ${workspace} is not a folder`);
    const digests = await ctx.services.digests({
      workspace,
      settings: { ...(idleMinutes !== undefined ? { idleMinutes } : {}), ...excluded },
    });
    const session = flagValue(p, 'session');
    if (session !== undefined && session.trim() === '') throw new UsageError('--session needs a session id or a unique prefix of one (agent-progress digest --dry-run lists them)');
    const run = flagSet(p, 'dry-run')
      ? await digests.pending()
      : await digests.run({ ...(session !== undefined ? { sessionId: session } : {}), ...(flagSet(p, 'now') ? { force: 'all' as DigestForce } : {}) });
    printRun(ctx, run, flagSet(p, 'json'));
  },
};

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** What an agent's hook sends on stdin (Claude Code's fields; Gemini CLI sends the same names). */
interface HookInput {
  sessionId: string | undefined;
  transcriptPath: string | undefined;
  cwd: string;
  event: string;
  source: string | undefined;
}

function parseHookInput(text: string, fallbackCwd: string): HookInput {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new UsageError('expected the hook JSON on standard input (fields session_id, transcript_path, cwd, hook_event_name), as Claude Code sends it');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError('the hook input must be a JSON object with hook_event_name');
  const o = doc as Record<string, unknown>;
  const str = (key: string, max = 4096): string | undefined =>
    typeof o[key] === 'string' && (o[key] as string).length <= max && !(o[key] as string).includes('\0') ? (o[key] as string) : undefined;
  const event = str('hook_event_name', 100);
  if (!event) throw new UsageError('the hook input has no hook_event_name (SessionStart, Stop or SessionEnd)');
  const cwd = str('cwd');
  return { sessionId: str('session_id', 200), transcriptPath: str('transcript_path'), cwd: cwd && path.isAbsolute(cwd) ? cwd : fallbackCwd, event, source: str('source', 100) };
}

const CONTEXT_ENTRIES = 8;
const CONTEXT_MAX = 6000;

async function sessionStartContext(ctx: CommandContext, workspace: string): Promise<string> {
  const projectId = workflowProjectId(process.env, workspace);
  const progress = await ctx.services.progress();
  const { entries, total } = await progress.listEntries(projectId, { limit: CONTEXT_ENTRIES });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (ARCHITECTURE.md, "Bundles and the start path")
  const { DIGEST_TAG } = require('../core/digests/digestService') as typeof DigestServiceModule;
  if (entries.length === 0)
    return `Agent Progress: the progress log of project "${projectId}" has no entries yet. Record what you do with log_progress (projectId "${projectId}").`;
  const lines = [
    `Agent Progress: the latest ${entries.length} of ${total} entries in the progress log of project "${projectId}" (newest first). Read one with get_context; search with search_logs; record your own work with log_progress.`,
    '',
  ];
  for (const e of entries) {
    const full = await progress.showEntry(e.id, projectId);
    const summary = full.summary ?? extractiveSummary(full.content);
    const who = e.agentId ? ` by ${e.agentId}` : '';
    const auto = e.tags.some((t) => t.toLowerCase() === DIGEST_TAG) ? ' (session digest)' : '';
    lines.push(`- ${e.createdAt}${who}${auto}: ${e.title} [${e.id}]`, `  ${truncateText(summary.replace(/\s+/g, ' '), 400)}`);
  }
  return truncateText(lines.join('\n'), CONTEXT_MAX);
}

/** The folder that holds Claude Code's projects/ for a transcript at projects/<slug>/<id>.jsonl. */
function claudeHomeOf(transcript: string | undefined): string | undefined {
  if (!transcript || !transcript.endsWith('.jsonl') || !path.isAbsolute(transcript)) return undefined;
  const home = path.dirname(path.dirname(path.dirname(transcript)));
  return path.basename(path.dirname(path.dirname(transcript))) === 'projects' && isDirectory(path.join(home, 'projects')) ? home : undefined;
}

const hookCommand: Command = {
  name: 'hook',
  group: 'Session digests',
  summary: 'the command agent hooks run (context at SessionStart, a digest at Stop/SessionEnd)',
  exitCodeForUsage: 1,
  usage: `Usage: agent-progress hook [--format claude|gemini] [--exclude-provider P] [--exclude-folder DIR] < hook.json

Run by an agent's hooks (Claude Code's SessionStart, Stop and SessionEnd; Gemini CLI's SessionStart
and SessionEnd), with the hook's JSON on standard input (session_id, transcript_path, cwd,
hook_event_name, source).
  SessionStart  prints the latest entries of the project's progress log (the agent reads them)
  Stop          digests the session at once if it has no digest yet
  SessionEnd    digests the session, follow-up included
  AfterAgent    (Gemini CLI) as Stop
Other events are ignored. --format gemini prints Gemini CLI's JSON (the context as
hookSpecificOutput.additionalContext). Never exits 2 (which the agents read as "block").`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { format: { value: true }, ...EXCLUSION_FLAGS });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const format = flagValue(p, 'format') ?? 'claude';
    if (format !== 'claude' && format !== 'gemini') throw new UsageError('--format must be claude or gemini');
    const excluded = exclusions(p);
    const input = parseHookInput(await ctx.readStdin(), ctx.cwd);
    const workspace = process.env.AGENT_PROGRESS_WORKSPACE?.trim() ? resolveWorkspace(process.env, input.cwd) : input.cwd;
    if (!isDirectory(workspace)) throw new LedgerError('not_found', `the hook's folder ${workspace} does not exist`);
    if (input.event === 'SessionStart') {
      const context = await sessionStartContext(ctx, workspace);
      // Claude Code adds plain stdout to the context; Gemini CLI reads JSON only.
      ctx.out.line(format === 'gemini' ? JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } }) : context);
      return;
    }
    if (format === 'gemini') ctx.out.line('{}');
    const force: DigestForce | undefined = input.event === 'Stop' || input.event === 'AfterAgent' ? 'first' : input.event === 'SessionEnd' ? 'all' : undefined;
    if (!force || !input.sessionId) return;
    const traces = await ctx.services.traces();
    const extra = claudeHomeOf(input.transcriptPath);
    const homes = traces.index.homesInUse;
    if (extra && !homes.claude_code.includes(extra)) traces.index.setHomes({ ...homes, claude_code: [...homes.claude_code, extra] });
    const digests = await ctx.services.digests({ workspace, settings: excluded });
    const run = await digests.run({ sessionId: input.sessionId, force });
    // Stop's output is not shown to the model; a line on stderr says what happened for --verbose users.
    for (const w of run.written) ctx.out.error(`agent-progress: digest ${w.entryId} written for session ${w.sessionId}`);
  },
};

export const DIGEST_COMMANDS: readonly Command[] = [digestCommand, hookCommand];
