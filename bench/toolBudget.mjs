#!/usr/bin/env node
// What each toolset costs a model before any call, and the largest answers it gives: per toolset,
// the tools/list JSON in characters and tokens (characters / 4), the initialize instructions, the
// prompts and resource templates; then every tool called with its default arguments on a ledger
// seeded with the largest values validation accepts, and the largest answer any argument can get.
// Prints a Markdown table, writes bench/results/tool-budget.md and the README between markers.
// Measures through the built dist/server.js over stdio with the SDK's client; never asserts.
//
//   npm run bench:budget          (builds first)   node --import tsx bench/toolBudget.mjs [--no-readme]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..');
const SERVER = path.join(root, 'dist', 'server.js');
const writeReadme = !process.argv.includes('--no-readme');
const say = (m) => process.stderr.write(`${m}\n`);
const TOKEN_BUDGET = 4000;
const DEFAULT_CAP = 30 * 1024;
const HARD_CAP = 100 * 1024;

// The toolsets, their tools, prompts and resource kinds come from the descriptors the server reads.
const { TOOLSET_NAMES, TOOLSETS, toolNamesOf } = await import('../src/mcp/toolsets.ts');
const { writeClaude } = await import('../test/helpers/traceFiles.ts');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-budget-'));
const db = path.join(tmp, 'ledger', 'data.db');
const workspace = path.join(tmp, 'workspace');
const tracesHome = path.join(tmp, 'home');
fs.mkdirSync(workspace, { recursive: true });
fs.mkdirSync(path.dirname(db), { recursive: true });

const bytes = (v) => Buffer.byteLength(JSON.stringify(v), 'utf8');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
// Worst cases the validators accept: long fields of multi-byte text (code points are counted).
const calls = [];
const wide = (n) => 'Größe–€ '.repeat(Math.ceil(n / 8)).slice(0, n);

async function connect(toolset) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--toolset', toolset],
    env: {
      ...getDefaultEnvironment(),
      AGENT_PROGRESS_DB_PATH: db,
      AGENT_PROGRESS_WORKSPACE: workspace,
      AGENT_PROGRESS_PROJECT: 'budget',
      AGENT_PROGRESS_TRACES_HOME: tracesHome,
      AGENT_PROGRESS_LOG_LEVEL: 'error',
    },
    cwd: workspace,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'tool-budget', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns the whole result's size (errors count as their message). */
async function size(client, name, args) {
  try {
    const result = await client.callTool({ name, arguments: args });
    return {
      bytes: bytes(result),
      error: result.isError ? JSON.stringify(result.content).slice(0, 120) : undefined,
      cut: Boolean(result._meta?.['agent-progress/truncated']),
      result,
    };
  } catch (err) {
    return { bytes: bytes({ error: err.message }), error: err.message.slice(0, 160) };
  }
}

// ---- seeding ------------------------------------------------------------------------------------

async function seedProgress(client) {
  for (let i = 0; i < 120; i++) {
    await client.callTool({
      name: 'log_progress',
      arguments: {
        projectId: 'budget',
        title: wide(100),
        content: wide(10_000),
        tags: Array.from({ length: 10 }, (_, t) => `tag-${t}-${'x'.repeat(40)}`),
        agentId: 'a'.repeat(100),
      },
    });
  }
  const found = await client.callTool({ name: 'search_logs', arguments: { projectId: 'budget', limit: 1 } });
  return found.structuredContent.entries[0].id;
}

async function seedQueue(client) {
  await client.callTool({ name: 'create_project', arguments: { name: 'budget', description: wide(2000) } });
  await client.callTool({
    name: 'create_task_type',
    arguments: { projectId: 'budget', name: 'big', template: `${wide(19_900)} {{a}}`, variables: ['a'], duplicateHandling: 'allow' },
  });
  const tasks = Array.from({ length: 60 }, (_, i) => ({ instructions: `${i} ${wide(19_990)}` }));
  for (let i = 0; i < tasks.length; i += 20) await client.callTool({ name: 'create_tasks_bulk', arguments: { projectId: 'budget', tasks: tasks.slice(i, i + 20) } });
  await client.callTool({ name: 'register_agent', arguments: { projectId: 'budget', agentName: 'bench-agent' } });
  // Ten attempts on one task, each with a long explanation.
  let taskId;
  for (let i = 0; i < 3; i++) {
    const got = await client.callTool({ name: 'request_task', arguments: {} });
    taskId ??= got.structuredContent?.task?.id;
    const id = got.structuredContent?.task?.id;
    if (!id) break;
    await client.callTool({ name: 'fail_task', arguments: { taskId: id, explanation: wide(10_000), canRetry: true } });
  }
  // Hold one: request_task and get_current_task send its instructions whole (their documented budget).
  const held = await client.callTool({ name: 'request_task', arguments: {} });
  calls.push({
    toolset: 'queue',
    tool: 'request_task',
    args: '{} (20,000 multi-byte characters of instructions)',
    isDefault: true,
    bytes: bytes(held),
    cut: Boolean(held._meta?.['agent-progress/truncated']),
    whole: true,
  });
  return taskId;
}

