import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateMessageRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { httpSessionSettings, parseArgs } from '../../../src/mcp/main';
import { parseToolsets, TOOLSET_NAMES, toolNamesOf } from '../../../src/mcp/toolsets';
import { serverInstructions } from '../../../src/mcp/server';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';
import { matchSnapshot } from '../../helpers/snapshot';

const SNAPSHOT = path.join(__dirname, '__snapshots__', 'tools-progress.json');

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string };
    return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
  }
  assert.fail('expected a JSON-RPC error');
}

describe('MCP server (in memory, real client)', () => {
  useTempDirs();
  let c: Connected;
  afterEach(async () => {
    await c?.close();
  });

  it('lists the progress tools exactly as the snapshot says', async () => {
    c = await connectInMemory({ dir: tempDir() });
    const { tools } = await c.client.listTools();
    const actual = JSON.stringify(tools, null, 2) + '\n';
    matchSnapshot(SNAPSHOT, actual);
  });

  it('gives every tool all four annotations, an output schema, and a described argument for every field', async () => {
    c = await connectInMemory({ dir: tempDir() });
    const { tools } = await c.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['log_progress', 'get_context', 'search_logs'],
    );
    for (const tool of tools) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        assert.equal(typeof tool.annotations?.[hint], 'boolean', `${tool.name}.${hint}`);
      }
      assert.ok(tool.outputSchema, tool.name);
      assert.ok((tool.description ?? '').length > 80, tool.name);
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok((prop as { description?: string }).description, `${tool.name}.${name} lacks a description`);
      }
    }
    const log = tools.find((t) => t.name === 'log_progress')!;
    assert.deepEqual(log.inputSchema.required, ['projectId', 'title', 'content']);
    assert.equal((log.inputSchema.properties!.title as { maxLength: number }).maxLength, 100);
    assert.equal((log.inputSchema.properties!.content as { maxLength: number }).maxLength, 10000);
    assert.equal((log.inputSchema.properties!.tags as { maxItems: number }).maxItems, 10);
  });

  it("answers with the seed's text and structured content", async () => {
    c = await connectInMemory({ dir: tempDir() });
    const logged = (await c.client.callTool({
      name: 'log_progress',
      arguments: { projectId: 'mobile-app', title: 'Implemented user registration endpoint', content: 'Created POST /api/users.', tags: ['api', 'users'] },
    })) as CallToolResult;
    const out = logged.structuredContent as { id: string; createdAt: string };
    assert.equal((logged.content[0] as { text: string }).text, `Logged: Implemented user registration endpoint (ID: ${out.id}) in project mobile-app`);
    const found = (await c.client.callTool({ name: 'search_logs', arguments: { projectId: 'mobile-app', query: 'user' } })) as CallToolResult;
    assert.equal(
      (found.content[0] as { text: string }).text,
      `Found 1 entry matching 'user' in mobile-app:\n1. ${out.id} - Implemented user registration endpoint (${out.createdAt.slice(0, 10)})`,
    );
    assert.deepEqual(found.structuredContent, {
      entries: [{ id: out.id, title: 'Implemented user registration endpoint', createdAt: out.createdAt, tags: ['api', 'users'] }],
      total: 1,
    });
  });

  it("refuses bad arguments with JSON-RPC -32602 and the seed's message", async () => {
    c = await connectInMemory({ dir: tempDir() });
    assert.deepEqual(await rpcError(c.client.callTool({ name: 'log_progress', arguments: { projectId: 'p', title: 'x'.repeat(101), content: 'c' } })), {
      code: -32602,
      message: 'title exceeds maximum length of 100 characters',
    });
    assert.deepEqual(await rpcError(c.client.callTool({ name: 'log_progress', arguments: { title: 't', content: 'c' } })), { code: -32602, message: 'projectId is required' });
    assert.deepEqual(await rpcError(c.client.callTool({ name: 'search_logs', arguments: { projectId: 'p', startDate: 'last week' } })), {
      code: -32602,
      message: 'Invalid date format for startDate: expected ISO 8601',
    });
    assert.deepEqual(await rpcError(c.client.callTool({ name: 'get_context', arguments: { projectId: 'mobile-app', id: 'x7k9m2p4q1w3' } })), {
      code: -32602,
      message: 'Entry not found: x7k9m2p4q1w3 in project mobile-app. Use search_logs to find ids.',
    });
    const unknown = await rpcError(c.client.callTool({ name: 'delete_everything', arguments: {} }));
    assert.equal(unknown.code, -32602);
    assert.match(unknown.message, /Unknown tool: delete_everything\. This server offers log_progress, get_context, search_logs\./);
  });

  it("summarises through the client's model when it offers sampling, then caches", async () => {
    const requests: unknown[] = [];
    c = await connectInMemory({
      dir: tempDir(),
      clientOptions: { capabilities: { sampling: {} } },
      setupClient: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          requests.push(request.params);
          return { role: 'assistant', model: 'client-model', content: { type: 'text', text: 'Refactored auth to JWT; tests pass.' } };
        }),
    });
    const { structuredContent } = (await c.client.callTool({ name: 'log_progress', arguments: { projectId: 'p', title: 'Auth', content: 'Moved to JWT.' } })) as CallToolResult;
    const id = (structuredContent as { id: string }).id;
    const first = (await c.client.callTool({ name: 'get_context', arguments: { projectId: 'p', id } })) as CallToolResult;
    assert.equal((first.structuredContent as { summary: string }).summary, 'Refactored auth to JWT; tests pass.');
    assert.equal((first.structuredContent as { summarySource: string }).summarySource, 'sampling');
    assert.equal((first.content[0] as { text: string }).text, 'Refactored auth to JWT; tests pass.');
    await c.client.callTool({ name: 'get_context', arguments: { projectId: 'p', id } });
    assert.equal(requests.length, 1);
    const params = requests[0] as { maxTokens: number; systemPrompt: string; messages: { content: { text: string } }[] };
    assert.equal(params.maxTokens, 150);
    assert.match(params.systemPrompt, /technical summariser/);
    assert.equal(params.messages[0]!.content.text, 'Title: Auth\n\nContent:\nMoved to JWT.');
  });

  it('falls back to an extract, not cached, when the client refuses sampling', async () => {
    let calls = 0;
    c = await connectInMemory({
      dir: tempDir(),
      clientOptions: { capabilities: { sampling: {} } },
      setupClient: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async () => {
          calls++;
          throw new Error('User rejected sampling request');
        }),
    });
    const { structuredContent } = (await c.client.callTool({ name: 'log_progress', arguments: { projectId: 'p', title: 'T', content: 'Did it. Done.' } })) as CallToolResult;
    const id = (structuredContent as { id: string }).id;
    for (let i = 0; i < 2; i++) {
      const r = (await c.client.callTool({ name: 'get_context', arguments: { projectId: 'p', id, includeFull: true } })) as CallToolResult;
      assert.deepEqual(
        { summary: (r.structuredContent as { summary: string }).summary, source: (r.structuredContent as { summarySource: string }).summarySource },
        { summary: 'Did it. Done.', source: 'fallback' },
      );
      assert.equal((r.content[0] as { text: string }).text, 'Did it. Done.\n\n--- Full content ---\nDid it. Done.');
    }
    assert.equal(calls, 2, 'the fallback is not cached, so sampling is asked again');
  });

  it('does not open the ledger until a tool needs it', async () => {
    c = await connectInMemory({ dir: tempDir() });
    await c.client.listTools();
    assert.equal(c.services.opened, false);
    assert.equal(fs.existsSync(c.dbPath + '.journal'), false);
    await c.client.callTool({ name: 'search_logs', arguments: { projectId: 'p' } });
    assert.equal(c.services.opened, true);
  });
});

