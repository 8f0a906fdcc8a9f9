// The traces toolset as a hostile transcript or an impatient agent meets it, through a real MCP
// client over stdio against dist/server.js: searches match values and not field names, a transcript
// written after the server started is found at once, secrets of every listed shape stay out of every
// response, and the summary and turns levels keep to the specification's sizes on long sessions.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeLines, writeClaude } from '../helpers/traceFiles';
import { call, startServer, textOf, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

type Matches = { data: { matches: { session_id: string; event_index: number; event_type: string }[] } };

describe('traces tools against hostile transcripts (dist/server.js --toolset traces)', function () {
  this.timeout(90_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  async function start(home: string): Promise<StdioServer> {
    const s = await startServer({
      db: path.join(tempDir(), 'data.db'),
      args: ['--toolset', 'traces'],
      env: { AGENT_PROGRESS_LOG_LEVEL: 'error', AGENT_PROGRESS_TRACES_HOME: home },
    });
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
    assert.deepEqual(
      error.data.matches.map((m) => [m.session_id, m.event_type]),
      [[session.id, 'User']],
    );
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

  it('keeps every listed secret shape out of every response, the title and deep nesting included', async () => {
    const home = tempDir();
    // Each secret with a unique marker, so a leak names itself.
    const secrets: Record<string, string> = {
      queueKey: 'apk_Qm9vM2Zvb2Jhcl9iYXpfcXV4X3NlY3JldF9rZXlfMTIzNDU2',
      bearer: 'authorization: bearer LEAKbearer0123456789',
      urlPassword: 'postgres://app:LEAK@url/pw@db.local:5432/app',
      dbPass: 'DB_PASS=LEAKdbpass1',
      secretKey: 'SECRET_KEY=LEAKsecretkey1',
      mysqlPwd: 'MYSQL_PWD=LEAKmysqlpwd1',
      passwordFlag: 'mysql --password LEAKflagpw1 -h db',
      curl: 'curl -u admin:LEAKcurlpw1 https://api.local',
      jsonKey: '{"secretKey": "LEAKjsonkey1"}',
      pgp: '-----BEGIN PGP PRIVATE KEY BLOCK-----\nLEAKpgpblock1\n-----END PGP PRIVATE KEY BLOCK-----',
      google: 'ya29.LEAKgoogle0123456789abcdefghij',
      slack: 'https://hooks.slack.com/services/T0000LEAK/B00000000/LEAKslack0123456789',
      azure: 'AccountName=acct;AccountKey=LEAKazure0123456789==;EndpointSuffix=core.windows.net',
      jwt: 'eyAiYWxnIjogIkhTMjU2IiB9.eyAic3ViIjogIkxFQUtqd3QiIH0.LEAKjwtsig0123456789',
    };
    const leak = /LEAK|apk_Qm9v|eyAiYWxn/;
    const session = writeClaude(home, { turns: 2, callsPerTurn: 2, seed: 21, promptExtra: Object.values(secrets).join('\n') });
    const at = '2026-03-01T09:00:00.500Z';
    let deep: unknown = { password: 'LEAKdeep1', note: secrets.queueKey };
    for (let i = 0; i < 90; i++) deep = i % 2 === 0 ? { level: deep } : [deep];
    const extra = [
      { type: 'custom-title', customTitle: `deploy with ${secrets.queueKey} and bearer LEAKtitle0123456789`, sessionId: session.id },
      {
        type: 'assistant',
        sessionId: session.id,
        cwd: '/home/dev/generated',
        uuid: 'deep-uuid',
        parentUuid: null,
        timestamp: at,
        message: {
          model: 'claude-opus-4-5-20251101',
          id: 'msg_deep',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_deep', name: 'Configure', input: deep }],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
        requestId: 'req_deep',
      },
    ];
    fs.appendFileSync(session.file, extra.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const s = await start(home);
    const responses: { what: string; text: string }[] = [];
    const keep = async (what: string, name: string, args: Record<string, unknown>) => {
      const r = await call(s, name, args);
      assert.notEqual(r.isError, true, `${what}: ${textOf(r).slice(0, 300)}`);
      responses.push({ what, text: JSON.stringify(r) });
      return r.structuredContent as Record<string, unknown>;
    };
    const list = await keep('list_sessions', 'list_sessions', { limit: 10 });
    assert.match(String((list.sessions as { title: string }[])[0]!.title), /^deploy with \[REDACTED\] and bearer \[REDACTED\]$/);
    for (const level of ['summary', 'turns', 'steps', 'full']) await keep(level, 'get_session_details', { session_id: session.id, detail_level: level });
    await keep('analyze', 'analyze_session', { session_id: session.id, include_loops: true });
    const found = (await keep('search', 'search_event_previews', { query: 'Configure', limit: 50 })) as unknown as Matches;
    assert.equal(found.data.matches.length, 1, 'the deep tool call is found by its name');
    for (let i = 0; i < 12; i++) await keep(`event ${i}`, 'get_event_details', { session_id: session.id, event_index: i });
    const deepEvent = await keep('deep event', 'get_event_details', { session_id: session.id, event_index: found.data.matches[0]!.event_index });
    assert.match(JSON.stringify(deepEvent), /nested deeper than 64 levels/);
    for (const word of ['LEAK', 'admin', 'DB_PASS']) await keep(`search ${word}`, 'search_events', { pattern: word, include_full_payload: true, limit: 50 });
    const leaks = responses.filter((r) => leak.test(r.text)).map((r) => `${r.what}: ${r.text.match(new RegExp(`.{0,40}(?:${leak.source}).{0,20}`))![0]}`);
    assert.deepEqual(leaks, []);
    // What is not a secret is still shown.
    assert.ok(responses.some((r) => r.text.includes('SECRET_KEY=[REDACTED]') && r.text.includes('curl -u admin:[REDACTED]')));
  });

  it('keeps the summary under 15 KB and the turns level under 30 KB on a long session with many sub-agents, paging the rest', async () => {
    const home = tempDir();
    const session = writeClaude(home, { turns: 300, callsPerTurn: 6, seed: 31, promptExtra: 'Long prompt. '.repeat(300) });
    const subagents = path.join(path.dirname(session.file), session.id, 'subagents');
    fs.mkdirSync(subagents, { recursive: true });
    for (let i = 0; i < 60; i++) {
      const child = claudeLines({ turns: 1, seed: 500 + i, start: new Date(Date.UTC(2026, 2, 1, 9, 10, i)), promptExtra: `Sub-task ${i}: ${'check the cart '.repeat(20)}` });
      fs.writeFileSync(path.join(subagents, `agent-a${String(i).padStart(3, '0')}.jsonl`), child.lines.join('\n') + '\n');
    }
    const s = await start(home);
    const walk = async (level: 'summary' | 'turns', cap: number) => {
      const turns: string[] = [];
      const children: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await call(s, 'get_session_details', { session_id: session.id, detail_level: level, ...(cursor ? { cursor } : {}) });
        assert.notEqual(r.isError, true, textOf(r).slice(0, 300));
        const bytes = Buffer.byteLength(JSON.stringify(r), 'utf8');
        assert.ok(bytes <= cap, `${level} page ${pages}: ${bytes} bytes, over ${cap}`);
        const data = r.structuredContent as { turns: { turn_index: number; steps?: { step_index: number }[] }[]; children?: { id: string }[]; next_cursor: string | null };
        for (const t of data.turns) {
          if (level === 'summary') turns.push(String(t.turn_index));
          else for (const st of t.steps!) turns.push(`${t.turn_index}.${st.step_index}`);
        }
        children.push(...(data.children ?? []).map((c) => c.id));
        cursor = data.next_cursor;
        pages++;
        assert.ok(pages < 400, 'pages end');
      } while (cursor);
      return { turns, children, pages };
    };
    const summary = await walk('summary', 15_000);
    assert.equal(new Set(summary.turns).size, summary.turns.length, 'no turn twice');
    assert.equal(summary.turns.length, 300);
    assert.equal(summary.children.length, 60, 'every sub-agent, once');
    assert.equal(new Set(summary.children).size, 60);
    assert.ok(summary.pages > 2, `${summary.pages} pages`);
    const turns = await walk('turns', 30_000);
    assert.equal(new Set(turns.turns).size, turns.turns.length, 'no step twice');
    assert.equal(turns.turns.length, 300 * 7, 'six tool steps and a closing message per turn');
  });
});