async function seedWorkflow(client) {
  const wf = await client.callTool({
    name: 'start_workflow',
    arguments: { name: wide(200), description: wide(5000), plan: Array.from({ length: 50 }, (_, i) => ({ step: `${i} ${wide(190)}`, goal: wide(1000) })) },
  });
  const workflowId = wf.structuredContent.workflow_id;
  const task = await client.callTool({
    name: 'start_task',
    arguments: { workflow_id: workflowId, name: wide(200), goal: wide(2000), areas: Array.from({ length: 20 }, (_, i) => `area-${i}/${'d'.repeat(150)}`) },
  });
  const taskId = task.structuredContent.task_id;
  for (let i = 0; i < 30; i++) {
    await client.callTool({
      name: 'log_decision',
      arguments: {
        task_id: taskId,
        category: 'architecture',
        question: wide(500),
        options_considered: Array.from({ length: 20 }, () => wide(200)),
        chosen: wide(500),
        reasoning: wide(2000),
        trade_offs: wide(2000),
      },
    });
  }
  // 1,200 new files with long names: complete_task lists them.
  const dir = path.join(workspace, 'generated');
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 1200; i++) fs.writeFileSync(path.join(dir, `${String(i).padStart(5, '0')}-${'n'.repeat(120)}.txt`), `${i}\n`);
  const done = await client.callTool({
    name: 'complete_task',
    arguments: {
      task_id: taskId,
      status: 'success',
      outcome: { summary: wide(4000), achievements: Array.from({ length: 50 }, () => wide(500)), limitations: Array.from({ length: 50 }, () => wide(500)) },
    },
  });
  return { workflowId, taskId, completeBytes: bytes(done), cut: Boolean(done._meta?.['agent-progress/truncated']) };
}

function seedTraces() {
  // Sessions with long tool outputs, in Claude Code's layout.
  const sessions = [];
  for (let i = 0; i < 40; i++)
    sessions.push(
      writeClaude(tracesHome, {
        seed: i + 1,
        turns: 12,
        callsPerTurn: 6,
        outputBytes: 40_000,
        cwd: `/home/dev/project-${i % 7}`,
        start: new Date(Date.UTC(2026, 9, 1 + (i % 28), 9)),
      }),
    );
  return sessions[0];
}

// ---- measuring ----------------------------------------------------------------------------------

const CALLS = {
  progress: (s) => [
    ['search_logs', { projectId: 'budget' }, true],
    ['get_context', { projectId: 'budget', id: s.entryId }, true],
    ['search_logs', { projectId: 'budget', limit: 100 }, false],
    ['get_context', { projectId: 'budget', id: s.entryId, includeFull: true }, false],
  ],
  queue: (s) => [
    ['list_projects', {}, true],
    ['get_project', { projectId: 'budget' }, true],
    ['list_task_types', { projectId: 'budget' }, true],
    ['get_task_type', { projectId: 'budget', typeId: 'big' }, true],
    ['list_tasks', { projectId: 'budget' }, true],
    ['get_task', { taskId: s.taskId }, true],
    ['get_task_history', { taskId: s.taskId }, true],
    ['get_project_status', { projectId: 'budget' }, true],
    ['get_agent_status', { projectId: 'budget', agentName: 'bench-agent' }, true],
    ['get_audit_log', { projectId: 'budget' }, true],
    ['join_project', { projectId: 'budget' }, true],
    ['list_tasks', { projectId: 'budget', limit: 200 }, false],
    ['get_audit_log', { projectId: 'budget', limit: 200 }, false],
  ],
  workflow: () => [],
  traces: (s) => [
    ['list_sessions', {}, true],
    ['get_project_info', {}, true],
    ['get_session_details', { session_id: s.sessionId }, true],
    ['analyze_session', { session_id: s.sessionId }, true],
    ['search_event_previews', { query: 'line' }, true],
    ['get_event_details', { session_id: s.sessionId, event_index: 3 }, true],
    ['get_session_details', { session_id: s.sessionId, detail_level: 'turns' }, false],
    ['get_session_details', { session_id: s.sessionId, detail_level: 'steps' }, false],
    ['get_session_details', { session_id: s.sessionId, detail_level: 'full' }, false],
    ['list_sessions', { limit: 50 }, false],
    ['search_event_previews', { query: 'line', limit: 50 }, false],
  ],
};