describe('server arguments', () => {
  it('parses toolsets and refuses unknown ones and options', () => {
    assert.deepEqual(parseArgs(['--toolset', 'progress']).toolsets, ['progress']);
    assert.deepEqual(parseArgs(['--toolset=progress,progress']).toolsets, ['progress']);
    assert.deepEqual(parseArgs([]).toolsets, ['progress']);
    assert.deepEqual(parseToolsets('progress,queue'), ['progress', 'queue']);
    assert.throws(() => parseArgs(['--toolset', 'nope']), /Unknown toolset "nope"\. Available: progress, queue/);
    assert.throws(() => parseArgs(['--toolset']), /--toolset needs a value/);
    assert.throws(() => parseArgs(['--frobnicate']), /Unknown option --frobnicate/);
    assert.equal(parseArgs(['--db', '/x/y.db']).db, '/x/y.db');
    // HTTP sessions: the flag wins over the environment, which wins over the default.
    assert.deepEqual(httpSessionSettings(parseArgs([]), {}), { maxSessions: 200, sessionIdleMs: 24 * 3600_000 });
    assert.deepEqual(httpSessionSettings(parseArgs(['--max-sessions=7']), { AGENT_PROGRESS_HTTP_MAX_SESSIONS: '9', AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES: '1.5' }), {
      maxSessions: 7,
      sessionIdleMs: 90_000,
    });
    assert.throws(() => parseArgs(['--session-idle-minutes', '-1']), /--session-idle-minutes needs a number of minutes above 0/);
    assert.throws(
      () => httpSessionSettings(parseArgs([]), { AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES: 'never' }),
      /AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES needs a number of minutes above 0/,
    );
  });

  it('tells the model about the toolsets served, naming only tools they have', () => {
    for (const toolset of TOOLSET_NAMES) {
      const text = serverInstructions([toolset], 'acme');
      const named = text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];
      assert.ok(named.length >= 2, `${toolset}: names its tools`);
      for (const name of named) assert.ok(toolNamesOf(toolset).includes(name), `${toolset} instructions name ${name}, which it does not have`);
    }
    assert.match(serverInstructions(['progress'], 'acme'), /projectId "acme"/);
    assert.doesNotMatch(serverInstructions(['workflow'], undefined), /search_logs/);
  });

  it('refuses two toolsets that define the same tool, and leaves one out of "all" with a reason', () => {
    assert.throws(
      () => parseToolsets('queue,workflow'),
      /Toolsets queue and workflow both define complete_task; run them as separate servers \(--toolset queue and --toolset workflow\)/,
    );
    const args = parseArgs(['--toolset', 'all']);
    assert.deepEqual(args.toolsets, ['progress', 'queue', 'traces', 'review']);
    assert.deepEqual(args.skipped, [{ toolset: 'workflow', tool: 'complete_task', with: 'queue' }]);
    assert.deepEqual(parseToolsets('workflow,progress,traces'), ['workflow', 'progress', 'traces']);
  });
});
