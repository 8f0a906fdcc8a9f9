// VS Code's own Copilot Chat sessions: <User>/workspaceStorage/<id>/chatSessions/<sessionId>.jsonl
// (VS Code >= 1.109: a mutation log replayed in order, up to the first bad line) or .json (older:
// one document), empty-window chats in globalStorage, and Copilot's hook transcripts
// (GitHub.copilot-chat/transcripts/*.jsonl). The project is workspace.json's folder; times are ms.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isoTime, isRecord, parseJson, str, num } from '../lines';
import { emptyMeta, type ParsedEvent, type SessionMeta, type ToolStatus } from '../types';
import { isDir, isFile, listDir, readText } from './dirs';
import { observe, pushModel, type ProviderReader, type TranscriptFile, type TranscriptParser } from './parser';

const ERROR_RESULT = /^ERROR while calling tool/;
const CANCELLED_RESULT = /^The user cancelled the tool call/;

/** The folder a workspace.json names ({folder} or {workspace} URI), as a path. */
export function workspaceFolder(json: string | undefined): string | undefined {
  const parsed = parseJson(json ?? '');
  if (!isRecord(parsed)) return undefined;
  const uri = str(parsed.folder) ?? str(parsed.workspace);
  if (!uri) return undefined;
  try {
    const u = new URL(uri);
    if (u.protocol === 'file:') {
      const p = fileURLToPath(u);
      return parsed.folder ? p : path.dirname(p);
    }
    // Remote folders (vscode-remote://, vscode-vfs://): the path part is the best we have.
    return decodeURIComponent(u.pathname);
  } catch {
    return undefined;
  }
}

function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (isRecord(v) && typeof v.value === 'string') return v.value;
  if (Array.isArray(v)) return v.map(valueText).filter(Boolean).join('\n');
  return '';
}

function resultText(result: unknown): string | undefined {
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  return result.content.map((c) => (isRecord(c) ? (str(c.value) ?? str(c.text) ?? '') : typeof c === 'string' ? c : '')).join('\n');
}

/** Applies one ObjectMutationLog entry; false when the entry is not one. */
function applyMutation(state: { obj: Record<string, unknown> | null }, entry: Record<string, unknown>): boolean {
  const kind = entry.kind;
  if (kind === 0) {
    if (!isRecord(entry.v)) return false;
    state.obj = entry.v;
    return true;
  }
  if (state.obj === null || !Array.isArray(entry.k)) return false;
  const keys = entry.k as unknown[];
  if (keys.length === 0 && kind !== 2) return false;
  let target: unknown = state.obj;
  const upto = kind === 2 ? keys.length : keys.length - 1;
  for (let i = 0; i < upto; i++) {
    const key = keys[i];
    const container = target as Record<string | number, unknown>;
    if (container === null || typeof container !== 'object' || (typeof key !== 'string' && typeof key !== 'number')) return false;
    let next = container[key];
    if (next === undefined || next === null) {
      next = kind === 2 && i === upto - 1 ? [] : {};
      container[key] = next;
    }
    target = next;
  }
  if (kind === 1) {
    const key = keys[keys.length - 1];
    if ((typeof key !== 'string' && typeof key !== 'number') || target === null || typeof target !== 'object') return false;
    (target as Record<string | number, unknown>)[key] = entry.v;
    return true;
  }
  if (kind === 2) {
    if (!Array.isArray(target)) return false;
    if (typeof entry.i === 'number') target.length = Math.min(target.length, entry.i);
    if (Array.isArray(entry.v)) target.push(...entry.v);
    return true;
  }
  if (kind === 3) {
    const key = keys[keys.length - 1];
    if ((typeof key !== 'string' && typeof key !== 'number') || target === null || typeof target !== 'object') return false;
    delete (target as Record<string | number, unknown>)[key];
    return true;
  }
  return false;
}

