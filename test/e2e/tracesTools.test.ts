// The traces toolset through a real MCP client over stdio against the built dist/server.js: the
// fixtures found through the environment, structured errors, paging while other processes write
// transcripts, and the ledger link across processes (the CLI logs, the server finds it).

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyTree, FIXTURE_HOME, writeClaude, writeCodex } from '../helpers/traceFiles';
import { call, CLI, cleanEnv, startServer, textOf, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

const C1 = '3c02559b-3c42-4cdd-b64e-2ec636ec8a8f';
const X1 = '019df5b8-f0b4-71fb-85dd-aa841d6d20ab';

describe('traces tools over stdio (dist/server.js --toolset traces)', function () {
  this.timeout(60_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  async function start(env: Record<string, string>, db = path.join(tempDir(), 'data.db')): Promise<StdioServer> {
    const s = await startServer({ db, args: ['--toolset', 'traces'], env: { AGENT_PROGRESS_LOG_LEVEL: 'error', ...env } });
    servers.push(s);
    return s;
  }
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it('serves the fixtures found through AGENT_PROGRESS_TRACES_HOME, without opening the ledger', async () => {
    const db = path.join(tempDir(), 'data.db');
    const s = await start({ AGENT_PROGRESS_TRACES_HOME: FIXTURE_HOME }, db);
    const { tools } = await s.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['list_sessions', 'get_project_info', 'get_session_details', 'analyze_session', 'search_event_previews', 'get_event_details', 'search_events'],
    );
    const list = await call(s, 'list_sessions', { limit: 50 });
    assert.equal((list.structuredContent as { sessions: unknown[] }).sessions.length, 8);
    assert.deepEqual(JSON.parse(textOf(list)), list.structuredContent);
    const details = (await call(s, 'get_session_details', { session_id: '3c02559b', detail_level: 'turns' })).structuredContent as { session_id: string; turns: unknown[] };
    assert.equal(details.session_id, C1);
    assert.equal(details.turns.length, 6);
    const found = (await call(s, 'search_event_previews', { query: 'ECONNREFUSED', event_type: 'ToolResult', limit: 1 })).structuredContent as {
      data: { matches: { session_id: string; event_index: number }[] };
      pagination: { has_more: boolean };
    };
    assert.equal(found.pagination.has_more, true, 'five failing syncs');
    const { session_id, event_index } = found.data.matches[0]!;
    const event = (await call(s, 'get_event_details', { session_id, event_index })).structuredContent as { payload: { exit_code: number; is_error: boolean } };
    assert.deepEqual([event.payload.exit_code, event.payload.is_error], [1, true]);
    assert.equal(fs.existsSync(`${db}.journal`), false, 'the traces tools need no ledger');
  });

  it("answers failures with the seed's structured errors over the wire", async () => {
    const s = await start({ AGENT_PROGRESS_TRACES_HOME: FIXTURE_HOME });
    const ambiguous = await call(s, 'analyze_session', { session_id: '019df5b' });
    assert.equal(ambiguous.isError, true);
    const error = JSON.parse(textOf(ambiguous)).error as { code: string; details: { matches: string[] } };
    assert.equal(error.code, 'ambiguous_session_prefix');
    assert.equal(error.details.matches.length, 2);
    const bad = await call(s, 'get_session_details', { session_id: X1, detail_level: 'everything' });
    assert.equal(bad.isError, true);
    assert.deepEqual(JSON.parse(textOf(bad)), {
      error: { code: 'invalid_parameter', message: 'detail_level must be one of summary, turns, steps, full', details: {}, retryable: false },
    });
  });

  it('reads only the providers and folders the environment names', async () => {
    const s = await start({ AGENT_PROGRESS_CLAUDE_HOME: path.join(FIXTURE_HOME, '.claude'), AGENT_PROGRESS_TRACES_PROVIDERS: 'claude_code' });
    const list = (await call(s, 'list_sessions', { limit: 50 })).structuredContent as { sessions: { provider: string }[] };
    assert.deepEqual(
      list.sessions.map((x) => x.provider),
      ['claude_code', 'claude_code'],
    );
  });

  it('pages to the end without duplicates while another process writes new and grown transcripts', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    const s = await start({ AGENT_PROGRESS_TRACES_HOME: home });
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const r = (await call(s, 'list_sessions', { limit: 3, ...(cursor ? { cursor } : {}) })).structuredContent as { sessions: { id: string }[]; next_cursor: string | null };
      seen.push(...r.sessions.map((x) => x.id));
      cursor = r.next_cursor;
      page++;
      writeCodex(home, { start: new Date(Date.UTC(2026, 8, page)), seed: 300 + page });
      fs.appendFileSync(
        path.join(home, '.claude', 'projects', '-home-dev-acme-shop', `${C1}.jsonl`),
        `${JSON.stringify({ type: 'system', subtype: 'note', content: `page ${page}`, timestamp: '2026-05-04T03:00:00.000Z' })}\n`,
      );
    } while (cursor && page < 20);
    assert.equal(cursor, null);
    assert.equal(seen.length, 8);
    assert.equal(new Set(seen).size, 8);
  });

  it('links a session to what the CLI logged in its project while it ran, across processes', async () => {
    const home = tempDir();
    const db = path.join(tempDir(), 'ledger', 'data.db');
    const session = writeClaude(home, { start: new Date(Date.now() - 120_000), cwd: '/srv/work/billing', turns: 2 });
    const out = execFileSync(
      process.execPath,
      [CLI, 'log', '--project', 'billing', '--title', 'Invoice rounding fixed', '--content', 'Cents everywhere.', '--agent', 'claude-code', '--json'],
      {
        env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db }),
      },
    ).toString();
    const logged = JSON.parse(out) as { id: string };
    const s = await start({ AGENT_PROGRESS_TRACES_HOME: home }, db);
    const r = (await call(s, 'get_session_details', { session_id: session.id.slice(0, 8), include_ledger: true })).structuredContent as {
      ledger: { id: string; title: string; toolset: string }[];
    };
    assert.deepEqual(
      r.ledger.map((l) => [l.toolset, l.id, l.title]),
      [['progress', logged.id, 'Invoice rounding fixed']],
    );
  });
});
