// What agents see besides the tools, through a real SDK client in memory: the instructions of every
// toolset (short, naming only tools that toolset has), the prompts of the common flows, log
// entries, tasks and workflows as resources paged under 30 KB, and the response size caps on
// oversized data (30 KB by default, never over 100 KB).

import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RESOURCE_PAGE_SIZE } from '../../../src/mcp/resources';
import { serverInstructions } from '../../../src/mcp/server';
import { fitResult, RESPONSE_BUDGET, RESPONSE_CEILING } from '../../../src/mcp/toolResult';
import { TOOLSET_NAMES, toolNamesOf, type ToolsetName } from '../../../src/mcp/toolsets';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';

const size = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');
const wide = (n: number): string => 'Größe–€ '.repeat(Math.ceil(n / 8)).slice(0, n);

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string };
    return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
  }
  assert.fail('expected a JSON-RPC error');
}

const text = (r: { messages: { content: { type: string; text?: string } }[] }): string => r.messages.map((m) => m.content.text ?? '').join('\n');

describe('agent-facing: instructions', () => {
  it('explains every toolset in a few lines, naming only tools it serves', () => {
    for (const toolset of TOOLSET_NAMES) {
      const instructions = serverInstructions([toolset], 'demo');
      assert.ok(instructions.length <= 600, `${toolset}: ${instructions.length} characters`);
      const tools = new Set(toolNamesOf(toolset));
      const named = instructions.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];
      assert.ok(named.length > 0, `${toolset} names its tools`);
      for (const name of named) assert.ok(tools.has(name), `${toolset}'s instructions name ${name}, which it does not serve`);
    }
    assert.match(serverInstructions(['progress'], 'demo'), /projectId "demo"/);
  });
});