/** The events of a serialised chat session (ISerializableChatData, any version). */
export function chatSessionEvents(session: Record<string, unknown>, meta: SessionMeta, seen: (ts: string | undefined) => void): ParsedEvent[] {
  if (typeof session.sessionId === 'string') meta.id = session.sessionId;
  meta.declaredStart = isoTime(session.creationDate) ?? null;
  const title = str(session.customTitle) ?? str(session.computedTitle);
  if (title) meta.title = title;
  const out: ParsedEvent[] = [];
  const requests = Array.isArray(session.requests) ? session.requests : [];
  let end: string | null = null;
  requests.forEach((r, k) => {
    if (!isRecord(r)) return;
    const requestTs = isoTime(r.timestamp) ?? null;
    seen(requestTs ?? undefined);
    const state = isRecord(r.modelState) ? r.modelState : {};
    const completed = isoTime(state.completedAt);
    seen(completed);
    const last = completed ?? requestTs;
    if (last && (end === null || last > end)) end = last;
    const model = str(r.modelId);
    pushModel(meta, model);
    const message = r.message;
    const text = typeof message === 'string' ? message : isRecord(message) ? (str(message.text) ?? valueText(message.parts)) : '';
    out.push({ type: 'User', timestamp: requestTs, payload: { text }, human: true });

    const metadata = isRecord(r.result) && isRecord(r.result.metadata) ? r.result.metadata : {};
    const rounds = Array.isArray(metadata.toolCallRounds) ? metadata.toolCallRounds : [];
    const results = isRecord(metadata.toolCallResults) ? metadata.toolCallResults : {};
    const roundOf = new Map<string, { round: number; name: string; args: unknown; ts: string | null }>();
    rounds.forEach((round, j) => {
      if (!isRecord(round) || !Array.isArray(round.toolCalls)) return;
      for (const call of round.toolCalls) {
        if (!isRecord(call) || typeof call.id !== 'string') continue;
        const args = typeof call.arguments === 'string' ? (parseJson(call.arguments) ?? call.arguments) : call.arguments;
        roundOf.set(call.id, { round: j, name: str(call.name) ?? 'unknown', args, ts: isoTime(round.timestamp) ?? null });
      }
    });
    let step = `r${k}.0`;
    let looseSteps = 0;
    let stepHasTool = false;
    let pendingText: string[] = [];
    const flushText = (): void => {
      if (pendingText.length === 0) return;
      const joined = pendingText.join('');
      pendingText = [];
      if (joined.trim() !== '') out.push({ type: 'Message', timestamp: requestTs, payload: { text: joined, ...(model ? { model } : {}) }, step });
    };
    const seenCalls = new Set<string>();
    const emitCall = (callId: string, part: Record<string, unknown> | undefined): void => {
      seenCalls.add(callId);
      const known = roundOf.get(callId);
      if (known) {
        const nextStep = `r${k}.${known.round}`;
        if (nextStep !== step) {
          flushText();
          step = nextStep;
        }
      } else if (stepHasTool) {
        flushText();
        step = `r${k}.p${++looseSteps}`;
      }
      stepHasTool = true;
      const data = part && isRecord(part.toolSpecificData) ? part.toolSpecificData : undefined;
      const name = known?.name ?? str(part?.toolId) ?? 'unknown';
      let args: unknown = known?.args;
      if (args === undefined && data) {
        if (data.kind === 'terminal') args = { command: isRecord(data.commandLine) ? (str(data.commandLine.original) ?? '') : (str(data.command) ?? '') };
        else if (data.kind === 'input') args = data.rawInput;
      }
      if (args === undefined) args = { invocation: valueText(part?.invocationMessage) };
      const callTs = known?.ts ?? requestTs;
      out.push({ type: 'ToolCall', timestamp: callTs, payload: { call_id: callId, name, arguments: args }, step });
      const terminal = data && data.kind === 'terminal' ? data : undefined;
      const commandState = terminal && isRecord(terminal.terminalCommandState) ? terminal.terminalCommandState : undefined;
      const exitCode = num(commandState?.exitCode);
      const details = part && isRecord(part.resultDetails) ? part.resultDetails : undefined;
      const fromResults = resultText(results[callId]);
      const terminalOutput = terminal && isRecord(terminal.terminalCommandOutput) ? str(terminal.terminalCommandOutput.text) : undefined;
      const confirmed = part && isRecord(part.isConfirmed) ? num(part.isConfirmed.type) : undefined;
      const complete = part ? part.isComplete === true : fromResults !== undefined;
      if (!complete && fromResults === undefined && exitCode === undefined) return;
      let status: ToolStatus = 'ok';
      if (details?.isError === true || (exitCode !== undefined && exitCode !== 0) || (fromResults !== undefined && ERROR_RESULT.test(fromResults))) status = 'error';
      else if ((fromResults !== undefined && CANCELLED_RESULT.test(fromResults)) || confirmed === 0 || confirmed === 5) status = 'cancelled';
      const output = fromResults ?? terminalOutput ?? (details && 'output' in details ? details.output : undefined) ?? (valueText(part?.pastTenseMessage) || null);
      out.push({
        type: 'ToolResult',
        timestamp: isoTime(commandState?.timestamp) ?? callTs,
        payload: { call_id: callId, name, output, is_error: status === 'error', status, ...(exitCode !== undefined ? { exit_code: exitCode } : {}) },
      });
    };
    const response = Array.isArray(r.response) ? r.response : [];
    for (const part of response) {
      if (!isRecord(part)) continue;
      const kind = part.kind;
      if (kind === undefined || kind === 'markdownContent') {
        const value = kind === undefined ? part.value : isRecord(part.content) ? part.content.value : undefined;
        if (typeof value === 'string') pendingText.push(value);
      } else if (kind === 'thinking') {
        flushText();
        const t = valueText(part.value);
        if (t.trim() !== '') out.push({ type: 'Reasoning', timestamp: requestTs, payload: { text: t }, step });
      } else if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') {
        const callId = str(part.toolCallId);
        if (!callId || seenCalls.has(callId)) continue;
        flushText();
        emitCall(callId, part);
      }
    }
    flushText();
    for (const callId of roundOf.keys()) if (!seenCalls.has(callId)) emitCall(callId, undefined);
    const prompt = num(metadata.promptTokens);
    const output = num(metadata.outputTokens);
    if (prompt !== undefined || output !== undefined) {
      out.push({
        type: 'TokenUsage',
        timestamp: completed ?? requestTs,
        payload: {
          mode: 'delta',
          input: prompt ?? 0,
          output: output ?? 0,
          cache_creation: 0,
          cache_read: 0,
          reasoning: 0,
          total: (prompt ?? 0) + (output ?? 0),
          ...(model ? { model } : {}),
        },
        step,
      });
    }
    const errorDetails = isRecord(r.result) && isRecord(r.result.errorDetails) ? r.result.errorDetails : undefined;
    if (state.value === 3 || errorDetails) {
      out.push({ type: 'Notification', timestamp: completed ?? requestTs, payload: { kind: 'error', text: str(errorDetails?.message) ?? 'The request failed' } });
    } else if (state.value === 2 || r.isCanceled === true) {
      out.push({ type: 'Notification', timestamp: completed ?? requestTs, payload: { kind: 'interrupted', text: 'The request was cancelled' } });
    }
  });
  meta.declaredEnd = end;
  return out;
}

