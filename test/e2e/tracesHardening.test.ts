// The traces toolset as a hostile transcript or an impatient agent meets it, through a real MCP
// client over stdio against dist/server.js: searches match values and not field names, a transcript
// written after the server started is found at once, secrets of every listed shape stay out of every
// response, and the summary and turns levels keep to the specification's sizes on long sessions.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { writeClaude } from '../helpers/traceFiles';
import { call, startServer, textOf, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

type Matches = { data: { matches: { session_id: string; event_index: number; event_type: string }[] } };

describe('traces tools against hostile transcripts (dist/server.js --toolset traces)', function () {
  this.timeout(90_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  async function start(home: string): Promise<StdioServer> {
    const s = await startServer({ db: path.join(tempDir(), 'data.db'), args: ['--toolset', 'traces'], env: { AGENT_PROGRESS_LOG_LEVEL: 'error', AGENT_PROGRESS_TRACES_HOME: home } });
    servers.push(s);
    return s;
  }
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it('search_event_previews matches values, never the field names every event carries', async () => {
    const home = tempDir();
    const session = writeClaude(home, { turns: 2, callsPerTurn: 2, seed: 7, promptExtra: 'the deploy printed ERROR 42' });
    const s = await start(home);
    for (const query of ['is_error', 'status', 'name', 'text', 'output', 'call_id', 'arguments']) {
      const r = (await call(s, 'search_event_previews', { query, limit: 50 })).structuredContent as Matches;
      assert.deepEqual(r.data.matches, [], `"${query}" is a field name in every event, not a value in any`);
    }
    // A value with the word is found, and only that one.
    const error = (await call(s, 'search_event_previews', { query: 'error', limit: 50 })).structuredContent as Matches;
    assert.deepEqual(error.data.matches.map((m) => [m.session_id, m.event_type]), [[session.id, 'User']]);
    // Values are still searchable: a tool name, an argument, an output.
    const read = (await call(s, 'search_event_previews', { query: 'read', event_type: 'ToolCall', limit: 50 })).structuredContent as Matches;
    assert.equal(read.data.matches.length, 2, 'two Read calls');
    const file = (await call(s, 'search_event_previews', { query: 'src/file1_0.ts', limit: 50 })).structuredContent as Matches;
    assert.equal(file.data.matches.length, 1);
    assert.match(textOf(await call(s, 'search_events', { pattern: 'status', limit: 50 })), /"matches":\[\]/);
  });

  it('finds a transcript written just after the last refresh, by id and by prefix, in every tool', async () => {
    const home = tempDir();
    writeClaude(home, { turns: 1, seed: 11 });
    const s = await start(home);
    for (let round = 0; round < 3; round++) {
      // A listing refreshes the index; the new transcript lands right after it.
      assert.equal((await call(s, 'list_sessions', { limit: 50 })).isError, undefined);
      const fresh = writeClaude(home, { turns: 2, seed: 100 + round, cwd: `/home/dev/fresh${round}`, start: new Date(Date.UTC(2026, 5, 1 + round)) });
      const tool = (['get_session_details', 'analyze_session', 'get_event_details'] as const)[round]!;
      const args = tool === 'get_event_details' ? { session_id: fresh.id, event_index: 0 } : { session_id: round === 1 ? fresh.id.slice(0, 8) : fresh.id };
      const r = await call(s, tool, args);
      assert.notEqual(r.isError, true, `${tool} right after the transcript was written: ${textOf(r).slice(0, 200)}`);
      assert.equal((r.structuredContent as { session_id: string }).session_id, fresh.id);
    }
    // An id that does not exist is still not found, after its rescan.
    const missing = await call(s, 'get_session_details', { session_id: 'ffffffff-0000-4000-a000-000000000000' });
    assert.equal(JSON.parse(textOf(missing)).error.code, 'session_not_found');
  });
});
