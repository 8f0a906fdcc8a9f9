// Session digests: for each agent session of this workspace that has gone idle (or ended), one
// progress entry saying what was done, and a follow-up entry when a resumed session grows. The
// entry ids are derived from (provider, session id, part), so the ledger's own id uniqueness makes
// a digest exactly-once across processes and restarts: a second writer gets a conflict and skips.
// Only transcripts are read; only the ledger is written; summaries go through the endpoints the
// person configured (never the editor's language model), and the content is redacted first.

import { createHash } from 'node:crypto';
import { isLedgerError } from '../errors';
import type { Logger } from '../log';
import type { ProgressService } from '../progress/progressService';
import type { Summariser } from '../progress/summariser';
import type { LogEntry } from '../progress/types';
import { window } from '../traces/ledgerLink';
import type { IndexedSession } from '../traces/traceIndex';
import type { TraceService } from '../traces/traceService';
import type { ToolCallPayload } from '../traces/types';
import { captureRefusal, resolveCapturePolicy, type CapturePolicy, type CaptureSettings } from './capture';
import { buildDigest, parseCoverage, type DigestCall, type LinkedEntry } from './digestText';

export const DEFAULT_IDLE_MINUTES = 10;
export const DIGEST_TAG = 'auto';

/** Providers whose transcripts are replayed (messages rewritten in place, rewinds): event numbers shift as they grow. */
const REPLAYED = new Set(['gemini']);

export interface DigestSettings extends CaptureSettings {
  /** Minutes without a new record after which a session is digested. */
  idleMinutes: number;
}

export interface DigestServiceDeps {
  traces: () => Promise<TraceService>;
  progress: () => Promise<ProgressService>;
  /** Summaries by endpoints the person set only (no editor model): content stays on the machine otherwise. */
  summariser: Summariser;
  logger: Logger;
  workspace: string;
  projectId: () => string;
  settings: () => DigestSettings;
  now?: () => number;
}

/** How hard to push a session: `first` digests one that has none even if busy (a Stop hook); `all` also writes its follow-up (the session ended). */
export type DigestForce = 'none' | 'first' | 'all';

export interface DigestWritten {
  entryId: string;
  sessionId: string;
  provider: string;
  part: number;
  title: string;
  projectId: string;
}

export interface PendingSession {
  sessionId: string;
  provider: string;
  /** Parts already in the ledger. */
  parts: number;
  /** Minutes until it is idle long enough (0: due now). */
  dueInMinutes: number;
}

export interface DigestRun {
  written: DigestWritten[];
  /** Written by another process meanwhile (the id was taken): nothing duplicated. */
  alreadyWritten: number;
  pending: PendingSession[];
  policy: { enabled: boolean; reason: string | null; warnings: string[] };
}

/** The entry id of a session's digest part: 12 characters of the entry id alphabet, the same in every process. */
export function digestEntryId(provider: string, sessionId: string, part: number): string {
  return createHash('sha256').update(`agent-progress digest\0${provider}\0${sessionId}\0${part}`).digest('base64url').slice(0, 12);
}

/** The agentId of a digest: the provider and the session's short id. */
export function digestAgentId(provider: string, sessionId: string): string {
  return `${provider}:${sessionId.replace(/^(rollout-|session-)/, '').slice(0, 8)}`;
}

interface Plan {
  session: IndexedSession;
  part: number;
  from: number;
  due: boolean;
  dueInMinutes: number;
}

export class DigestService {
  private readonly now: () => number;
  /** One run at a time per process; concurrent callers share it. */
  private running: Promise<DigestRun> | undefined;

  constructor(private readonly deps: DigestServiceDeps) {
    this.now = deps.now ?? (() => Date.now());
  }

  get workspace(): string {
    return this.deps.workspace;
  }

  policy(): CapturePolicy {
    return resolveCapturePolicy(this.deps.workspace, this.deps.settings());
  }

  /** Sessions of the workspace with work not yet digested, without writing anything. */
  async pending(): Promise<DigestRun> {
    return this.plan({ force: 'none', write: false });
  }

