// Claude Code transcripts: <home>/projects/<encoded-cwd>/<sessionId>.jsonl, sub-agents in
// <sessionId>/subagents/agent-<id>.jsonl (older builds: agent-<id>.jsonl beside the sessions).
// Append-only JSONL; the project is the cwd on the records (the folder name is a lossy encoding).

import * as path from 'node:path';
import { isoTime, isRecord, parseJson, str, num } from '../lines';
import { emptyMeta, type ParsedEvent, type SessionMeta } from '../types';
import { isDir, isFile, listDir, UUID } from './dirs';
import { observe, pushModel, type ProviderReader, type TranscriptFile, type TranscriptParser } from './parser';

const COMMAND_WRAPPER = /<(command-name|command-message|command-args|local-command-stdout|local-command-stderr)>/;
const INTERRUPTED = /^\[Request interrupted by user/;

/** The text of a content value: a string, or the text of its blocks (images as [image]). */
export function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((b) => {
      if (typeof b === 'string') return b;
      if (!isRecord(b)) return '';
      if (typeof b.text === 'string') return b.text;
      if (b.type === 'image') return '[image]';
      return '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

class ClaudeParser implements TranscriptParser {
  readonly meta: SessionMeta;
  malformed = 0;
  observedFirst: string | null = null;
  observedLast: string | null = null;
  private readonly callNames = new Map<string, string>();
  private customTitle = false;
  private readonly child: boolean;

  constructor(private readonly file: TranscriptFile) {
    this.child = file.hints.kind === 'subagent';
    this.meta = emptyMeta('claude_code', file.hints.idFromName ?? path.basename(file.path, '.jsonl'));
    if (this.child) {
      this.meta.kind = 'subagent';
      this.meta.parentId = file.hints.parentId ?? null;
    }
  }

  line(text: string): ParsedEvent[] {
    const rec = parseJson(text);
    if (!isRecord(rec)) {
      this.malformed++;
      return [];
    }
    const ts = isoTime(rec.timestamp) ?? null;
    observe(this, ts);
    switch (rec.type) {
      case 'summary':
        if (!this.customTitle && this.meta.title === null && typeof rec.summary === 'string') this.meta.title = rec.summary;
        return [];
      case 'custom-title':
        if (typeof rec.customTitle === 'string') {
          this.meta.title = rec.customTitle;
          this.customTitle = true;
        }
        return [];
      case 'user':
        this.learn(rec);
        return this.user(rec, ts);
      case 'assistant':
        this.learn(rec);
        return this.assistant(rec, ts);
      case 'system': {
        const subtype = str(rec.subtype) ?? 'system';
        let textOut = str(rec.content) ?? '';
        if (subtype === 'turn_duration' && num(rec.durationMs) !== undefined) textOut = `Turn took ${(num(rec.durationMs)! / 1000).toFixed(1)} s`;
        if (subtype === 'compact_boundary') return [{ type: 'Notification', timestamp: ts, payload: { kind: 'compaction', text: textOut || 'Conversation compacted' } }];
        return [{ type: 'Notification', timestamp: ts, payload: { kind: `system:${subtype}`, text: textOut } }];
      }
      default:
        // file-history-snapshot, queue-operation, progress, pr-link and types added later.
        return [];
    }
  }

  finish(): ParsedEvent[] {
    return [];
  }

  private learn(rec: Record<string, unknown>): void {
    if (this.meta.cwd === null && typeof rec.cwd === 'string' && rec.cwd !== '') this.meta.cwd = rec.cwd;
    if (this.meta.gitBranch === null && typeof rec.gitBranch === 'string' && rec.gitBranch !== '') this.meta.gitBranch = rec.gitBranch;
    if (this.meta.version === null && typeof rec.version === 'string') this.meta.version = rec.version;
    const sessionId = str(rec.sessionId);
    if (this.child) {
      if (this.meta.parentId === null && sessionId) this.meta.parentId = sessionId;
      const agentId = str(rec.agentId);
      if (agentId && !this.file.hints.idFromName) this.meta.id = `agent-${agentId}`;
    } else if (sessionId && !UUID.test(this.meta.id)) {
      this.meta.id = sessionId;
    }
  }

  private user(rec: Record<string, unknown>, ts: string | null): ParsedEvent[] {
    const message = isRecord(rec.message) ? rec.message : {};
    const content = message.content;
    if (rec.isMeta === true) return [{ type: 'Notification', timestamp: ts, payload: { kind: 'meta', text: blockText(content) } }];
    if (rec.isCompactSummary === true) return [{ type: 'Notification', timestamp: ts, payload: { kind: 'compact_summary', text: blockText(content) } }];
    const out: ParsedEvent[] = [];
    const texts: string[] = [];
    const flush = (): void => {
      if (texts.length === 0) return;
      out.push(this.prompt(texts.join('\n'), ts, rec.isSidechain === true));
      texts.length = 0;
    };
    if (typeof content === 'string') {
      texts.push(content);
    } else if (Array.isArray(content)) {
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === 'tool_result') {
          flush();
          const callId = str(block.tool_use_id) ?? '';
          const isError = block.is_error === true;
          out.push({
            type: 'ToolResult',
            timestamp: ts,
            payload: { call_id: callId, name: this.callNames.get(callId) ?? 'unknown', output: blockText(block.content), is_error: isError, status: isError ? 'error' : 'ok' },
          });
        } else if (block.type === 'text' && typeof block.text === 'string') {
          texts.push(block.text);
        } else if (block.type === 'image') {
          texts.push('[image]');
        }
      }
    }
    flush();
    const result = rec.toolUseResult;
    if (isRecord(result) && typeof result.agentId === 'string') this.meta.childLinks.agentIds.push(result.agentId);
    return out;
  }

  private prompt(text: string, ts: string | null, sidechain: boolean): ParsedEvent {
    if (COMMAND_WRAPPER.test(text)) return { type: 'Notification', timestamp: ts, payload: { kind: 'command', text } };
    if (INTERRUPTED.test(text.trim())) return { type: 'Notification', timestamp: ts, payload: { kind: 'interrupted', text: text.trim() } };
    if (sidechain) return { type: 'User', timestamp: ts, payload: { text, synthetic: true }, human: false };
    return { type: 'User', timestamp: ts, payload: { text }, human: true };
  }

  private assistant(rec: Record<string, unknown>, ts: string | null): ParsedEvent[] {
    const message = isRecord(rec.message) ? rec.message : {};
    const messageId = str(message.id) ?? str(rec.uuid) ?? `line@${ts}`;
    const step = messageId;
    const model = str(message.model);
    pushModel(this.meta, model);
    const out: ParsedEvent[] = [];
    const content = Array.isArray(message.content) ? message.content : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [];
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') {
        if (rec.isApiErrorMessage === true) out.push({ type: 'Notification', timestamp: ts, payload: { kind: 'api_error', text: block.text }, step });
        else out.push({ type: 'Message', timestamp: ts, payload: { text: block.text, ...(model && model !== '<synthetic>' ? { model } : {}) }, step });
      } else if (block.type === 'thinking') {
        out.push({ type: 'Reasoning', timestamp: ts, payload: { text: str(block.thinking) ?? '' }, step });
      } else if (block.type === 'redacted_thinking') {
        out.push({ type: 'Reasoning', timestamp: ts, payload: { text: '[redacted thinking]' }, step });
      } else if (block.type === 'tool_use') {
        const callId = str(block.id) ?? `call@${ts}`;
        const name = str(block.name) ?? 'unknown';
        this.callNames.set(callId, name);
        out.push({ type: 'ToolCall', timestamp: ts, payload: { call_id: callId, name, arguments: block.input ?? {} }, step });
      }
    }
    const usage = isRecord(message.usage) ? message.usage : undefined;
    if (usage) {
      const input = num(usage.input_tokens) ?? 0;
      const output = num(usage.output_tokens) ?? 0;
      const cacheCreation = num(usage.cache_creation_input_tokens) ?? 0;
      const cacheRead = num(usage.cache_read_input_tokens) ?? 0;
      out.push({
        type: 'TokenUsage',
        timestamp: ts,
        payload: {
          mode: 'keyed',
          key: `${messageId}|${str(rec.requestId) ?? ''}`,
          input,
          output,
          cache_creation: cacheCreation,
          cache_read: cacheRead,
          reasoning: 0,
          total: input + output + cacheCreation + cacheRead,
          ...(model && model !== '<synthetic>' ? { model } : {}),
        },
        step,
      });
    }
    return out;
  }
}