describe('agent-facing: prompts and resources', function () {
  this.timeout(60_000);
  useTempDirs();
  let c: Connected | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("keeps every toolset's tools/list under 4,000 tokens (characters / 4)", async () => {
    const dir = tempDir();
    for (const toolset of TOOLSET_NAMES) {
      const s = await connectInMemory({ dir, toolsets: [toolset], workspace: dir });
      const tokens = JSON.stringify(await s.client.listTools()).length / 4;
      await s.close();
      assert.ok(tokens < 4000, `${toolset}: ${Math.round(tokens)} tokens`);
    }
  });

  it('offers each flow only where its toolset is served', async () => {
    const dir = tempDir();
    const expected: Record<ToolsetName, string[]> = {
      progress: ['resume_from_log'],
      queue: ['claim_next_task'],
      workflow: ['start_tracked_task'],
      traces: [],
      review: [],
    } as Record<ToolsetName, string[]>;
    for (const toolset of TOOLSET_NAMES) {
      const s = await connectInMemory({ dir, toolsets: [toolset], workspace: dir });
      const caps = s.client.getServerCapabilities() ?? {};
      const names = caps.prompts ? (await s.client.listPrompts()).prompts.map((p) => p.name) : [];
      assert.deepEqual(names, expected[toolset] ?? [], toolset);
      await s.close();
    }
  });

  it('resume_from_log starts the agent with the newest entries of the workspace project', async () => {
    const dir = tempDir();
    c = await connectInMemory({ dir, project: 'shop' });
    const empty = text(await c.client.getPrompt({ name: 'resume_from_log', arguments: {} }));
    assert.match(empty, /has no entry yet/);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = (await c.client.callTool({ name: 'log_progress', arguments: { projectId: 'shop', title: `Step ${i}`, content: 'done', agentId: 'claude' } })) as CallToolResult;
      ids.push((r.structuredContent as { id: string }).id);
    }
    const got = text(await c.client.getPrompt({ name: 'resume_from_log', arguments: { focus: 'checkout' } }));
    assert.match(got, /newest 10 of 12 entries/);
    assert.ok(got.includes(ids[11]!) && !got.includes(ids[0]!), 'the newest ten, by id');
    assert.match(got, /get_context \(projectId "shop"\) on the entries that matter for: checkout/);
    const other = await rpcError(c.client.getPrompt({ name: 'resume_from_log', arguments: { focus: 'x'.repeat(600) } }));
    assert.equal(other.code, -32602);
  });

  it('claim_next_task and start_tracked_task name the project, tools and ids to use', async () => {
    const dir = tempDir();
    c = await connectInMemory({ dir, toolsets: ['queue'] });
    assert.match(text(await c.client.getPrompt({ name: 'claim_next_task', arguments: {} })), /no open task queue project/);
    await c.client.callTool({ name: 'create_project', arguments: { name: 'ops' } });
    await c.client.callTool({ name: 'add_task', arguments: { projectId: 'ops', instructions: 'Rotate logs' } });
    const claim = text(await c.client.getPrompt({ name: 'claim_next_task', arguments: { agentName: 'bot-1' } }));
    assert.match(claim, /Queue project "ops": 1 queued/);
    assert.match(claim, /join_project \(projectId "ops"\), then register_agent with agentName "bot-1"/);
    await c.close();

    c = await connectInMemory({ dir, toolsets: ['workflow'], workspace: dir, project: 'shop' });
    const wf = (await c.client.callTool({ name: 'start_workflow', arguments: { name: 'Checkout', project_id: 'shop' } })) as CallToolResult;
    const workflowId = (wf.structuredContent as { workflow_id: string }).workflow_id;
    await c.client.callTool({ name: 'start_task', arguments: { workflow_id: workflowId, name: 'Cart', goal: 'Cart totals' } });
    const start = text(await c.client.getPrompt({ name: 'start_tracked_task', arguments: { goal: 'Add coupons', areas: 'src/cart, src/coupons' } }));
    assert.match(start, /Goal: Add coupons/);
    assert.ok(start.includes(`reuse a running workflow: ${workflowId} "Checkout"`));
    assert.match(start, /areas \["src\/cart","src\/coupons"\]/);
    assert.equal((await rpcError(c.client.getPrompt({ name: 'start_tracked_task', arguments: {} }))).code, -32602);
  });

  it('lists entries as resources in pages under 30 KB and reads each in full', async () => {
    const dir = tempDir();
    c = await connectInMemory({ dir, project: 'shop' });
    assert.deepEqual(
      (await c.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
      ['agent-progress://entry/{id}'],
    );
    const total = RESOURCE_PAGE_SIZE * 2 + 7;
    for (let i = 0; i < total; i++)
      await c.client.callTool({
        name: 'log_progress',
        arguments: { projectId: 'shop', title: wide(100), content: i === 0 ? '😀'.repeat(10_000) : 'short', tags: Array.from({ length: 10 }, (_, t) => `t${t}-${'x'.repeat(45)}`) },
      });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.client.listResources(cursor ? { cursor } : {});
      assert.ok(size(page) < 30 * 1024, `page ${pages} is ${size(page)} bytes`);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, total, 'every entry once');
    const oldest = seen[seen.length - 1]!;
    const read = await c.client.readResource({ uri: oldest });
    const body = (read.contents[0] as { text: string }).text;
    assert.ok(size(read) < 30 * 1024, `${size(read)} bytes`);
    assert.match(body, /^# Größe/);
    assert.ok(/😀\n\n\[truncated: \d+ more characters\. get_context with includeFull returns the whole entry/.test(body), 'a 40 KB entry is cut, saying where the rest is');
    const missing = await rpcError(c.client.readResource({ uri: 'agent-progress://entry/nope00000000' }));
    assert.equal(missing.code, -32002);
    assert.match(missing.message, /Entry not found: nope00000000/);
    assert.equal((await rpcError(c.client.readResource({ uri: 'agent-progress://task/abc' }))).code, -32002, 'a kind this server does not serve');
    assert.equal((await rpcError(c.client.listResources({ cursor: 'garbage' }))).code, -32602);
  });

  it('reads a task and a workflow as resources', async () => {
    const dir = tempDir();
    c = await connectInMemory({ dir, toolsets: ['queue'] });
    await c.client.callTool({ name: 'create_project', arguments: { name: 'ops' } });
    const added = (await c.client.callTool({ name: 'add_task', arguments: { projectId: 'ops', instructions: 'Rotate logs' } })) as CallToolResult;
    const taskId = (added.structuredContent as { task: { id: string } }).task.id;
    const list = await c.client.listResources();
    assert.deepEqual(
      list.resources.map((r) => r.uri),
      [`agent-progress://task/${taskId}`],
    );
    const task = JSON.parse(((await c.client.readResource({ uri: `agent-progress://task/${taskId}` })).contents[0] as { text: string }).text) as {
      instructions: string;
      attempts: unknown[];
    };
    assert.equal(task.instructions, 'Rotate logs');
    assert.deepEqual(task.attempts, []);
    await c.close();

    c = await connectInMemory({ dir, toolsets: ['workflow'], workspace: dir });
    const wf = (await c.client.callTool({ name: 'start_workflow', arguments: { name: 'Checkout', plan: [{ step: 'Cart', goal: 'Totals' }] } })) as CallToolResult;
    const workflowId = (wf.structuredContent as { workflow_id: string }).workflow_id;
    const t = (await c.client.callTool({ name: 'start_task', arguments: { workflow_id: workflowId, name: 'Cart', goal: 'Cart totals' } })) as CallToolResult;
    await c.client.callTool({
      name: 'log_decision',
      arguments: {
        task_id: (t.structuredContent as { task_id: string }).task_id,
        category: 'library_choice',
        question: 'Which money library?',
        chosen: 'dinero.js',
        reasoning: 'Integer cents',
      },
    });
    const md = ((await c.client.readResource({ uri: `agent-progress://workflow/${workflowId}` })).contents[0] as { text: string }).text;
    assert.match(md, /^# Checkout/);
    assert.match(md, /1\. Cart: Totals/);
    assert.match(md, /\*\*Cart\*\* \(\w+\): in_progress/);
    assert.match(md, /decision: Which money library\? -> dinero\.js \(Integer cents\)/);
  });
});

describe('agent-facing: response size caps', function () {
  this.timeout(120_000);
  useTempDirs();

  it('cuts an oversized default answer under 30 KB, saying so and where the rest is', async () => {
    const dir = tempDir();
    const c = await connectInMemory({ dir, toolsets: ['queue'] });
    try {
      await c.client.callTool({ name: 'create_project', arguments: { name: 'big' } });
      const tasks = Array.from({ length: 60 }, (_, i) => ({ instructions: `${i} ${wide(19_990)}` }));
      await c.client.callTool({ name: 'create_tasks_bulk', arguments: { projectId: 'big', tasks } });
      const listed = (await c.client.callTool({ name: 'list_tasks', arguments: { projectId: 'big' } })) as CallToolResult;
      assert.ok(size(listed) <= RESPONSE_BUDGET, `${size(listed)} bytes`);
      const meta = listed._meta?.['agent-progress/truncated'] as { originalBytes: number; maxStringChars: number };
      assert.ok(meta.originalBytes > 1_000_000, 'it was over a megabyte');
      const structured = listed.structuredContent as { tasks: { id: string; instructions: string }[]; total: number };
      assert.equal(structured.tasks.length, 50, 'every task is still listed');
      assert.equal(structured.total, 60);
      assert.match(structured.tasks[0]!.instructions, /^0 Größe.*…\[truncated: \d+ more characters\]$/s);
      const note = listed.content.at(-1) as { text: string };
      assert.match(note.text, /\[truncated: this answer was \d+ KB; .* under 30 KB\. get_task returns one task in full/);
      // The one task, in full text as long as it fits: the instructions are whole up to the cap.
      const one = (await c.client.callTool({ name: 'get_task', arguments: { taskId: structured.tasks[1]!.id } })) as CallToolResult;
      assert.ok(size(one) <= RESPONSE_BUDGET, `${size(one)} bytes`);
    } finally {
      await c.close();
    }
  });

  it('refuses, as a tool error, an answer that cannot fit the 100 KB ceiling however its strings are cut', () => {
    const many = { content: [{ type: 'text' as const, text: 'x' }], structuredContent: { items: Array.from({ length: 20_000 }, (_, i) => ({ id: `item-${i}` })) } };
    const r = fitResult(many, { tool: 'list_things', budget: 10 * RESPONSE_CEILING });
    assert.equal(r.isError, true);
    assert.match((r.content[0] as { text: string }).text, /list_things would answer \d+ KB, more than the 100 KB one answer may carry\. Ask for less/);
    const wrote = fitResult(many, { tool: 'complete_task', readOnly: false });
    assert.match((wrote.content[0] as { text: string }).text, /^complete_task was done, but its answer \(\d+ KB\) is too large to send .*do not repeat the call/);
    const small = { content: [{ type: 'text' as const, text: 'ok' }] };
    assert.equal(fitResult(small, { tool: 't' }), small, 'small answers pass untouched');
    const big = { content: [{ type: 'text' as const, text: wide(200_000) }] };
    const cut = fitResult(big, { tool: 't', budget: 10 * RESPONSE_CEILING });
    assert.ok(size(cut) <= RESPONSE_CEILING && !cut.isError, 'cut to the ceiling even when a tool asks for more');
  });
});