class ChatSessionParser implements TranscriptParser {
  readonly meta: SessionMeta;
  malformed = 0;
  observedFirst: string | null = null;
  observedLast: string | null = null;
  private readonly state: { obj: Record<string, unknown> | null } = { obj: null };
  private stopped = false;

  constructor(file: TranscriptFile) {
    this.meta = emptyMeta('vscode_copilot', file.hints.idFromName ?? path.basename(file.path).replace(/\.jsonl?$/, ''));
    if (file.hints.cwd) this.meta.cwd = file.hints.cwd;
  }

  line(text: string): ParsedEvent[] {
    if (text.trim() === '') return [];
    const entry = parseJson(text);
    if (!isRecord(entry)) {
      // Later entries depend on earlier ones: replay stops at the first bad line (as VS Code does),
      // unless a later line starts a fresh state (the writer compacted the log).
      if (!this.stopped) this.malformed++;
      this.stopped = true;
      return [];
    }
    if (entry.kind === 0) this.stopped = false;
    if (this.stopped) return [];
    if (!applyMutation(this.state, entry)) {
      this.malformed++;
      this.stopped = true;
    }
    return [];
  }

  whole(text: string): void {
    const parsed = parseJson(text);
    if (isRecord(parsed)) this.state.obj = parsed;
    else if (text.trim() !== '') this.malformed++;
  }

  finish(): ParsedEvent[] {
    if (!this.state.obj) return [];
    return chatSessionEvents(this.state.obj, this.meta, (ts) => observe(this, ts));
  }
}

/** Copilot Chat's hook transcripts: {type, data, id, timestamp, parentId} per line, appended. */
class HookTranscriptParser implements TranscriptParser {
  readonly meta: SessionMeta;
  malformed = 0;
  observedFirst: string | null = null;
  observedLast: string | null = null;
  private step = 'turn:0';
  private readonly callNames = new Map<string, string>();
  private readonly emitted = new Set<string>();

  constructor(file: TranscriptFile) {
    this.meta = emptyMeta('vscode_copilot', file.hints.idFromName ?? path.basename(file.path, '.jsonl'));
    if (file.hints.cwd) this.meta.cwd = file.hints.cwd;
  }