export const claudeReader: ProviderReader = {
  provider: 'claude_code',
  async discover(homes) {
    const files: TranscriptFile[] = [];
    for (const home of homes) {
      const projects = path.join(home, 'projects');
      for (const project of (await listDir(projects)).filter(isDir)) {
        const dir = path.join(projects, project.name);
        for (const entry of await listDir(dir)) {
          const full = path.join(dir, entry.name);
          if (isFile(entry) && entry.name.endsWith('.jsonl')) {
            const stem = entry.name.slice(0, -'.jsonl'.length);
            if (stem.startsWith('agent-')) {
              // Older builds: sub-agent files beside the sessions; the parent is in their records.
              files.push({ provider: 'claude_code', path: full, mode: 'append', format: 'claude-jsonl', hints: { kind: 'subagent', idFromName: stem }, rank: 1 });
            } else {
              files.push({ provider: 'claude_code', path: full, mode: 'append', format: 'claude-jsonl', hints: { idFromName: stem }, rank: 1 });
            }
          } else if (isDir(entry)) {
            const subagents = path.join(full, 'subagents');
            for (const sub of (await listDir(subagents)).filter((d) => isFile(d) && d.name.endsWith('.jsonl'))) {
              const stem = sub.name.slice(0, -'.jsonl'.length);
              files.push({
                provider: 'claude_code',
                path: path.join(subagents, sub.name),
                mode: 'append',
                format: 'claude-jsonl',
                hints: { kind: 'subagent', parentId: entry.name, idFromName: stem.startsWith('agent-') ? stem : `agent-${stem}` },
                rank: 1,
              });
            }
          }
        }
      }
    }
    return files;
  },
  createParser: (file) => new ClaudeParser(file),
};