  /** Digests every due session (or only `sessionId`), returning what was written. */
  run(options: { sessionId?: string; force?: DigestForce; signal?: AbortSignal } = {}): Promise<DigestRun> {
    if (options.sessionId !== undefined || options.force !== undefined) return this.plan({ ...options, force: options.force ?? 'none', write: true });
    this.running ??= this.plan({ force: 'none', write: true, ...(options.signal ? { signal: options.signal } : {}) }).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async plan(options: { sessionId?: string; force: DigestForce; write: boolean; signal?: AbortSignal }): Promise<DigestRun> {
    const policy = this.policy();
    const out: DigestRun = { written: [], alreadyWritten: 0, pending: [], policy: { enabled: policy.enabled, reason: policy.reason, warnings: policy.warnings } };
    for (const w of policy.warnings) this.deps.logger.once(`capture:${w}`, 'warn', w);
    if (!policy.enabled) return out;
    const traces = await this.deps.traces();
    await traces.refresh(true);
    let sessions = traces.index.sessions.filter((s) => s.parentId === null);
    if (options.sessionId !== undefined) {
      const wanted = options.sessionId;
      sessions = sessions.filter((s) => s.id === wanted || s.id.startsWith(wanted));
    }
    const progress = await this.deps.progress();
    const idleMs = Math.max(0, this.deps.settings().idleMinutes) * 60_000;
    const now = this.now();
    for (const s of sessions) {
      if (options.signal?.aborted) break;
      if (captureRefusal(policy, this.deps.workspace, s.provider, s.projectRoot) !== null) continue;
      const plan = await this.planSession(progress, s, idleMs, now, options.force);
      if (!plan) continue;
      if (!plan.due || !options.write) {
        out.pending.push({ sessionId: s.id, provider: s.provider, parts: plan.part, dueInMinutes: plan.dueInMinutes });
        continue;
      }
      const written = await this.write(traces, progress, plan);
      if (written) out.written.push(written);
      else out.alreadyWritten += 1;
    }
    return out;
  }

  /** What is next for a session: the part to write and from which event, or undefined when nothing is. */
  private async planSession(progress: ProgressService, s: IndexedSession, idleMs: number, now: number, force: DigestForce): Promise<Plan | undefined> {
    const b = s.builder;
    if (b.humanTurns === 0 || b.eventCount === 0) return undefined;
    let part = 0;
    let from = 0;
    let until: string | null = null;
    for (; part < 1000; part++) {
      const id = digestEntryId(s.provider, s.id, part);
      // The mark outlives the entry (archived, deleted by retention): the part stays written.
      const mark = await progress.digestMark(id);
      if (mark) {
        from = Math.max(from, mark.coveredTo);
        if (mark.coveredUntil !== null && (until === null || mark.coveredUntil > until)) until = mark.coveredUntil;
        continue;
      }
      const entry = await findEntry(progress, id);
      if (!entry) break;
      const covered = parseCoverage(entry.content);
      // An entry under our id that does not say what it covers: treat the session as covered so far.
      from = covered ? Math.max(from, covered.to) : b.eventCount;
    }
    if (part > 0 && REPLAYED.has(s.provider) && until !== null) {
      // A replayed transcript (Gemini CLI rewrites messages in place and rewinds) renumbers its
      // events as it grows: the follow-up starts at the first prompt after what was covered, by time.
      const after = until;
      const next = b.turns.find((t) => t.human && t.timestamp !== null && t.timestamp > after);
      if (!next) return undefined;
      from = next.firstEvent;
    }
    if (part > 0 && !b.turns.some((t) => t.human && t.firstEvent >= from)) return undefined;
    if (from >= b.eventCount) return undefined;
    const end = s.end ? Date.parse(s.end) : NaN;
    const idleFor = Number.isNaN(end) ? Infinity : now - end;
    const forced = force === 'all' || (force === 'first' && part === 0);
    const due = forced || idleFor >= idleMs;
    return { session: s, part, from, due, dueInMinutes: due ? 0 : Math.ceil((idleMs - idleFor) / 60_000) };
  }

  private async write(traces: TraceService, progress: ProgressService, plan: Plan): Promise<DigestWritten | undefined> {
    const s = plan.session;
    const to = s.builder.eventCount;
    const prompts: string[] = [];
    const args = new Map<number, ToolCallPayload>();
    let firstAt: string | null = null;
    let lastAt: string | null = null;
    await traces.index.scanEvents(s, (ev) => {
      if (ev.index >= to) return false;
      if (ev.index < plan.from) return undefined;
      if (ev.timestamp) {
        if (firstAt === null || ev.timestamp < firstAt) firstAt = ev.timestamp;
        if (lastAt === null || ev.timestamp > lastAt) lastAt = ev.timestamp;
      }
      if (ev.type === 'User' && s.builder.turns[ev.turn]?.human && s.builder.turns[ev.turn]?.firstEvent === ev.index && !ev.payload.synthetic) prompts.push(ev.payload.text);
      if (ev.type === 'ToolCall') args.set(ev.index, ev.payload);
      return undefined;
    });
    const calls: DigestCall[] = s.builder.toolCalls
      .filter((c) => c.eventIndex >= plan.from && c.eventIndex < to)
      .map((c) => ({ name: c.name, status: c.status, exitCode: c.exitCode, args: args.get(c.eventIndex)?.arguments }));
    const projectId = this.deps.projectId();
    const id = digestEntryId(s.provider, s.id, plan.part);
    const linked = await this.linkedEntries(progress, projectId, s, firstAt ?? s.start, lastAt ?? s.end);
    const digest = buildDigest({
      provider: s.provider,
      sessionId: s.id,
      part: plan.part,
      fromEvent: plan.from,
      toEvent: to,
      cwd: s.projectRoot,
      builder: s.builder,
      prompts,
      calls,
      linked,
      start: firstAt ?? s.start,
      end: lastAt ?? s.end,
    });
    const created = await progress.logDigestOnce(
      { projectId, title: digest.title, content: digest.content, tags: [DIGEST_TAG, s.provider], agentId: digestAgentId(s.provider, s.id) },
      id,
      { coveredTo: to, coveredUntil: lastAt ?? s.end },
    );
    if (!created) return undefined;
    this.deps.logger.info(`Digest ${id} written for ${s.provider} session ${s.id} (part ${plan.part + 1})`);
    if (this.deps.summariser.hasConfiguredProvider) {
      try {
        const made = await this.deps.summariser.summarise({ title: digest.title, content: digest.content });
        if (made.source !== 'fallback') await progress.cacheSummary(projectId, id, made.summary, made.source);
      } catch (err) {
        this.deps.logger.warn(`Summary of digest ${id} not cached: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return { entryId: id, sessionId: s.id, provider: s.provider, part: plan.part, title: digest.title, projectId };
  }

  /** Entries the agent logged itself while the session ran: same project, its time window, not a digest, not someone else's. */
  private async linkedEntries(progress: ProgressService, projectId: string, s: IndexedSession, start: string | null, end: string | null): Promise<LinkedEntry[]> {
    // The same window the traces tools link a session to the ledger with.
    const w = window(start, end);
    if (!w || w.from.startsWith('+') || w.to.startsWith('+')) return [];
    const { from, to } = w;
    const family = { claude_code: /claude/i, codex: /codex|openai|gpt/i, gemini: /gemini/i, vscode_copilot: /copilot|vscode/i }[s.provider];
    try {
      const found = await progress.searchLogs({ projectId, startDate: from, endDate: to, limit: 100 });
      return found.listings
        .filter((e) => !e.tags.some((t) => t.toLowerCase() === DIGEST_TAG) && (e.agentId === null || family.test(e.agentId)))
        .map((e) => ({ id: e.id, title: e.title, agentId: e.agentId, createdAt: e.createdAt }))
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
    } catch (err) {
      if (isLedgerError(err) && err.code === 'not_found') return [];
      throw err;
    }
  }
}

async function findEntry(progress: ProgressService, id: string): Promise<LogEntry | undefined> {
  try {
    return await progress.showEntry(id);
  } catch (err) {
    if (isLedgerError(err) && err.code === 'not_found') return undefined;
    throw err;
  }
}