  line(text: string): ParsedEvent[] {
    const rec = parseJson(text);
    if (!isRecord(rec)) {
      if (text.trim() !== '') this.malformed++;
      return [];
    }
    const ts = isoTime(rec.timestamp) ?? null;
    observe(this, ts);
    const data = isRecord(rec.data) ? rec.data : {};
    switch (rec.type) {
      case 'session.start': {
        if (typeof data.sessionId === 'string') this.meta.id = data.sessionId;
        this.meta.declaredStart = isoTime(data.startTime) ?? ts;
        this.meta.version = str(data.copilotVersion) ?? null;
        if (isRecord(data.context) && typeof data.context.cwd === 'string') this.meta.cwd = data.context.cwd;
        return [];
      }
      case 'user.message':
        return [{ type: 'User', timestamp: ts, payload: { text: valueText(data.content) }, human: true }];
      case 'assistant.turn_start':
        this.step = `turn:${str(data.turnId) ?? ts}`;
        return [];
      case 'assistant.message': {
        const out: ParsedEvent[] = [];
        if (typeof data.reasoningText === 'string' && data.reasoningText.trim() !== '')
          out.push({ type: 'Reasoning', timestamp: ts, payload: { text: data.reasoningText }, step: this.step });
        const content = valueText(data.content);
        if (content.trim() !== '') out.push({ type: 'Message', timestamp: ts, payload: { text: content }, step: this.step });
        for (const req of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
          if (!isRecord(req) || typeof req.toolCallId !== 'string' || this.emitted.has(req.toolCallId)) continue;
          const name = str(req.name) ?? 'unknown';
          const args = typeof req.arguments === 'string' ? (parseJson(req.arguments) ?? req.arguments) : (req.arguments ?? {});
          this.emitted.add(req.toolCallId);
          this.callNames.set(req.toolCallId, name);
          out.push({ type: 'ToolCall', timestamp: ts, payload: { call_id: req.toolCallId, name, arguments: args }, step: this.step });
        }
        return out;
      }
      case 'tool.execution_start': {
        const callId = str(data.toolCallId);
        if (!callId || this.emitted.has(callId)) return [];
        const name = str(data.toolName) ?? 'unknown';
        this.emitted.add(callId);
        this.callNames.set(callId, name);
        return [{ type: 'ToolCall', timestamp: ts, payload: { call_id: callId, name, arguments: data.arguments ?? {} }, step: this.step }];
      }
      case 'tool.execution_complete': {
        const callId = str(data.toolCallId) ?? '';
        const failed = data.success === false;
        const result = isRecord(data.result) ? (data.result.content ?? data.result) : (data.result ?? null);
        return [
          {
            type: 'ToolResult',
            timestamp: ts,
            payload: { call_id: callId, name: this.callNames.get(callId) ?? 'unknown', output: result, is_error: failed, status: failed ? 'error' : 'ok' },
          },
        ];
      }
      default:
        return [];
    }
  }

  finish(): ParsedEvent[] {
    return [];
  }
}

export const copilotChatReader: ProviderReader = {
  provider: 'vscode_copilot',
  async discover(userDirs) {
    const files: TranscriptFile[] = [];
    const sessionFiles = (dir: string, hints: TranscriptFile['hints']) =>
      listDir(dir).then((entries) =>
        entries.filter(isFile).flatMap((e): TranscriptFile[] => {
          const full = path.join(dir, e.name);
          if (e.name.endsWith('.jsonl'))
            return [{ provider: 'vscode_copilot', path: full, mode: 'replay', format: 'vscode-jsonl', hints: { ...hints, idFromName: e.name.slice(0, -6) }, rank: 3 }];
          if (e.name.endsWith('.json'))
            return [{ provider: 'vscode_copilot', path: full, mode: 'whole', format: 'vscode-json', hints: { ...hints, idFromName: e.name.slice(0, -5) }, rank: 2 }];
          return [];
        }),
      );
    for (const userDir of userDirs) {
      const storage = path.join(userDir, 'workspaceStorage');
      for (const ws of (await listDir(storage)).filter(isDir)) {
        const dir = path.join(storage, ws.name);
        const cwd = workspaceFolder(await readText(path.join(dir, 'workspace.json')));
        const hints = { ...(cwd ? { cwd } : {}), workspaceDir: dir };
        files.push(...(await sessionFiles(path.join(dir, 'chatSessions'), hints)));
        const transcripts = path.join(dir, 'GitHub.copilot-chat', 'transcripts');
        for (const t of (await listDir(transcripts)).filter((e) => isFile(e) && e.name.endsWith('.jsonl'))) {
          files.push({
            provider: 'vscode_copilot',
            path: path.join(transcripts, t.name),
            mode: 'append',
            format: 'copilot-transcript',
            hints: { ...hints, idFromName: t.name.slice(0, -6) },
            rank: 1,
          });
        }
      }
      for (const folder of ['emptyWindowChatSessions', 'transferredChatSessions']) {
        files.push(...(await sessionFiles(path.join(userDir, 'globalStorage', folder), {})));
      }
    }
    return files;
  },
  createParser: (file) => (file.format === 'copilot-transcript' ? new HookTranscriptParser(file) : new ChatSessionParser(file)),
};
