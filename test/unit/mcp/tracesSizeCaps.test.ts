// No response over 100 KB, whatever is asked: a generated 50 MB Claude transcript (250 tool
// results of 200 KB) through every tool at every level, pages followed by their cursors, and a
// payload too large for one response read back whole in chunks.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { writeClaude, type GeneratedSession } from '../../helpers/traceFiles';
import { connectTraces, wireBytes, type TraceClient } from '../../helpers/traceServer';
import { tempDir, removeTempDirs } from '../../helpers/tmp';

const CAP = 100_000;

describe('traces response size caps (50 MB transcript)', function () {
  this.timeout(180_000);
  let c: TraceClient;
  let big: GeneratedSession;
  let huge: GeneratedSession;
  const sizes: { what: string; bytes: number }[] = [];

  before(async () => {
    const home = tempDir('ap-trace-big-');
    big = writeClaude(home, { turns: 10, callsPerTurn: 25, outputBytes: 200_000, seed: 50, promptExtra: 'API_KEY=sk-live-0123456789abcdefghijklmnop' });
    huge = writeClaude(home, { turns: 1, callsPerTurn: 1, outputBytes: 3_000_000, seed: 51, start: new Date('2026-02-01T00:00:00Z') });
    assert.ok(fs.statSync(big.file).size > 50_000_000, `the transcript is ${fs.statSync(big.file).size} bytes`);
    c = await connectTraces(home, tempDir());
  });
  after(async () => {
    await c?.close();
    removeTempDirs();
    console.log(
      `      largest responses: ${sizes
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 4)
        .map((s) => `${s.what} ${(s.bytes / 1024).toFixed(1)} KB`)
        .join(', ')}`,
    );
  });

  async function capped(what: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const r = await c.call(name, args);
    const bytes = wireBytes(r);
    sizes.push({ what, bytes });
    assert.ok(bytes <= CAP, `${what}: ${bytes} bytes`);
    assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
    const hint = (r.structuredContent as { hint?: string }).hint ?? '';
    if (bytes >= 12_000) assert.match(hint, /This response is \d+\.\d KB \(cap 97\.7 KB\)/, `${what} reports its size`);
    assert.doesNotMatch(JSON.stringify(r), /sk-live-0123456789/, `${what} is redacted`);
    return r;
  }

  it('lists, summarises and analyses it in small responses', async () => {
    await capped('list_sessions', 'list_sessions', { limit: 50 });
    await capped('get_project_info', 'get_project_info', {});
    const summary = (await capped('summary', 'get_session_details', { session_id: big.id })).structuredContent as { stats: { tool_calls: number; total_turns: number } };
    assert.deepEqual([summary.stats.tool_calls, summary.stats.total_turns], [250, 10]);
    await capped('turns', 'get_session_details', { session_id: big.id, detail_level: 'turns', include_reasoning: true });
    await capped('analyze', 'analyze_session', { session_id: big.id, include_loops: true });
  });

  it('pages the steps level to the end under the cap, every step once', async () => {
    let cursor: string | undefined;
    const seen: string[] = [];
    for (let page = 0; page < 40; page++) {
      const r = await capped(`steps page ${page}`, 'get_session_details', { session_id: big.id, detail_level: 'steps', ...(cursor ? { cursor } : {}) });
      const data = r.structuredContent as { turns: { turn_index: number; steps: { step_index: number }[] }[]; next_cursor: string | null };
      for (const t of data.turns) for (const s of t.steps) seen.push(`${t.turn_index}.${s.step_index}`);
      if (!data.next_cursor) break;
      cursor = data.next_cursor;
    }
    assert.equal(new Set(seen).size, seen.length, 'no step twice');
    assert.equal(seen.length, 10 * 26, 'every step: 25 tool steps and a closing message per turn');
  });

  it('cuts the full level to fit, one oversized step per page, and moves on', async () => {
    let cursor: string | undefined;
    const seen: string[] = [];
    for (let page = 0; page < 4; page++) {
      const r = await capped(`full page ${page}`, 'get_session_details', { session_id: big.id, detail_level: 'full', ...(cursor ? { cursor } : {}) });
      const data = r.structuredContent as { turns: { turn_index: number; steps: { step_index: number }[] }[]; next_cursor: string | null };
      for (const t of data.turns) for (const s of t.steps) seen.push(`${t.turn_index}.${s.step_index}`);
      assert.ok(data.next_cursor);
      cursor = data.next_cursor;
    }
    assert.deepEqual(seen, ['0.0', '0.1', '0.2', '0.3']);
  });

  it('caps searches that match everything', async () => {
    await capped('search previews', 'search_event_previews', { query: 'line', limit: 50 });
    await capped('search_events full payloads', 'search_events', { pattern: 'line', limit: 50, include_full_payload: true });
  });

  it('hands a 3 MB payload over in chunks that add up to the original, each under the cap', async () => {
    const find = (
      await c.ok<{ data: { matches: { session_id: string; event_index: number }[] } }>('search_event_previews', { query: 'line', session_id: huge.id, event_type: 'ToolResult' })
    ).data.matches[0]!;
    const first = (await capped('event details', 'get_event_details', { session_id: huge.id, event_index: find.event_index })).structuredContent as {
      payload: { output: string };
      truncated: { path: string; shown: number; total: number }[];
      next_cursor: string;
    };
    assert.equal(first.truncated[0]!.path, 'output');
    assert.equal(first.truncated[0]!.total, 3_000_000);
    let text = first.payload.output.slice(0, first.truncated[0]!.shown);
    let cursor: string | null = first.next_cursor;
    let chunks = 0;
    while (cursor) {
      const r = (await capped(`event chunk ${chunks}`, 'get_event_details', { session_id: huge.id, event_index: find.event_index, cursor })).structuredContent as {
        chunk: { offset: number; text: string };
        next_cursor: string | null;
      };
      assert.equal(r.chunk.offset, text.length);
      text += r.chunk.text;
      cursor = r.next_cursor;
      chunks++;
      assert.ok(chunks < 400, `${chunks} chunks`);
    }
    const original = JSON.parse(
      fs
        .readFileSync(huge.file, 'utf8')
        .split('\n')
        .find((l) => l.includes('"tool_result"'))!,
    ).message.content[0].content as string;
    assert.equal(text.length, original.length);
    assert.equal(text, original);
  });
});
