// Gemini CLI chats: ~/.gemini/tmp/<project>/chats/session-<utc>-<id8>.jsonl (an append log that
// re-appends changed messages, sets metadata with $set and rewinds with $rewindTo; replayed whole)
// or .json (older: the whole ConversationRecord); sub-agents in chats/<parentId>/<agentId>.jsonl.
// The chat never records its cwd: the project folder's .project_root or projects.json says it.

import * as path from 'node:path';
import { isoTime, isRecord, parseJson, str, num } from '../lines';
import { emptyMeta, type ParsedEvent, type SessionMeta, type ToolStatus } from '../types';
import { isDir, isFile, listDir, readText } from './dirs';
import { observe, pushModel, type ProviderReader, type TranscriptFile, type TranscriptParser } from './parser';

const EXIT_CODE = /Exit Code:\s*(-?\d+)/i;
const HEX64 = /^[0-9a-f]{64}$/i;
/** Raw lines kept for the whole-document fallback (a file with no metadata line) up to this size. */
const FALLBACK_LIMIT = 64 << 20;

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p === 'string' ? p : isRecord(p) ? (str(p.text) ?? '') : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function resultOutput(result: unknown): unknown {
  if (!Array.isArray(result)) return result ?? null;
  const outputs = result.map((part) => {
    if (isRecord(part) && isRecord(part.functionResponse)) {
      const response = part.functionResponse.response;
      if (isRecord(response)) return response.output ?? response.error ?? response;
      return response;
    }
    return part;
  });
  return outputs.length === 1 ? outputs[0] : outputs;
}

class GeminiParser implements TranscriptParser {
  readonly meta: SessionMeta;
  malformed = 0;
  observedFirst: string | null = null;
  observedLast: string | null = null;
  private metaFound = false;
  private messages = new Map<string, Record<string, unknown>>();
  private rawLines: string[] | null = [];
  private rawBytes = 0;

  constructor(private readonly file: TranscriptFile) {
    this.meta = emptyMeta('gemini', file.hints.idFromName ?? path.basename(file.path).replace(/\.jsonl?$/, ''));
    if (file.hints.parentId) {
      this.meta.parentId = file.hints.parentId;
      this.meta.kind = 'subagent';
    }
    if (file.hints.cwd) this.meta.cwd = file.hints.cwd;
    if (file.hints.projectHash) this.meta.projectHash = file.hints.projectHash;
  }

  line(text: string): ParsedEvent[] {
    if (this.rawLines) {
      this.rawBytes += text.length;
      if (this.metaFound || this.rawBytes > FALLBACK_LIMIT) this.rawLines = null;
      else this.rawLines.push(text);
    }
    const rec = parseJson(text);
    if (!isRecord(rec)) {
      if (text.trim() !== '') this.malformed++;
      return [];
    }
    if (!this.metaFound && typeof rec.sessionId === 'string' && rec.type === undefined && rec.id === undefined) {
      this.metaFound = true;
      this.rawLines = null;
      this.applyRecordMeta(rec);
      return [];
    }
    if (isRecord(rec.$set)) {
      const set = rec.$set;
      this.applyRecordMeta(set);
      if (Array.isArray(set.messages)) {
        // A checkpoint that replaces the whole list.
        this.messages = new Map();
        for (const m of set.messages) if (isRecord(m) && typeof m.id === 'string') this.messages.set(m.id, m);
      }
      return [];
    }
    if (typeof rec.$rewindTo === 'string') {
      this.rewind(rec.$rewindTo);
      return [];
    }
    if (typeof rec.id === 'string' && typeof rec.type === 'string') {
      // Map semantics: the last version of a message, at the position of its first appearance.
      this.messages.set(rec.id, rec);
    }
    return [];
  }

  whole(text: string): void {
    const rec = parseJson(text);
    if (!isRecord(rec)) {
      if (text.trim() !== '') this.malformed++;
      return;
    }
    this.metaFound = true;
    this.applyRecordMeta(rec);
    if (Array.isArray(rec.messages)) for (const m of rec.messages) if (isRecord(m) && typeof m.id === 'string') this.messages.set(m.id, m);
  }

  private rewind(id: string): void {
    if (!this.messages.has(id)) {
      this.messages.clear();
      return;
    }
    let cutting = false;
    for (const key of [...this.messages.keys()]) {
      if (key === id) cutting = true;
      if (cutting) this.messages.delete(key);
    }
  }

  private applyRecordMeta(rec: Record<string, unknown>): void {
    if (typeof rec.sessionId === 'string') this.meta.id = rec.sessionId;
    if (typeof rec.projectHash === 'string') this.meta.projectHash = rec.projectHash;
    const start = isoTime(rec.startTime);
    if (start && !this.meta.declaredStart) this.meta.declaredStart = start;
    const updated = isoTime(rec.lastUpdated);
    if (updated && (this.meta.declaredEnd === null || updated > this.meta.declaredEnd)) this.meta.declaredEnd = updated;
    if (typeof rec.summary === 'string' && rec.summary.trim() !== '') this.meta.title = rec.summary;
    if (rec.kind === 'subagent') this.meta.kind = 'subagent';
    if (Array.isArray(rec.directories) && this.meta.cwd === null) {
      const first = rec.directories.find((d): d is string => typeof d === 'string');
      if (first) this.meta.cwd = first;
    }
  }

