// Claude Code turns with the tool calls a digest reports (writes, edits, failing commands), appended
// to a generated transcript in Claude Code's own record shapes, as a resumed session appends them.

import * as fs from 'node:fs';
import { rng, uuid } from './traceFiles';

export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
  /** The tool result is an error (is_error: true), as Claude Code records a failed command. */
  error?: boolean;
  output?: string;
}

/** Appends one human turn with these tool calls to a Claude transcript; times start at `at`, a second apart. */
export function appendClaudeTurn(file: string, options: { sessionId: string; cwd: string; at: Date; prompt: string; calls: ToolUse[]; seed?: number }): void {
  const random = rng(options.seed ?? 7);
  let t = options.at.getTime();
  const lines: string[] = [];
  const push = (rec: Record<string, unknown>): void => {
    lines.push(
      JSON.stringify({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: options.cwd,
        sessionId: options.sessionId,
        version: '2.1.140',
        gitBranch: 'main',
        ...rec,
        uuid: uuid(random),
        timestamp: new Date(t).toISOString(),
      }),
    );
    t += 1000;
  };
  push({ type: 'user', message: { role: 'user', content: options.prompt } });
  options.calls.forEach((call, i) => {
    const id = `toolu_${uuid(random).slice(0, 12)}_${i}`;
    const msg = `msg_${uuid(random).slice(0, 12)}`;
    push({
      type: 'assistant',
      requestId: `req_${msg}`,
      message: {
        model: 'claude-opus-4-5-20251101',
        id: msg,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: call.name, input: call.input }],
        usage: { input_tokens: 20, output_tokens: 10 },
      },
    });
    push({
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: id, type: 'tool_result', content: call.output ?? (call.error ? 'Exit code 1\nfailed' : 'ok'), ...(call.error ? { is_error: true } : {}) }],
      },
    });
  });
  push({
    type: 'assistant',
    requestId: `req_end_${t}`,
    message: {
      model: 'claude-opus-4-5-20251101',
      id: `msg_end_${t}`,
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.' }],
      usage: { input_tokens: 5, output_tokens: 5 },
    },
  });
  fs.appendFileSync(file, lines.join('\n') + '\n');
}