const seeds = {};
const rows = [];
say(`Seeding a ledger in ${tmp} ...`);
const tracesSession = seedTraces();
seeds.sessionId = tracesSession.id;
for (const toolset of TOOLSET_NAMES) {
  const client = await connect(toolset);
  const tools = await client.listTools();
  const listChars = JSON.stringify(tools).length;
  const instructions = client.getInstructions() ?? '';
  const caps = client.getServerCapabilities() ?? {};
  const prompts = caps.prompts ? await client.listPrompts() : { prompts: [] };
  const templates = caps.resources ? await client.listResourceTemplates() : { resourceTemplates: [] };
  // What was served against what the descriptor says, and calls below that name no tool of it.
  const described = TOOLSETS[toolset];
  const differs = (a, b) => a.join(',') !== b.join(',');
  if (
    differs(
      tools.tools.map((t) => t.name),
      toolNamesOf(toolset),
    )
  )
    say(`${toolset}: tools/list differs from its descriptor (rebuild dist/?)`);
  if (
    differs(
      prompts.prompts.map((p) => p.name),
      described.prompts.map((p) => p.name),
    )
  )
    say(`${toolset}: prompts differ from its descriptor`);
  if (
    differs(
      templates.resourceTemplates.map((t) => t.uriTemplate),
      described.resources.map((r) => r.template.uriTemplate),
    )
  )
    say(`${toolset}: resource templates differ from its descriptor`);
  for (const [tool] of CALLS[toolset]?.(seeds) ?? []) if (!toolNamesOf(toolset).includes(tool)) say(`${toolset}: the bench calls ${tool}, which the descriptor does not list`);
  if (toolset === 'progress') seeds.entryId = await seedProgress(client);
  if (toolset === 'queue') seeds.taskId = await seedQueue(client);
  if (toolset === 'workflow') {
    const w = await seedWorkflow(client);
    Object.assign(seeds, { workflowId: w.workflowId });
    calls.push({ toolset, tool: 'complete_task', args: '1,200 files changed, longest outcome', isDefault: true, bytes: w.completeBytes, cut: w.cut });
  }
  for (const [tool, args, isDefault] of CALLS[toolset]?.(seeds) ?? []) {
    const r = await size(client, tool, args);
    calls.push({
      toolset,
      tool,
      args: JSON.stringify(args)
        .replace(seeds.entryId ?? '\u0000', 'ID')
        .replace(seeds.taskId ?? '\u0000', 'ID')
        .replace(seeds.sessionId ?? '\u0000', 'ID'),
      isDefault,
      bytes: r.bytes,
      error: r.error,
      cut: r.cut,
    });
  }
  // Prompts and resources answer too.
  for (const p of prompts.prompts) {
    const args = Object.fromEntries((p.arguments ?? []).filter((a) => a.required).map((a) => [a.name, wide(1500)]));
    const got = await client.getPrompt({ name: p.name, arguments: args });
    calls.push({ toolset, tool: `prompt ${p.name}`, args: JSON.stringify(Object.keys(args)), isDefault: true, bytes: bytes(got) });
  }
  if (caps.resources) {
    const list = await client.listResources();
    calls.push({ toolset, tool: 'resources/list', args: 'first page', isDefault: true, bytes: bytes(list) });
    const biggest = [];
    for (const r of list.resources.slice(0, 5)) biggest.push(bytes(await client.readResource({ uri: r.uri })));
    if (toolset === 'workflow') biggest.push(bytes(await client.readResource({ uri: `agent-progress://workflow/${seeds.workflowId}` })));
    if (biggest.length) calls.push({ toolset, tool: 'resources/read', args: 'largest of the listed', isDefault: true, bytes: Math.max(...biggest) });
  }
  rows.push({
    toolset,
    tools: tools.tools.length,
    listChars,
    tokens: Math.round(listChars / 4),
    instructions: instructions.length,
    prompts: prompts.prompts.map((p) => p.name),
    templates: templates.resourceTemplates.map((t) => t.uriTemplate),
  });
  await client.close();
}