  finish(): ParsedEvent[] {
    if (!this.metaFound && this.rawLines && this.rawLines.length > 0) {
      // No metadata line: an older whole-document file under a .jsonl name.
      const lines = this.rawLines;
      this.rawLines = null;
      this.malformed = 0;
      this.whole(lines.join('\n'));
    }
    const out: ParsedEvent[] = [];
    const synthetic = this.meta.kind === 'subagent';
    for (const m of this.messages.values()) {
      const ts = isoTime(m.timestamp) ?? null;
      observe(this, ts);
      const id = str(m.id)!;
      switch (m.type) {
        case 'user':
          out.push({ type: 'User', timestamp: ts, payload: synthetic ? { text: partsText(m.content), synthetic: true } : { text: partsText(m.content) }, human: true });
          break;
        case 'gemini':
          out.push(...this.gemini(m, id, ts));
          break;
        case 'info':
        case 'error':
        case 'warning':
          out.push({ type: 'Notification', timestamp: ts, payload: { kind: String(m.type), text: partsText(m.content) } });
          break;
        default:
          break;
      }
    }
    return out;
  }

  private gemini(m: Record<string, unknown>, step: string, ts: string | null): ParsedEvent[] {
    const out: ParsedEvent[] = [];
    const model = str(m.model);
    pushModel(this.meta, model);
    if (Array.isArray(m.thoughts)) {
      const text = m.thoughts
        .map((t) => (isRecord(t) ? [str(t.subject), str(t.description)].filter(Boolean).join(': ') : ''))
        .filter(Boolean)
        .join('\n');
      if (text) out.push({ type: 'Reasoning', timestamp: ts, payload: { text }, step });
    }
    const text = partsText(m.content);
    if (text.trim() !== '') out.push({ type: 'Message', timestamp: ts, payload: { text, ...(model ? { model } : {}) }, step });
    if (Array.isArray(m.toolCalls)) {
      for (const call of m.toolCalls) {
        if (!isRecord(call)) continue;
        const callId = str(call.id) ?? `call@${ts}`;
        const name = str(call.name) ?? 'unknown';
        const callTs = isoTime(call.timestamp) ?? ts;
        if (typeof call.agentId === 'string') this.meta.childLinks.agentIds.push(call.agentId);
        out.push({ type: 'ToolCall', timestamp: callTs, payload: { call_id: callId, name, arguments: call.args ?? {} }, step });
        const status = str(call.status);
        if (call.result === null && (status === undefined || status === 'executing' || status === 'scheduled' || status === 'validating')) continue;
        const output = resultOutput(call.result);
        const outText = typeof output === 'string' ? output : (str(call.resultDisplay) ?? '');
        const exit = EXIT_CODE.exec(outText.slice(-2000));
        const normalised: ToolStatus = status === 'error' ? 'error' : status === 'cancelled' ? 'cancelled' : 'ok';
        out.push({
          type: 'ToolResult',
          timestamp: callTs,
          payload: {
            call_id: callId,
            name,
            output,
            is_error: normalised === 'error',
            status: normalised,
            ...(exit ? { exit_code: Number(exit[1]) } : {}),
          },
        });
      }
    }
    if (isRecord(m.tokens)) {
      const t = m.tokens;
      const input = num(t.input) ?? 0;
      const output = num(t.output) ?? 0;
      const thoughts = num(t.thoughts) ?? 0;
      out.push({
        type: 'TokenUsage',
        timestamp: ts,
        payload: {
          mode: 'delta',
          input,
          output,
          cache_creation: 0,
          cache_read: num(t.cached) ?? 0,
          reasoning: thoughts,
          total: num(t.total) ?? input + output + thoughts + (num(t.tool) ?? 0),
          ...(model ? { model } : {}),
        },
        step,
      });
    }
    return out;
  }
}

async function projectRoots(home: string): Promise<Map<string, string>> {
  // ~/.gemini/projects.json: {"projects": {"/abs/path": "slug"}}, read backwards.
  const out = new Map<string, string>();
  const parsed = parseJson((await readText(path.join(home, 'projects.json'))) ?? '');
  const projects = isRecord(parsed) && isRecord(parsed.projects) ? parsed.projects : {};
  for (const [root, slug] of Object.entries(projects)) if (typeof slug === 'string') out.set(slug, root);
  return out;
}

export const geminiReader: ProviderReader = {
  provider: 'gemini',
  async discover(homes) {
    const files: TranscriptFile[] = [];
    for (const home of homes) {
      const roots = await projectRoots(home);
      const tmp = path.join(home, 'tmp');
      for (const project of (await listDir(tmp)).filter(isDir)) {
        const dir = path.join(tmp, project.name);
        const marker = (await readText(path.join(dir, '.project_root')))?.trim();
        const cwd = marker || roots.get(project.name);
        const base = { ...(cwd ? { cwd } : {}), ...(HEX64.test(project.name) ? { projectHash: project.name.toLowerCase() } : {}) };
        const chats = path.join(dir, 'chats');
        for (const entry of await listDir(chats)) {
          const full = path.join(chats, entry.name);
          if (isFile(entry) && entry.name.endsWith('.jsonl')) {
            files.push({ provider: 'gemini', path: full, mode: 'replay', format: 'gemini-jsonl', hints: { ...base }, rank: 2 });
          } else if (isFile(entry) && entry.name.endsWith('.json')) {
            files.push({ provider: 'gemini', path: full, mode: 'whole', format: 'gemini-json', hints: { ...base }, rank: 1 });
          } else if (isDir(entry)) {
            for (const sub of (await listDir(full)).filter((d) => isFile(d) && d.name.endsWith('.jsonl'))) {
              files.push({
                provider: 'gemini',
                path: path.join(full, sub.name),
                mode: 'replay',
                format: 'gemini-jsonl',
                hints: { ...base, parentId: entry.name, idFromName: sub.name.slice(0, -'.jsonl'.length), kind: 'subagent' },
                rank: 2,
              });
            }
          }
        }
      }
    }
    return files;
  },
  createParser: (file) => new GeminiParser(file),
};
