// OpenAI Codex CLI rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl
// and archived_sessions/. Append-only JSONL of {timestamp, type, payload} envelopes (older files:
// bare items). The file name is local time: start and id come from session_meta, never the name.

import * as path from 'node:path';
import { isoTime, isRecord, parseJson, str, num } from '../lines';
import { emptyMeta, type ParsedEvent, type SessionMeta, type ToolStatus } from '../types';
import { isDir, isFile, listDir } from './dirs';
import { observe, pushModel, type ProviderReader, type TranscriptFile, type TranscriptParser } from './parser';

const CONTEXT_WRAPPER = /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions|<INSTRUCTIONS>|<user_shell_command>|<turn_aborted>)/;
const RESPONSE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
]);
const EXIT_CODE = /Exit code:\s*(-?\d+)/i;

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (isRecord(c) ? (str(c.text) ?? (c.type === 'input_image' ? '[image]' : '')) : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** The text of a tool output and the exit code it reports, if any. */
export function codexOutput(raw: unknown): { text: string; exitCode: number | undefined; value: unknown } {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else if (Array.isArray(raw)) text = contentText(raw);
  else if (isRecord(raw) && typeof raw.content === 'string') text = raw.content;
  else text = raw === undefined || raw === null ? '' : JSON.stringify(raw);
  let exitCode: number | undefined;
  let value: unknown = text;
  if (text.startsWith('{')) {
    const parsed = parseJson(text);
    if (isRecord(parsed) && 'output' in parsed) {
      value = parsed;
      exitCode = isRecord(parsed.metadata) ? num(parsed.metadata.exit_code) : undefined;
      if (typeof parsed.output === 'string') text = parsed.output;
    }
  }
  if (exitCode === undefined) {
    const m = EXIT_CODE.exec(text.slice(0, 500));
    if (m) exitCode = Number(m[1]);
  }
  return { text, exitCode, value };
}

class CodexParser implements TranscriptParser {
  readonly meta: SessionMeta;
  malformed = 0;
  observedFirst: string | null = null;
  observedLast: string | null = null;
  private metaSeen = false;
  /** After a second session_meta (a spawned thread replaying its parent): the replay's timestamp. */
  private replayTimestamp: string | null = null;
  private readonly callNames = new Map<string, string>();
  private readonly resolvedCalls = new Set<string>();
  private readonly failedEarly = new Set<string>();
  private step = 0;
  private pendingUserText: string | null = null;

  constructor(file: TranscriptFile) {
    this.meta = emptyMeta('codex', file.hints.idFromName ?? path.basename(file.path, '.jsonl'));
  }

  line(text: string): ParsedEvent[] {
    const rec = parseJson(text);
    if (!isRecord(rec)) {
      this.malformed++;
      return [];
    }
    let type = str(rec.type);
    let payload: Record<string, unknown> = isRecord(rec.payload) ? rec.payload : {};
    const rawTs = rec.timestamp;
    if (!isRecord(rec.payload)) {
      // Before the envelope format: a bare meta line, then bare response items.
      if (rec.record_type === 'state') return [];
      if (!this.metaSeen && typeof rec.id === 'string' && type === undefined) {
        type = 'session_meta';
        payload = rec;
      } else if (type && RESPONSE_ITEM_TYPES.has(type)) {
        payload = rec;
        type = 'response_item';
      }
    }
    if (this.replayTimestamp !== null && rawTs === this.replayTimestamp && type !== 'session_meta') return [];
    const ts = isoTime(rawTs) ?? null;
    observe(this, ts);
    switch (type) {
      case 'session_meta':
        this.sessionMeta(payload, rawTs);
        return [];
      case 'turn_context':
        this.step++;
        pushModel(this.meta, str(payload.model));
        if (this.meta.cwd === null && typeof payload.cwd === 'string') this.meta.cwd = payload.cwd;
        return [];
      case 'response_item':
        return this.responseItem(payload, ts);
      case 'event_msg':
        return this.eventMsg(payload, ts);
      case 'compacted':
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'compaction', text: str(payload.message) ?? 'Context compacted' } }];
      default:
        return [];
    }
  }

  finish(): ParsedEvent[] {
    return [];
  }

  private get stepKey(): string {
    return `s${this.step}`;
  }

  private sessionMeta(p: Record<string, unknown>, rawTs: unknown): void {
    if (this.metaSeen) {
      if (typeof p.id === 'string' && p.id !== this.meta.id && typeof rawTs === 'string') this.replayTimestamp = rawTs;
      return;
    }
    this.metaSeen = true;
    if (typeof p.id === 'string') this.meta.id = p.id;
    this.meta.declaredStart = isoTime(p.timestamp) ?? null;
    if (typeof p.cwd === 'string') this.meta.cwd = p.cwd;
    this.meta.version = str(p.cli_version) ?? null;
    if (isRecord(p.git) && typeof p.git.branch === 'string') this.meta.gitBranch = p.git.branch;
    const source = p.source;
    if (isRecord(source) && source.subagent !== undefined) {
      const sub = source.subagent;
      if (typeof sub === 'string') {
        this.meta.kind = sub;
      } else if (isRecord(sub) && isRecord(sub.thread_spawn)) {
        this.meta.kind = 'subagent';
        this.meta.parentId = str(sub.thread_spawn.parent_thread_id) ?? null;
      } else {
        this.meta.kind = 'subagent';
      }
    }
  }

  private responseItem(p: Record<string, unknown>, ts: string | null): ParsedEvent[] {
    const step = this.stepKey;
    switch (p.type) {
      case 'message': {
        const text = contentText(p.content);
        const role = str(p.role);
        if (role === 'assistant') return [{ type: 'Message', timestamp: ts, payload: { text, ...(this.meta.models.at(-1) ? { model: this.meta.models.at(-1)! } : {}) }, step }];
        if (role === 'user' && !CONTEXT_WRAPPER.test(text)) {
          this.pendingUserText = text;
          this.step++;
          return [this.prompt(text, ts)];
        }
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'context', text } }];
      }
      case 'reasoning': {
        const summary = Array.isArray(p.summary) ? p.summary.map((s) => (isRecord(s) ? (str(s.text) ?? '') : '')).filter(Boolean) : [];
        const content = Array.isArray(p.content) ? p.content.map((s) => (isRecord(s) ? (str(s.text) ?? '') : '')).filter(Boolean) : [];
        const text = [...summary, ...content].join('\n');
        return text ? [{ type: 'Reasoning', timestamp: ts, payload: { text }, step }] : [];
      }
      case 'function_call': {
        const callId = str(p.call_id) ?? str(p.id) ?? `call@${ts}`;
        const name = str(p.name) ?? 'unknown';
        const args = typeof p.arguments === 'string' ? (parseJson(p.arguments) ?? p.arguments) : (p.arguments ?? {});
        this.callNames.set(callId, name);
        return [{ type: 'ToolCall', timestamp: ts, payload: { call_id: callId, name, arguments: args }, step }];
      }
      case 'custom_tool_call': {
        const callId = str(p.call_id) ?? str(p.id) ?? `call@${ts}`;
        const name = str(p.name) ?? 'unknown';
        this.callNames.set(callId, name);
        return [{ type: 'ToolCall', timestamp: ts, payload: { call_id: callId, name, arguments: p.input ?? '' }, step }];
      }
      case 'local_shell_call': {
        const callId = str(p.call_id) ?? str(p.id) ?? `call@${ts}`;
        this.callNames.set(callId, 'local_shell');
        return [{ type: 'ToolCall', timestamp: ts, payload: { call_id: callId, name: 'local_shell', arguments: p.action ?? {} }, step }];
      }
      case 'web_search_call': {
        const callId = str(p.id) ?? str(p.call_id) ?? `search@${ts}`;
        const status: ToolStatus = p.status === 'failed' ? 'error' : 'ok';
        return [
          { type: 'ToolCall', timestamp: ts, payload: { call_id: callId, name: 'web_search', arguments: p.action ?? {} }, step },
          { type: 'ToolResult', timestamp: ts, payload: { call_id: callId, name: 'web_search', output: str(p.status) ?? '', is_error: status === 'error', status } },
        ];
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = str(p.call_id) ?? '';
        const out = codexOutput(p.output);
        const failed = (out.exitCode !== undefined && out.exitCode !== 0) || this.failedEarly.has(callId);
        this.resolvedCalls.add(callId);
        return [
          {
            type: 'ToolResult',
            timestamp: ts,
            payload: {
              call_id: callId,
              name: this.callNames.get(callId) ?? 'unknown',
              output: out.value,
              is_error: failed,
              status: failed ? 'error' : 'ok',
              ...(out.exitCode !== undefined ? { exit_code: out.exitCode } : {}),
            },
          },
        ];
      }
      case 'compaction':
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'compaction', text: 'Context compacted' } }];
      default:
        return [];
    }
  }

  private prompt(text: string, ts: string | null): ParsedEvent {
    const synthetic = this.meta.kind !== 'main';
    return { type: 'User', timestamp: ts, payload: synthetic ? { text, synthetic: true } : { text }, human: true };
  }

  private eventMsg(p: Record<string, unknown>, ts: string | null): ParsedEvent[] {
    const step = this.stepKey;
    switch (p.type) {
      case 'user_message': {
        const text = str(p.message) ?? '';
        // The same prompt is persisted as a response item just before; count it once.
        if (this.pendingUserText !== null && this.pendingUserText === text) {
          this.pendingUserText = null;
          return [];
        }
        this.step++;
        return [this.prompt(text, ts)];
      }
      case 'token_count': {
        const info = isRecord(p.info) ? p.info : undefined;
        const total = info && isRecord(info.total_token_usage) ? info.total_token_usage : undefined;
        if (!total) return [];
        const input = num(total.input_tokens) ?? 0;
        const output = num(total.output_tokens) ?? 0;
        return [
          {
            type: 'TokenUsage',
            timestamp: ts,
            payload: {
              mode: 'cumulative',
              input,
              output,
              cache_creation: 0,
              cache_read: num(total.cached_input_tokens) ?? 0,
              reasoning: num(total.reasoning_output_tokens) ?? 0,
              total: num(total.total_tokens) ?? input + output,
            },
            step,
          },
        ];
      }
      case 'turn_aborted':
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'interrupted', text: `Turn aborted${typeof p.reason === 'string' ? `: ${p.reason}` : ''}` } }];
      case 'entered_review_mode':
        if (ts) this.meta.childLinks.reviewAt.push(ts);
        return [
          {
            type: 'Notification',
            timestamp: ts,
            payload: { kind: 'review', text: `Review started${isRecord(p.target) && typeof p.target.type === 'string' ? ` (${p.target.type})` : ''}` },
          },
        ];
      case 'exited_review_mode': {
        const findings = isRecord(p.review_output) && Array.isArray(p.review_output.findings) ? p.review_output.findings : [];
        const titles = findings.map((f) => (isRecord(f) ? (str(f.title) ?? '') : '')).filter(Boolean);
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'review_done', text: titles.length > 0 ? `Review findings: ${titles.join('; ')}` : 'Review finished' } }];
      }
      case 'context_compacted':
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'compaction', text: 'Context compacted' } }];
      case 'patch_apply_end':
      case 'mcp_tool_call_end': {
        const callId = str(p.call_id) ?? '';
        const result = p.result;
        const failed = p.success === false || (isRecord(result) && ('Err' in result || (isRecord(result.Ok) && result.Ok.isError === true)));
        if (!failed || !callId) return [];
        if (this.resolvedCalls.has(callId))
          return [{ type: 'Notification', timestamp: ts, payload: { kind: 'tool_failed', text: `${this.callNames.get(callId) ?? 'tool'} failed`, call_id: callId } }];
        this.failedEarly.add(callId);
        return [];
      }
      case 'error':
        return [{ type: 'Notification', timestamp: ts, payload: { kind: 'error', text: str(p.message) ?? 'Error' } }];
      case 'thread_rolled_back':
      case 'undo_completed':
        return [{ type: 'Notification', timestamp: ts, payload: { kind: String(p.type), text: String(p.type).replace(/_/g, ' ') } }];
      default:
        // agent_message / agent_reasoning repeat the response items; task_started and others carry no content.
        return [];
    }
  }
}

async function rollouts(dir: string, depth: number, out: string[]): Promise<void> {
  for (const entry of await listDir(dir)) {
    const full = path.join(dir, entry.name);
    if (isFile(entry) && entry.name.startsWith('rollout-') && entry.name.endsWith('.jsonl')) out.push(full);
    else if (isDir(entry) && depth > 0) await rollouts(full, depth - 1, out);
  }
}

const TAIL_UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

export const codexReader: ProviderReader = {
  provider: 'codex',
  async discover(homes) {
    const files: TranscriptFile[] = [];
    for (const home of homes) {
      for (const [folder, rank] of [
        ['sessions', 2],
        ['archived_sessions', 1],
      ] as const) {
        const found: string[] = [];
        await rollouts(path.join(home, folder), 3, found);
        for (const file of found) {
          const id = TAIL_UUID.exec(file)?.[1];
          files.push({ provider: 'codex', path: file, mode: 'append', format: 'codex-jsonl', hints: id ? { idFromName: id } : {}, rank });
        }
      }
    }
    return files;
  },
  createParser: (file) => new CodexParser(file),
};
