// The traces toolset through a real MCP client (in memory) on the shared fixtures: the contract
// (tools/list snapshot), every tool, the specification's structured errors, cursors walked while files are
// appended, redaction in every response, and the link to what agents logged in the ledger.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyTree, FIXTURE_HOME, writeClaude, writeCodex } from '../../helpers/traceFiles';
import { connectTraces, wireBytes, type TraceClient } from '../../helpers/traceServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';
import { matchSnapshot } from '../../helpers/snapshot';

const SNAPSHOT = path.join(__dirname, '__snapshots__', 'tools-traces.json');
const C1 = '3c02559b-3c42-4cdd-b64e-2ec636ec8a8f';
const C2 = '9c7f60c1-3c64-4c18-ab7e-bb9753542852';
const X1 = '019df5b8-f0b4-71fb-85dd-aa841d6d20ab';
const X4 = '019df5bb-23af-7702-b35b-8f8a44ece40f';
const X2 = '019e0165-cb8d-785e-ab4d-9a0f69dd2422';
const G1 = '2a7b4f2a-ea33-452e-bedb-619012b5d460';
const G2 = '5776bca4-cd1a-437a-adae-f038239843da';
const V1 = '57724b1a-4a51-4749-8570-bac83eb8aee0';
const V2 = '83e150a6-f6ab-4e15-9790-8e35cae2c9e4';
const NEWEST_FIRST = [G2, G1, V2, V1, X2, C2, X1, C1];

type Listing = {
  sessions: {
    id: string;
    provider: string;
    turn_count: number;
    tool_calls: number;
    failed_tool_calls: number;
    total_tokens: number;
    score: number;
    snippet: string;
    title: string | null;
    subagents: number;
    start_time: string;
  }[];
  next_cursor: string | null;
  has_more: boolean;
  total_in_page: number;
  hint: string;
};

