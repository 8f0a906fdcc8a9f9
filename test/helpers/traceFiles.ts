// Transcripts for tests and benchmarks: the shared fixtures (a fake $HOME), copies of them in temp
// folders, and generated sessions in Claude Code's and Codex's real on-disk layouts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/core/log';
import { resolveTraceHomes } from '../../src/core/traces/homes';
import { TraceService } from '../../src/core/traces/traceService';

export const FIXTURE_HOME = path.resolve(__dirname, '..', 'fixtures', 'traces', 'home');
export const EDGE_HOME = path.resolve(__dirname, '..', 'fixtures', 'traces', 'edge-home');

export function serviceFor(home: string, options: { minRefreshMs?: number; searchBudgetMs?: number; now?: () => number } = {}): TraceService {
  return new TraceService({
    homes: resolveTraceHomes({ env: { AGENT_PROGRESS_TRACES_HOME: home } }),
    logger: silentLogger,
    minRefreshMs: options.minRefreshMs ?? 0,
    ...(options.searchBudgetMs !== undefined ? { searchBudgetMs: options.searchBudgetMs } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

export function copyTree(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
  // The fixtures may be read-only in the checkout; copies are for changing.
  for (const entry of fs.readdirSync(to, { recursive: true, withFileTypes: true })) fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
}

/** Seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function uuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface GeneratedSession {
  id: string;
  file: string;
  lines: string[];
  turns: number;
  toolCalls: number;
  failed: number;
  start: string;
  end: string;
}

export interface ClaudeOptions {
  id?: string;
  cwd?: string;
  start?: Date;
  turns?: number;
  callsPerTurn?: number;
  /** Bytes of output per tool result (a file read, a log). */
  outputBytes?: number;
  /** Every n-th call fails (0: none). */
  failEvery?: number;
  seed?: number;
  /** Text put into the first prompt (secrets, markers). */
  promptExtra?: string;
}

const WORDS = 'cart coupon order build test lint index schema query cache session token report checkout payment search render route handler parser worker'.split(' ');

function sentence(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
}

/** A Claude Code session as its JSONL lines (split assistant messages, usage, tool results). */
export function claudeLines(options: ClaudeOptions = {}): Omit<GeneratedSession, 'file'> {
  const random = rng(options.seed ?? 1);
  const id = options.id ?? uuid(random);
  const cwd = options.cwd ?? '/home/dev/generated';
  let t = (options.start ?? new Date('2026-03-01T09:00:00Z')).getTime();
  const turns = options.turns ?? 3;
  const perTurn = options.callsPerTurn ?? 2;
  const lines: string[] = [];
  let parent: string | null = null;
  let calls = 0;
  let failed = 0;
  const common = () => ({ isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.1.140', gitBranch: 'main' });
  const push = (rec: Record<string, unknown>): void => {
    const u = uuid(random);
    lines.push(JSON.stringify({ parentUuid: parent, ...common(), ...rec, uuid: u, timestamp: new Date(t).toISOString() }));
    parent = u;
    t += 1000;
  };
  const start = new Date(t).toISOString();
  for (let turn = 0; turn < turns; turn++) {
    push({ type: 'user', message: { role: 'user', content: `${turn === 0 && options.promptExtra ? `${options.promptExtra} ` : ''}Turn ${turn}: ${sentence(random, 8)}` } });
    for (let c = 0; c < perTurn; c++) {
      const msgId = `msg_${id.slice(0, 8)}_${turn}_${c}`;
      const callId = `toolu_${id.slice(0, 8)}_${turn}_${c}`;
      const usage = { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 50 };
      push({
        type: 'assistant',
        message: {
          model: 'claude-opus-4-5-20251101',
          id: msgId,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: sentence(random, 12) }],
          usage: { ...usage, output_tokens: 5 },
        },
        requestId: `req_${msgId}`,
      });
      push({
        type: 'assistant',
        message: {
          model: 'claude-opus-4-5-20251101',
          id: msgId,
          type: 'message',
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: callId,
              name: c % 2 === 0 ? 'Read' : 'Bash',
              input: c % 2 === 0 ? { file_path: `${cwd}/src/file${turn}_${c}.ts` } : { command: `npm test -- ${turn}-${c}` },
            },
          ],
          usage,
        },
        requestId: `req_${msgId}`,
      });
      calls++;
      const fails = options.failEvery ? calls % options.failEvery === 0 : false;
      if (fails) failed++;
      const size = options.outputBytes ?? 200;
      const body = `line ${sentence(random, 6)}\n`.repeat(Math.max(1, Math.ceil(size / 40))).slice(0, size);
      push({ type: 'user', message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: body, ...(fails ? { is_error: true } : {}) }] } });
    }
    push({
      type: 'assistant',
      message: {
        model: 'claude-opus-4-5-20251101',
        id: `msg_${id.slice(0, 8)}_${turn}_end`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: `Done with turn ${turn}.` }],
        usage: { input_tokens: 5, output_tokens: 7 },
      },
      requestId: `req_end_${turn}`,
    });
  }
  return { id, lines, turns, toolCalls: calls, failed, start, end: new Date(t - 1000).toISOString() };
}

