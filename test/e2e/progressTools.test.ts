// The progress toolset through a real MCP client over stdio against the built dist/server.js.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startChatServer, type ChatServer } from '../helpers/chatServer';
import { call, rpcError, startServer, textOf, type StdioServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

describe('progress tools over stdio (dist/server.js)', function () {
  this.timeout(60_000);
  useTempDirs();
  const servers: StdioServer[] = [];
  async function start(options: Parameters<typeof startServer>[0]): Promise<StdioServer> {
    const s = await startServer(options);
    servers.push(s);
    return s;
  }
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });

  it("logs a caller's invalid argument, unknown id and unknown tool at debug, never at warn or error", async () => {
    const s = await start({ db: path.join(tempDir(), 'data.db'), env: { AGENT_PROGRESS_LOG_LEVEL: 'debug' } });
    assert.equal((await rpcError(call(s, 'log_progress', { projectId: 'p', title: '', content: 'c' }))).code, -32602);
    assert.equal((await rpcError(call(s, 'get_context', { projectId: 'p', id: 'nosuchid0001' }))).code, -32602);
    assert.equal((await rpcError(call(s, 'no_such_tool', {}))).code, -32602);
    const lines = await waitFor(() => {
      const all = s.stderr().split('\n');
      return all.some((l) => l.includes('unknown tool no_such_tool')) ? all : undefined;
    }, 'the three refusals in the server log');
    const about = (what: RegExp) => lines.filter((l) => what.test(l));
    for (const what of [/log_progress: invalid_argument: /, /get_context: not_found: /, /unknown tool no_such_tool/]) {
      assert.equal(about(what).length, 1, `${what}: ${s.stderr()}`);
      assert.match(about(what)[0]!, /\[debug\]/);
    }
    assert.deepEqual(
      lines.filter((l) => /\[(warn|error)\]/.test(l)),
      [],
      'nothing at warn or error',
    );
  });

  it("logs, finds and summarises an entry with the seed's shapes", async () => {
    const db = path.join(tempDir(), 'data.db');
    const s = await start({ db });
    const logged = await call(s, 'log_progress', {
      projectId: 'mobile-app',
      title: 'Refactored authentication module',
      content: 'I refactored the authentication module to use JWT tokens instead of sessions. All tests pass.',
      tags: ['auth', 'refactor'],
      agentId: 'coding-agent-1',
    });
    const entry = logged.structuredContent as { id: string; projectId: string; title: string; createdAt: string };
    assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'id', 'projectId', 'title']);
    assert.match(entry.id, /^[A-Za-z0-9_-]{12}$/);
    assert.ok(!Number.isNaN(Date.parse(entry.createdAt)));
    assert.equal(textOf(logged), `Logged: Refactored authentication module (ID: ${entry.id}) in project mobile-app`);

    const found = await call(s, 'search_logs', { projectId: 'mobile-app', query: 'auth', startDate: '2000-01-01T00:00:00Z', limit: 5 });
    assert.deepEqual(found.structuredContent, { entries: [{ id: entry.id, title: entry.title, createdAt: entry.createdAt, tags: ['auth', 'refactor'] }], total: 1 });

    const context = await call(s, 'get_context', { projectId: 'mobile-app', id: entry.id });
    const ctx = context.structuredContent as Record<string, unknown>;
    assert.equal(ctx.summarySource, 'fallback');
    assert.equal(ctx.summary, 'I refactored the authentication module to use JWT tokens instead of sessions. All tests pass.');
    assert.equal(ctx.content, undefined);
    assert.equal(ctx.agentId, 'coding-agent-1');
    assert.deepEqual(ctx.tags, ['auth', 'refactor']);
  });

  it("refuses every kind of bad input with -32602 and the seed's messages, changing nothing", async () => {
    const db = path.join(tempDir(), 'data.db');
    const s = await start({ db });
    await call(s, 'log_progress', { projectId: 'p', title: 'kept', content: 'kept' });
    const cases: [string, Record<string, unknown>, string][] = [
      ['log_progress', { title: 't', content: 'c' }, 'projectId is required'],
      ['log_progress', { projectId: 'p', title: 'x'.repeat(101), content: 'c' }, 'title exceeds maximum length of 100 characters'],
      ['log_progress', { projectId: 'p', title: 't', content: '' }, 'content is required and cannot be empty'],
      ['log_progress', { projectId: 'p', title: 't', content: 'x'.repeat(10_001) }, 'content exceeds maximum length of 10000 characters'],
      ['log_progress', { projectId: 'x'.repeat(101), title: 't', content: 'c' }, 'projectId exceeds maximum length of 100 characters'],
      ['log_progress', { projectId: 'p', title: 't', content: 'c', agentId: 'a'.repeat(101) }, 'agentId exceeds maximum length of 100 characters'],
      ['log_progress', { projectId: 'p', title: 't', content: 'c', tags: Array(11).fill('t') }, 'tags exceeds maximum of 10 items'],
      ['log_progress', { projectId: 'p', title: 't', content: 'c', tags: '["auth"]' }, 'tags must be an array of strings'],
      ['search_logs', { projectId: 'p', startDate: '06/15/2025' }, 'Invalid date format for startDate: expected ISO 8601'],
      ['search_logs', { projectId: 'p', endDate: 'tomorrow' }, 'Invalid date format for endDate: expected ISO 8601'],
      ['search_logs', { projectId: 'p', limit: 1000 }, 'limit must be between 1 and 100'],
      ['search_logs', {}, 'projectId is required'],
      ['get_context', { projectId: 'p' }, 'id is required'],
      ['get_context', { projectId: 'p', id: 'nope' }, 'Entry not found: nope in project p. Use search_logs to find ids.'],
    ];
    for (const [tool, args, message] of cases) {
      assert.deepEqual(await rpcError(call(s, tool, args)), { code: -32602, message }, `${tool} ${JSON.stringify(args).slice(0, 80)}`);
    }
    const all = await call(s, 'search_logs', { projectId: 'p' });
    assert.equal((all.structuredContent as { total: number }).total, 1);
    assert.doesNotMatch(s.stderr(), /\n\s+at /, 'no stack trace for refused input');
  });

  it('keeps every entry across a restart', async () => {
    const db = path.join(tempDir(), 'data.db');
    const first = await start({ db });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      ids.push(((await call(first, 'log_progress', { projectId: 'p', title: `entry ${i}`, content: `content ${i}` })).structuredContent as { id: string }).id);
    }
    await first.close();
    servers.splice(servers.indexOf(first), 1);
    const second = await start({ db });
    const found = await call(second, 'search_logs', { projectId: 'p', limit: 100 });
    assert.deepEqual(
      (found.structuredContent as { entries: { id: string }[] }).entries.map((e) => e.id),
      [...ids].reverse(),
    );
  });

  it('stores markup and unicode byte for byte', async () => {
    const db = path.join(tempDir(), 'data.db');
    const s = await start({ db });
    const title = '<script>alert("x")</script> — 😀 日本語 e\u0301 \u200d\u202e';
    const content = '# Heading\n\n| a | b |\n|---|---|\n\n```\n$(rm -rf /) `backticks` \\ \' " \n```\r\n\u0007bell and \ud83d\ude00';
    const { id } = (await call(s, 'log_progress', { projectId: 'p', title, content, tags: ['<i>x</i>', 'ñ'] })).structuredContent as { id: string };
    await s.close();
    servers.pop();
    const again = await start({ db });
    const got = (await call(again, 'get_context', { projectId: 'p', id, includeFull: true })).structuredContent as { title: string; content: string; tags: string[] };
    assert.equal(got.title, title);
    assert.equal(got.content, content);
    assert.deepEqual(got.tags, ['<i>x</i>', 'ñ']);
  });

  describe('summaries by an OpenAI-compatible endpoint', () => {
    let chat: ChatServer;
    const KEY = 'sk-e2e-secret-key-0123456789abcdefghij';
    beforeEach(async () => {
      chat = await startChatServer();
    });
    afterEach(async () => {
      await chat.close();
    });

    it('asks the model once for calls arriving together, and never while searching', async () => {
      const dir = tempDir();
      const db = path.join(dir, 'data.db');
      const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: chat.baseUrl, AGENT_PROGRESS_MODEL: 'loopback-model' };
      const s = await start({ db, env });
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const r = await call(s, 'log_progress', { projectId: 'p', title: `Search target ${i}`, content: `Journal rotation and the webhook ${i}.`, tags: ['ops'] });
        ids.push((r.structuredContent as { id: string }).id);
      }
      for (const args of [
        { text: 'journal' },
        { text: 'webho*' },
        { text: '"the webhook"' },
        { query: 'target' },
        { query: 'get 1', tags: ['ops'] },
        { text: 'rotation -nothing' },
      ]) {
        for (let k = 0; k < 2; k++) {
          const r = await call(s, 'search_logs', { projectId: 'p', limit: 5, ...args });
          assert.ok((r.structuredContent as { total: number }).total > 0, JSON.stringify(args));
        }
      }
      assert.equal(chat.requests.length, 0, 'searching asks no model');
      const together = await Promise.all(Array.from({ length: 6 }, () => call(s, 'get_context', { projectId: 'p', id: ids[3]! })));
      for (const r of together) assert.equal((r.structuredContent as { summary: string }).summary, 'Summarised by the loopback model.');
      assert.equal(chat.requests.length, 1, 'one summary for six calls at once');
      await call(s, 'get_context', { projectId: 'p', id: ids[3]! });
      await call(s, 'search_logs', { projectId: 'p', text: 'journal', limit: 5 });
      assert.equal(chat.requests.length, 1, 'then served from the ledger');
    });

    it('calls the endpoint once, caches, falls back without caching, and never shows the key', async () => {
      const dir = tempDir();
      const db = path.join(dir, 'data.db');
      const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: chat.baseUrl, AGENT_PROGRESS_MODEL: 'loopback-model', AGENT_PROGRESS_LOG_LEVEL: 'debug' };
      const s = await start({ db, env });
      const { id } = (await call(s, 'log_progress', { projectId: 'p', title: 'Cached one', content: 'Long work description.' })).structuredContent as { id: string };
      const outputs: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await call(s, 'get_context', { projectId: 'p', id });
        outputs.push(JSON.stringify(r));
        assert.equal((r.structuredContent as { summary: string }).summary, 'Summarised by the loopback model.');
      }
      assert.equal(chat.requests.length, 1, 'called once, then cached');
      assert.equal(chat.requests[0]!.body.model, 'loopback-model');

      chat.reply = { status: 500, message: 'upstream exploded' };
      const { id: id2 } = (await call(s, 'log_progress', { projectId: 'p', title: 'Fallback one', content: 'Only sentence here.' })).structuredContent as { id: string };
      const fb = await call(s, 'get_context', { projectId: 'p', id: id2 });
      assert.deepEqual(
        [(fb.structuredContent as { summary: string }).summary, (fb.structuredContent as { summarySource: string }).summarySource],
        ['Only sentence here.', 'fallback'],
      );
      outputs.push(JSON.stringify(fb));
      const before = chat.requests.length;
      await call(s, 'get_context', { projectId: 'p', id: id2 });
      assert.ok(chat.requests.length > before, 'the fallback was not cached, so the endpoint is asked again');

      await s.close();
      servers.pop();
      assert.match(s.stderr(), /upstream exploded/);
      for (const text of [...outputs, s.stderr()]) assert.ok(!text.includes(KEY), 'the key appears in output');
      for (const file of fs.readdirSync(dir)) {
        assert.ok(!fs.readFileSync(path.join(dir, file)).includes(Buffer.from(KEY)), `the key appears in ${file}`);
      }
    });

    it('reads the key from a trusted config file (AGENT_PROGRESS_CONFIG) with ${VAR} expansion', async () => {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'agent-progress.config.json'), JSON.stringify({ openai: { apiKey: '${MY_SUMMARY_KEY}', baseUrl: chat.baseUrl, model: 'from-file' } }));
      const s = await start({ db: path.join(dir, 'data.db'), env: { MY_SUMMARY_KEY: KEY, AGENT_PROGRESS_CONFIG: path.join(dir, 'agent-progress.config.json') }, cwd: dir });
      const { id } = (await call(s, 'log_progress', { projectId: 'p', title: 't', content: 'c' })).structuredContent as { id: string };
      await call(s, 'get_context', { projectId: 'p', id });
      assert.equal(chat.requests[0]!.body.model, 'from-file');
      assert.equal(chat.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    });
  });

  it('summarises through a stdio client that offers sampling', async () => {
    let asked = 0;
    const s = await start({
      db: path.join(tempDir(), 'data.db'),
      clientOptions: { capabilities: { sampling: {} } },
      setupClient: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async () => {
          asked++;
          return { role: 'assistant', model: 'm', content: { type: 'text', text: 'Summary from the client model.' } };
        }),
    });
    const { id } = (await call(s, 'log_progress', { projectId: 'p', title: 't', content: 'c' })).structuredContent as { id: string };
    const r = await call(s, 'get_context', { projectId: 'p', id });
    assert.equal((r.structuredContent as { summarySource: string }).summarySource, 'sampling');
    await call(s, 'get_context', { projectId: 'p', id });
    assert.equal(asked, 1);
  });

  it('reports a missing key once on stderr, and it is not an error', async () => {
    const s = await start({ db: path.join(tempDir(), 'data.db') });
    const { id } = (await call(s, 'log_progress', { projectId: 'p', title: 't', content: 'c' })).structuredContent as { id: string };
    await call(s, 'get_context', { projectId: 'p', id });
    await call(s, 'get_context', { projectId: 'p', id });
    assert.equal(s.stderr().match(/OPENAI_API_KEY is not set/g)?.length, 1);
  });
});