describe('traces toolset (in memory, real client)', () => {
  useTempDirs();
  let c: TraceClient;
  afterEach(async () => {
    await c?.close();
  });

  it('lists the traces tools exactly as the snapshot says', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const { tools } = await c.client.listTools();
    const actual = JSON.stringify(tools, null, 2) + '\n';
    matchSnapshot(SNAPSHOT, actual);
  });

  it("offers the seed's seven tools, read-only, each with an output schema and described arguments", async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const { tools } = await c.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['list_sessions', 'get_project_info', 'get_session_details', 'analyze_session', 'search_event_previews', 'get_event_details', 'search_events'],
    );
    for (const tool of tools) {
      assert.deepEqual(
        [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint, tool.annotations?.idempotentHint, tool.annotations?.openWorldHint],
        [true, false, true, false],
        tool.name,
      );
      assert.ok(tool.outputSchema, tool.name);
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) assert.ok((prop as { description?: string }).description, `${tool.name}.${name}`);
    }
    assert.match(tools.find((t) => t.name === 'search_events')!.description!, /^Deprecated: use search_event_previews/);
    const details = tools.find((t) => t.name === 'get_session_details')!;
    assert.deepEqual((details.inputSchema.properties!.detail_level as { enum: string[] }).enum, ['summary', 'turns', 'steps', 'full']);
    assert.deepEqual(details.inputSchema.required, ['session_id']);
  });

  it("lists sessions newest first, text and structured content alike, with the seed's fields", async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const r = await c.call('list_sessions', { limit: 50 });
    const page = r.structuredContent as Listing;
    assert.deepEqual(JSON.parse((r.content[0] as { text: string }).text), page, 'the text is the same JSON');
    assert.deepEqual(
      page.sessions.map((s) => s.id),
      NEWEST_FIRST,
    );
    assert.equal(page.next_cursor, null);
    assert.equal(page.has_more, false);
    const c1 = page.sessions.find((s) => s.id === C1)!;
    assert.deepEqual(
      {
        provider: c1.provider,
        turns: c1.turn_count,
        calls: c1.tool_calls,
        failed: c1.failed_tool_calls,
        tokens: c1.total_tokens,
        score: c1.score,
        subagents: c1.subagents,
        title: c1.title,
      },
      { provider: 'claude_code', turns: 6, calls: 10, failed: 1, tokens: 320368, score: 92, subagents: 1, title: 'Cart coupon codes: applyCoupon(), tests, README' },
    );
    assert.equal(c1.snippet, 'カートにクーポンコード機能を追加したい。まず src/cart/cart.ts を読んで構造を説明して 🛒');
  });

  it('filters by provider, project hash prefix and time range', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const ids = async (args: Record<string, unknown>) => (await c.ok<Listing>('list_sessions', { limit: 50, ...args })).sessions.map((s) => s.id);
    assert.deepEqual(await ids({ provider: 'codex' }), [X2, X1]);
    assert.deepEqual(await ids({ provider: 'vscode_copilot' }), [V2, V1]);
    assert.deepEqual(await ids({ project_hash: '56039C3C' }), NEWEST_FIRST);
    assert.deepEqual(await ids({ project_hash: 'ffff' }), []);
    assert.deepEqual(await ids({ since: '2026-05-10T12:01:00Z', until: '2026-05-12' }), [G1, V2]);
  });

  it('walks pages to the end with no duplicate and no gap while sessions arrive and files grow', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    c = await connectTraces(home, tempDir());
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await c.ok<Listing>('list_sessions', { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.sessions.map((s) => s.id));
      pages++;
      // Between pages: a newer session, an older one, and a grown transcript.
      writeCodex(home, { start: new Date(Date.UTC(2026, 6, pages)), seed: 100 + pages });
      writeClaude(home, { start: new Date(Date.UTC(2020, 0, pages)), seed: 200 + pages, cwd: '/home/dev/old' });
      fs.appendFileSync(
        path.join(home, '.claude', 'projects', '-home-dev-acme-shop', `${C1}.jsonl`),
        JSON.stringify({
          type: 'user',
          sessionId: C1,
          cwd: '/home/dev/acme-shop',
          message: { role: 'user', content: `more ${pages}` },
          timestamp: `2026-05-04T02:0${pages}:00.000Z`,
        }) + '\n',
      );
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
      assert.ok(pages < 50, 'the walk ends');
    }
    assert.equal(new Set(seen).size, seen.length, `no duplicates in ${seen.join(', ')}`);
    for (const id of NEWEST_FIRST) assert.ok(seen.includes(id), `${id} was listed`);
    assert.deepEqual(seen.slice(0, 8), NEWEST_FIRST, 'the sessions present when the walk began come in order');
    assert.ok(seen.length > 8, 'older sessions that arrived during the walk come at the end');
  });

  it("answers bad arguments with the seed's structured invalid_parameter error, never a protocol error", async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    assert.deepEqual(await c.error('list_sessions', { limit: 0 }), { code: 'invalid_parameter', message: 'limit must be between 1 and 50', details: {}, retryable: false });
    assert.equal((await c.error('list_sessions', { provider: 'cursor' })).message, 'provider must be one of claude_code, codex, gemini, vscode_copilot');
    assert.equal((await c.error('list_sessions', { since: 'yesterday' })).message, 'Invalid date format for since: expected ISO 8601');
    assert.match((await c.error('list_sessions', { sessionId: 'x' })).message, /^Unknown argument "sessionId"; accepted: limit, cursor, provider, project_hash, since, until$/);
    assert.equal((await c.error('get_session_details', {})).message, 'session_id is required');
    assert.equal((await c.error('get_session_details', { session_id: C1, detail_level: 'everything' })).message, 'detail_level must be one of summary, turns, steps, full');
    assert.equal((await c.error('get_event_details', { session_id: C1, event_index: -1 })).message, 'event_index must be a whole number, 0 or more');
    assert.equal((await c.error('search_event_previews', { query: '   ' })).message, 'query is required and cannot be empty');
    const raw = await c.call('list_sessions', { limit: 0 });
    assert.equal(raw.isError, true);
    assert.deepEqual(JSON.parse((raw.content[0] as { text: string }).text), {
      error: { code: 'invalid_parameter', message: 'limit must be between 1 and 50', details: {}, retryable: false },
    });
  });

  it("finds sessions by unique prefix; an unknown id and an ambiguous prefix get the seed's errors", async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const byPrefix = await c.ok<{ session_id: string }>('get_session_details', { session_id: '3c02559b' });
    assert.equal(byPrefix.session_id, C1);
    assert.deepEqual(await c.error('analyze_session', { session_id: 'fb3c' }), {
      code: 'session_not_found',
      message: 'Session not found: fb3c. Use list_sessions to find session ids.',
      details: { session_id: 'fb3c' },
      retryable: false,
    });
    assert.deepEqual(await c.error('get_session_details', { session_id: '019df5b' }), {
      code: 'ambiguous_session_prefix',
      message: "Session ID prefix '019df5b' matches 2 sessions. Provide more characters.",
      details: { prefix: '019df5b', matches: [X4, X1] },
      retryable: false,
    });
    assert.equal((await c.ok<{ session_id: string }>('analyze_session', { session_id: '019df5bb' })).session_id, X4, 'a child session is addressable too');
  });

  it('refuses an event index past the end and a cursor from elsewhere', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    assert.deepEqual(await c.error('get_event_details', { session_id: '3c02559b', event_index: 999 }), {
      code: 'invalid_event_index',
      message: `Event index 999 out of bounds for session ${C1} (max: 54)`,
      details: { session_id: C1, requested_index: 999, max_index: 54 },
      retryable: false,
    });
    const page = await c.ok<Listing>('list_sessions', { limit: 1 });
    assert.equal((await c.error('list_sessions', { limit: 1, provider: 'codex', cursor: page.next_cursor })).code, 'invalid_cursor');
    assert.equal((await c.error('search_event_previews', { query: 'x', cursor: page.next_cursor })).code, 'invalid_cursor');
    assert.equal((await c.error('list_sessions', { cursor: 'garbage' })).code, 'invalid_cursor');
  });

  it('discloses a session progressively: summary, turns, steps (cut to 500), full', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const summary = await c.ok<{
      stats: Record<string, unknown>;
      children: { id: string; kind: string }[];
      turns: { id: string; step_count: number; failed_tools: number }[];
      hint: string;
    }>('get_session_details', { session_id: C1 });
    assert.deepEqual(
      {
        turns: summary.stats.total_turns,
        tokens: summary.stats.total_tokens,
        duration: summary.stats.duration_seconds,
        calls: summary.stats.tool_calls,
        failed: summary.stats.failed_tool_calls,
      },
      { turns: 6, tokens: 320368, duration: 228, calls: 10, failed: 1 },
    );
    assert.deepEqual(
      summary.children.map((ch) => [ch.id, ch.kind]),
      [['agent-a7f3c21', 'subagent']],
    );
    assert.deepEqual(
      summary.turns.map((t) => t.id),
      ['turn-0', 'turn-1', 'turn-2', 'turn-3', 'turn-4', 'turn-5'],
    );
    assert.deepEqual(
      summary.turns.map((t) => t.failed_tools),
      [0, 1, 0, 0, 0, 0],
    );
    assert.match(summary.hint, /detail_level='turns'/);

    const turns = await c.ok<{ turns: { outcome: string; key_actions: string[]; steps: { summary: string; failed_tools: number }[] }[] }>('get_session_details', {
      session_id: C1,
      detail_level: 'turns',
    });
    assert.deepEqual(
      turns.turns.map((t) => t.outcome),
      ['success', 'partial', 'success', 'success', 'success', 'success'],
    );
    assert.equal(turns.turns[1]!.steps[1]!.summary, 'Bash npx tsc --noEmit (failed)');
    assert.deepEqual(turns.turns[1]!.key_actions, ['Used tools: Edit, Bash', '1 failed: Bash npx tsc --noEmit']);

    const steps = await c.ok<{
      turns: { steps: { tools: { call: { name: string; arguments: Record<string, string> }; result: { content: string; is_error: boolean } | null }[] }[] }[];
    }>('get_session_details', { session_id: C1, detail_level: 'steps' });
    const read = steps.turns[0]!.steps[0]!.tools[0]!;
    assert.equal(read.call.name, 'Read');
    assert.match(read.result!.content, /…\[\+\d+ chars\]$/, 'the file read is cut to 500 characters');
    const failed = steps.turns[1]!.steps[1]!.tools[0]!;
    assert.equal(failed.result!.is_error, true);
    assert.match(failed.result!.content, /TS2339/);

    const full = await c.ok<{ turns: { steps: { tools: { result: { content: string } | null }[] }[] }[] }>('get_session_details', { session_id: C1, detail_level: 'full' });
    const readFull = full.turns[0]!.steps[0]!.tools[0]!.result!.content;
    assert.doesNotMatch(readFull, /…\[\+\d+ chars\]$/);
    assert.ok(readFull.length > 500);
  });

  it('analyzes health: failures, loops and a score explained point by point', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    type A = {
      score: number;
      insights: { lens: string; severity: string; impact: number; turn_index: number | null; message: string }[];
      score_breakdown: { points: number }[];
      summary: { event_counts: Record<string, number>; loops?: { tool: string; count: number }[]; longest_identical_run: number; malformed_lines: number };
    };
    const c2 = await c.ok<A>('analyze_session', { session_id: C2, include_loops: true });
    assert.equal(c2.score, 45);
    assert.equal(
      100 - c2.score,
      c2.insights.reduce((n, i) => n + i.impact, 0),
      'the insights explain every point',
    );
    assert.deepEqual(
      c2.insights.map((i) => [i.lens, i.severity, i.impact]),
      [
        ['Failures', 'Critical', 40],
        ['Loops', 'Critical', 15],
        ['TokenUsage', 'Info', 0],
      ],
    );
    assert.deepEqual(
      c2.summary.loops!.map((l) => [l.tool, l.count]),
      [['Bash', 5]],
    );
    assert.equal(c2.summary.malformed_lines, 1);
    const byDefault = await c.ok<A>('analyze_session', { session_id: C2 });
    assert.ok(!byDefault.insights.some((i) => i.lens === 'Loops'), 'loops are listed on request (include_loops defaults to false)');
    assert.equal(byDefault.score, 45, 'and still counted');
    const c1 = await c.ok<A>('analyze_session', { session_id: C1 });
    assert.deepEqual(c1.summary.event_counts, { user_messages: 6, assistant_messages: 7, reasoning: 1, tool_calls: 10, tool_results: 10, token_usage: 18, notifications: 3 });
    assert.equal(c1.score, 92);
    const g2 = await c.ok<A>('analyze_session', { session_id: G2, include_loops: true });
    assert.equal(g2.score, 77);
    assert.match(g2.insights.find((i) => i.severity === 'Warning')!.message, /^4 commands exited non-zero without being reported as failed/);
  });

  it('searches events with typed previews, filters and a cursor, then retrieves one whole', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    type S = {
      data: { matches: { session_id: string; event_index: number; event_type: string; preview: Record<string, unknown> }[] };
      pagination: { next_cursor: string | null; has_more: boolean; total_in_page: number };
      hint: string;
    };
    const calls = await c.ok<S>('search_event_previews', { query: 'npx tsc', event_type: 'ToolCall', session_id: '3c02' });
    assert.deepEqual(
      calls.data.matches.map((m) => [m.session_id, m.event_type, m.preview.tool]),
      [
        [C1, 'ToolCall', 'Bash'],
        [C1, 'ToolCall', 'Bash'],
      ],
    );
    assert.deepEqual(calls.data.matches[0]!.preview.arguments, { command: 'npx tsc --noEmit', description: 'Type-check the project' });
    const results = await c.ok<S>('search_event_previews', { query: 'TS2339', event_type: 'ToolResult' });
    assert.equal(results.data.matches.length, 1);
    assert.equal(results.data.matches[0]!.preview.is_error, true);
    const detail = await c.ok<{ event_type: string; payload: { output: string; is_error: boolean }; turn_index: number }>('get_event_details', {
      session_id: C1.slice(0, 8),
      event_index: results.data.matches[0]!.event_index,
    });
    assert.equal(detail.event_type, 'ToolResult');
    assert.equal(detail.payload.is_error, true);
    assert.equal(
      detail.payload.output,
      "src/cart/cart.ts(20,10): error TS2339: Property 'coupons' does not exist on type 'Cart'.\nsrc/cart/cart.ts(18,15): error TS2304: Cannot find name 'coupons'.",
    );
    assert.equal(detail.turn_index, 1);

    const all = await c.ok<S>('search_event_previews', { query: 'npm', limit: 50 });
    const walked: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page: S = await c.ok<S>('search_event_previews', { query: 'npm', limit: 3, ...(cursor ? { cursor } : {}) });
      walked.push(...page.data.matches.map((m) => `${m.session_id}#${m.event_index}`));
      cursor = page.pagination.next_cursor;
    } while (cursor);
    assert.ok(all.data.matches.length > 6);
    assert.deepEqual(
      walked,
      all.data.matches.map((m) => `${m.session_id}#${m.event_index}`),
    );
    const gemini = await c.ok<S>('search_event_previews', { query: 'npm', provider: 'gemini', limit: 50 });
    assert.ok(gemini.data.matches.every((m) => m.session_id === G1 || m.session_id === G2));
  });

  it('keeps the deprecated search_events working, and says so', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const r = await c.ok<{ matches: { payload?: { name: string } }[]; deprecated: boolean; hint: string }>('search_events', {
      pattern: 'playwright',
      event_type: 'ToolCall',
      include_full_payload: true,
    });
    assert.equal(r.deprecated, true);
    assert.equal(r.matches.length, 5);
    assert.equal(r.matches[0]!.payload!.name, 'Bash');
    assert.match(r.hint, /^Deprecated: use search_event_previews/);
  });

  it('redacts the secrets in every response of every tool, at every level', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const secrets = /FAKE0000acme|sk-test-FAKE|sk_test_FAKE51|DoNotUse123/;
    const responses: unknown[] = [];
    responses.push(await c.call('list_sessions', { limit: 50 }));
    for (const level of ['summary', 'turns', 'steps', 'full']) responses.push(await c.call('get_session_details', { session_id: V2, detail_level: level }));
    responses.push(await c.call('analyze_session', { session_id: V2, include_loops: true }));
    for (const query of ['OPENAI_API_KEY', 'STRIPE_SECRET_KEY', 'key loaded', 'sk-test']) {
      responses.push(await c.call('search_event_previews', { query }));
      responses.push(await c.call('search_events', { pattern: query, include_full_payload: true }));
    }
    const search = await c.ok<{ data: { matches: { session_id: string; event_index: number }[] } }>('search_event_previews', { query: 'OPENAI_API_KEY' });
    assert.equal(search.data.matches.length, 1, "the secret's name is searchable");
    for (let i = 0; i < 14; i++) responses.push(await c.call('get_event_details', { session_id: V2, event_index: i }));
    const found = await c.ok<{ data: { matches: unknown[] } }>('search_event_previews', { query: 'FAKE0000' });
    assert.equal(found.data.matches.length, 0, 'the secret itself is not');
    for (const r of responses) assert.doesNotMatch(JSON.stringify(r), secrets);
    assert.match(JSON.stringify(responses), /OPENAI_API_KEY=\[REDACTED\]/);
  });

  it('lists projects with their hash, folder, sessions per provider and last activity', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    const r = await c.ok<{ projects: unknown[] }>('get_project_info', {});
    assert.deepEqual(r.projects, [
      {
        hash: '56039c3cf848a15ff538969f95a7dc603e689b117131a26c190146b074c3177b',
        root_path: '/home/dev/acme-shop',
        session_count: 8,
        last_activity: '2026-05-14T07:43:41.220Z',
        providers: { gemini: 2, vscode_copilot: 2, codex: 2, claude_code: 2 },
        name: 'acme-shop',
      },
    ]);
  });

  it('opens a ledger session beside its transcript: what was logged, tracked and queued in the project while it ran', async () => {
    const home = tempDir();
    const started = new Date(Date.now() - 60_000);
    const s = writeClaude(home, { start: started, cwd: '/home/dev/shop-api', turns: 2 });
    c = await connectTraces(home, tempDir());
    const progress = await c.services.progress();
    const logged = await progress.logProgress({ projectId: 'shop-api', title: 'Fixed the checkout total', content: 'Rounding moved to cents.', agentId: 'claude-code' });
    await progress.logProgress({ projectId: 'other-project', title: 'Unrelated', content: 'x' });
    const workflow = await (await c.services.workflow()).startWorkflow({ name: 'Checkout rounding', project_id: 'shop-api' });
    const queue = await c.services.queue();
    const queued = await queue.addTask({ projectId: 'shop-api', instructions: 'Check the totals' }, { kind: 'operator', name: 'test' });
    const summary = await c.ok<{ ledger: { toolset: string; id: string; title: string; projectId: string; agentId: string | null }[] }>('get_session_details', {
      session_id: s.id,
      include_ledger: true,
    });
    const byToolset = (toolset: string) => summary.ledger.filter((l) => l.toolset === toolset).map((l) => [l.id, l.title, l.projectId, l.agentId]);
    assert.deepEqual(byToolset('progress'), [[logged.id, 'Fixed the checkout total', 'shop-api', 'claude-code']]);
    assert.deepEqual(byToolset('workflow'), [[workflow.workflow_id, 'Checkout rounding', 'shop-api', null]]);
    assert.ok(
      byToolset('queue').some(([id]) => id === queued.task.id),
      JSON.stringify(summary.ledger),
    );
    assert.ok(!summary.ledger.some((l) => l.projectId === 'other-project'));
    const without = await c.ok<{ ledger?: unknown }>('get_session_details', { session_id: s.id });
    assert.equal(without.ledger, undefined);
    const traces = await c.services.traces();
    assert.deepEqual(
      (await traces.transcriptsFor('shop-api', logged.createdAt)).map((t) => t.id),
      [s.id],
    );
    assert.deepEqual(await traces.transcriptsFor('other-project', logged.createdAt), []);
  });

  it('does not open the ledger for the traces tools unless asked', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    await c.ok('list_sessions', {});
    await c.ok('get_session_details', { session_id: C1, detail_level: 'steps' });
    assert.equal(c.services.opened, false);
  });

  it('keeps every fixture response small: list and summaries far under the cap', async () => {
    c = await connectTraces(FIXTURE_HOME, tempDir());
    assert.ok(wireBytes(await c.call('list_sessions', { limit: 10 })) < 20_000);
    assert.ok(wireBytes(await c.call('get_session_details', { session_id: C1 })) < 15_000);
    assert.ok(wireBytes(await c.call('analyze_session', { session_id: C2, include_loops: true })) < 10_000);
  });
});