/** Writes a generated Claude session where Claude Code would: <home>/.claude/projects/<encoded cwd>/<id>.jsonl. */
export function writeClaude(home: string, options: ClaudeOptions = {}): GeneratedSession {
  const s = claudeLines(options);
  const cwd = options.cwd ?? '/home/dev/generated';
  const dir = path.join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${s.id}.jsonl`);
  fs.writeFileSync(file, s.lines.join('\n') + '\n');
  return { ...s, file };
}

/** A Codex rollout as its JSONL lines. */
export function codexLines(options: { id?: string; cwd?: string; start?: Date; turns?: number; seed?: number } = {}): Omit<GeneratedSession, 'file'> {
  const random = rng(options.seed ?? 2);
  const id = options.id ?? uuid(random);
  const cwd = options.cwd ?? '/home/dev/generated';
  let t = (options.start ?? new Date('2026-03-02T09:00:00Z')).getTime();
  const turns = options.turns ?? 3;
  const lines: string[] = [];
  const at = () => new Date((t += 500)).toISOString();
  const start = new Date(t).toISOString();
  lines.push(
    JSON.stringify({
      timestamp: at(),
      type: 'session_meta',
      payload: { id, timestamp: start, cwd, originator: 'codex_cli_rs', cli_version: '0.120.0', source: 'cli', git: { branch: 'main' } },
    }),
  );
  let total = 0;
  for (let turn = 0; turn < turns; turn++) {
    const prompt = `Turn ${turn}: ${sentence(random, 6)}`;
    lines.push(JSON.stringify({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } }));
    lines.push(JSON.stringify({ timestamp: at(), type: 'event_msg', payload: { type: 'user_message', message: prompt, images: [] } }));
    lines.push(JSON.stringify({ timestamp: at(), type: 'turn_context', payload: { cwd, model: 'gpt-5.1-codex-max' } }));
    const callId = `call_${id.slice(0, 8)}_${turn}`;
    lines.push(
      JSON.stringify({
        timestamp: at(),
        type: 'response_item',
        payload: { type: 'function_call', name: 'shell_command', arguments: JSON.stringify({ command: `pnpm test ${turn}`, workdir: cwd }), call_id: callId },
      }),
    );
    total += 1000;
    lines.push(
      JSON.stringify({
        timestamp: at(),
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: { total_token_usage: { input_tokens: total, cached_input_tokens: total / 2, output_tokens: turn + 1, reasoning_output_tokens: 0, total_tokens: total + turn + 1 } },
        },
      }),
    );
    lines.push(
      JSON.stringify({
        timestamp: at(),
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: callId, output: `Exit code: 0\nWall time: 0.1 seconds\nOutput:\n${sentence(random, 10)}` },
      }),
    );
    lines.push(
      JSON.stringify({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: sentence(random, 10) }] } }),
    );
  }
  return { id, lines, turns, toolCalls: turns, failed: 0, start, end: new Date(t).toISOString() };
}

export function writeCodex(home: string, options: { id?: string; cwd?: string; start?: Date; turns?: number; seed?: number } = {}): GeneratedSession {
  const s = codexLines(options);
  const d = new Date(s.start);
  const dir = path.join(home, '.codex', 'sessions', String(d.getUTCFullYear()), String(d.getUTCMonth() + 1).padStart(2, '0'), String(d.getUTCDate()).padStart(2, '0'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `rollout-${s.start.slice(0, 19).replace(/:/g, '-')}-${s.id}.jsonl`);
  fs.writeFileSync(file, s.lines.join('\n') + '\n');
  return { ...s, file };
}