const worst = (toolset, isDefault) => calls.filter((c) => c.toolset === toolset && c.isDefault === isDefault && !c.whole).sort((a, b) => b.bytes - a.bytes)[0];
const wholeTask = () => calls.find((c) => c.whole);
const when = new Date().toISOString().replace('T', ' ').slice(0, 16);
const md = [
  `Measured ${when} UTC by \`npm run bench:budget\` (bench/toolBudget.mjs) through dist/server.js over stdio. Tokens are the tools/list JSON's characters / 4; responses are whole JSON-RPC results (text and structuredContent) on a ledger seeded with the longest values validation accepts (multi-byte text), 1,200 changed files and 40 transcripts with 40 KB tool outputs.`,
  '',
  '| toolset | tools | tools/list | tokens (budget 4,000) | instructions | prompts | resource templates | largest default response (cap 30 KB) | largest response, any arguments (cap 100 KB) |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const d = worst(r.toolset, true);
    const a = [worst(r.toolset, true), worst(r.toolset, false)].filter(Boolean).sort((x, y) => y.bytes - x.bytes)[0];
    return `| ${r.toolset} | ${r.tools} | ${r.listChars.toLocaleString('en')} chars | ${r.tokens.toLocaleString('en')} ${r.tokens < TOKEN_BUDGET ? '(under)' : '**(over)**'} | ${r.instructions} chars | ${r.prompts.map((p) => `\`${p}\``).join(', ') || '-'} | ${r.templates.map((t) => `\`${t}\``).join(', ') || '-'} | ${d ? `${kb(d.bytes)} \`${d.tool}\`${d.bytes > DEFAULT_CAP ? ' **over**' : ''}` : '-'} | ${a ? `${kb(a.bytes)} \`${a.tool}\`${a.bytes > HARD_CAP ? ' **over**' : ''}` : '-'} |`;
  }),
  '',
  `The one exception, by design: \`request_task\` and \`get_current_task\` send the task's instructions whole (they are the work), up to the 100 KB ceiling: ${wholeTask() ? kb(wholeTask().bytes) : '-'} for the longest instructions accepted (20,000 multi-byte characters, in the text and in structuredContent).`,
  '',
  'Review answers are not measured here yet (its tools need a review definition in the workspace); the 30 KB / 100 KB net in `toolResult.ts` applies to them as to every tool.',
].join('\n');
const detail = [
  '| toolset | call | arguments | default | size (cut: long texts shortened by the server to fit) |',
  '|---|---|---|---|---|',
  ...calls.map(
    (c) =>
      `| ${c.toolset} | \`${c.tool}\` | ${c.args.replace(/\|/g, '\\|').slice(0, 80)} | ${c.isDefault ? 'yes' : 'no'} | ${kb(c.bytes)}${c.cut ? ' (cut)' : ''}${c.error ? ` (error: ${c.error.replace(/\|/g, '\\|').replace(/\n/g, ' ').slice(0, 80)})` : ''}${c.bytes > (c.isDefault && !c.whole ? DEFAULT_CAP : HARD_CAP) ? ' **over**' : ''}${c.whole ? ' (whole by design)' : ''} |`,
  ),
].join('\n');

process.stdout.write(`${md}\n\n${detail}\n`);
fs.mkdirSync(path.join(benchDir, 'results'), { recursive: true });
fs.writeFileSync(path.join(benchDir, 'results', 'tool-budget.md'), `# Tool budget\n\n${md}\n\nEvery call measured:\n\n${detail}\n`);
if (writeReadme) {
  const readme = path.join(root, 'README.md');
  const text = fs.readFileSync(readme, 'utf8');
  const start = '<!-- budget:start (generated by bench/toolBudget.mjs; do not edit) -->';
  const end = '<!-- budget:end -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) fs.writeFileSync(readme, `${text.slice(0, a + start.length)}\n${md}\n${text.slice(b)}`);
  else say('README.md has no budget markers; not updated');
}
fs.rmSync(tmp, { recursive: true, force: true });
