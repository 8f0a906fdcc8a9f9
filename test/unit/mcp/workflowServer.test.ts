// The workflow toolset through a real SDK client in memory: the listed contract (snapshot), the
// specification's shapes, every enum and every kind of bad input refused with -32602, unknown ids with a
// message that says what to do, and a second completion as a structured tool error.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { longName, STALLING_GLOB, starGlob, starGlobMatches } from '../../helpers/globOracle';
import { initRepo, type TestRepo } from '../../helpers/gitRepo';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';
import { matchSnapshot } from '../../helpers/snapshot';

const SNAPSHOT = path.join(__dirname, '__snapshots__', 'tools-workflow.json');
const PROPERTY_SEED = Number(process.env.PROPERTY_SEED ?? 20260302);

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string };
    return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
  }
  assert.fail('expected a JSON-RPC error');
}

function describedEverywhere(schema: Record<string, unknown>, where: string, problems: string[]): void {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, prop] of Object.entries(props)) {
    if (typeof prop.description !== 'string' || prop.description.length < 8) problems.push(`${where}.${name}`);
    if (prop.type === 'object') describedEverywhere(prop, `${where}.${name}`, problems);
    const items = prop.items as Record<string, unknown> | undefined;
    if (items?.type === 'object') describedEverywhere(items, `${where}.${name}[]`, problems);
  }
}

describe('workflow tools (in memory, real client)', function () {
  this.timeout(60_000);
  useTempDirs();
  let c: Connected;
  let repo: TestRepo;
  beforeEach(async () => {
    const dir = tempDir();
    repo = initRepo(path.join(dir, 'acme'), { 'src/auth/session.ts': 'export const s = 1;\n', 'package.json': '{}\n' });
    c = await connectInMemory({ dir: path.join(dir, 'ledger'), toolsets: ['workflow'], workspace: repo.dir });
  });
  afterEach(async () => {
    await c?.close();
  });
  const call = async (name: string, args: unknown) => (await c.client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  it('lists the six tools of the protocol exactly as the snapshot says', async () => {
    const { tools } = await c.client.listTools();
    const actual = JSON.stringify(tools, null, 2) + '\n';
    matchSnapshot(SNAPSHOT, actual);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['start_workflow', 'start_task', 'log_decision', 'log_issue', 'log_milestone', 'complete_task'],
    );
  });

  it("describes every argument for the model, sets all four annotations and declares the seed's enums", async () => {
    const { tools } = await c.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t] as [string, Tool]));
    const problems: string[] = [];
    for (const tool of tools) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
        assert.equal(typeof tool.annotations?.[hint], 'boolean', `${tool.name}.${hint}`);
      assert.ok(tool.outputSchema, tool.name);
      assert.ok((tool.description ?? '').length > 150, tool.name);
      describedEverywhere(tool.inputSchema as Record<string, unknown>, tool.name, problems);
    }
    assert.deepEqual(problems, [], 'arguments without a description');
    const prop = (tool: string, ...keys: string[]) =>
      keys.reduce<Record<string, unknown>>((o, k) => (o.properties as Record<string, Record<string, unknown>>)[k]!, byName.get(tool)!.inputSchema as Record<string, unknown>);
    assert.deepEqual(prop('log_decision', 'category').enum, ['architecture', 'library_choice', 'trade_off', 'workaround', 'other']);
    assert.deepEqual(prop('log_issue', 'type').enum, ['documentation_gap', 'bug_encountered', 'dependency_conflict', 'unclear_requirement', 'other']);
    assert.deepEqual(prop('complete_task', 'status').enum, ['success', 'partial_success', 'failed']);
    assert.deepEqual(prop('complete_task', 'metadata', 'tests_status').enum, ['passed', 'failed', 'not_run']);
    assert.deepEqual([prop('log_milestone', 'progress').minimum, prop('log_milestone', 'progress').maximum], [0, 100]);
    assert.deepEqual(byName.get('start_task')!.inputSchema.required, ['workflow_id', 'name', 'goal']);
    assert.deepEqual(byName.get('complete_task')!.inputSchema.required, ['task_id', 'status', 'outcome']);
    assert.deepEqual(prop('complete_task', 'outcome').required, ['summary']);
    assert.deepEqual(byName.get('log_decision')!.inputSchema.required, ['task_id', 'category', 'question', 'chosen', 'reasoning']);
    assert.deepEqual(byName.get('log_issue')!.inputSchema.required, ['task_id', 'type', 'description', 'resolution']);
    assert.deepEqual(byName.get('start_workflow')!.inputSchema.required, ['name']);
    const listed = JSON.stringify(tools).length;
    console.log(`      tools/list of the workflow toolset: ${listed} characters`);
  });

  it("runs the seed's simple flow and answers with its shapes", async () => {
    const wf = await call('start_workflow', { name: 'Add authentication', description: 'Implement JWT-based authentication', plan: [{ step: '1', goal: 'Middleware' }] });
    const w = wf.structuredContent as { workflow_id: string; created_at: string; project_id: string };
    assert.deepEqual(Object.keys(w).sort(), ['created_at', 'project_id', 'workflow_id']);
    assert.equal(w.project_id, 'acme');
    assert.equal(text(wf), `Started workflow ${w.workflow_id} in project acme. Next: start_task with workflow_id ${w.workflow_id}.`);

    const st = await call('start_task', {
      workflow_id: w.workflow_id,
      name: 'Setup JWT middleware',
      goal: 'Create middleware to verify JWT tokens',
      areas: ['auth', 'middleware'],
    });
    const t = st.structuredContent as { task_id: string; snapshot_id: string; snapshot_type: string; started_at: string; head: string };
    assert.equal(t.snapshot_type, 'git');
    assert.match(t.task_id, /^[0-9a-z]{12}$/);
    assert.equal(t.head, repo.git('rev-parse', 'HEAD').trim());
    assert.match(
      text(st),
      new RegExp(
        `^Started task ${t.task_id} \\(git snapshot ${t.snapshot_id} at HEAD [0-9a-f]{7}, working tree included\\)\\. Call complete_task with task_id ${t.task_id} when it is done\\.$`,
      ),
    );

    const d = await call('log_decision', {
      task_id: t.task_id,
      category: 'library_choice',
      question: 'Quelle librairie JWT ?',
      options_considered: ['jsonwebtoken', 'jose'],
      chosen: 'jsonwebtoken',
      reasoning: 'Plus mature et documenté',
    });
    assert.deepEqual(Object.keys(d.structuredContent!).sort(), ['created_at', 'decision_id', 'task_id']);
    const i = await call('log_issue', {
      task_id: t.task_id,
      type: 'documentation_gap',
      description: 'La doc NextAuth v5 sur les callbacks est obsolète',
      resolution: 'Exemples GitHub officiels',
      requires_human_review: false,
    });
    assert.equal((i.structuredContent as { requires_human_review: boolean }).requires_human_review, false);
    const m = await call('log_milestone', { task_id: t.task_id, message: 'Installing jsonwebtoken...', progress: 50, metadata: { test_suite: 'auth' } });
    assert.equal(text(m), `Milestone logged on task ${t.task_id} (50%).`);

    repo.write('src/middleware/auth.ts', 'export function verify() {}\n');
    repo.write('src/auth/session.ts', 'export const s = 2;\n');
    repo.write('package.json', '{"dependencies":{"jsonwebtoken":"9"}}\n');
    const done = await call('complete_task', {
      task_id: t.task_id,
      status: 'success',
      outcome: { summary: 'JWT middleware créé et testé avec succès', achievements: ['Middleware vérifie signature JWT'], limitations: ['Refresh tokens non implémentés'] },
      metadata: { packages_added: ['jsonwebtoken', '@types/jsonwebtoken'], commands_executed: ['npm install jsonwebtoken', 'npm test'], tests_status: 'passed' },
    });
    const out = done.structuredContent as Record<string, unknown>;
    assert.deepEqual(Object.keys(out).sort(), ['commits', 'duration_seconds', 'files_changed', 'status', 'task_id', 'verification']);
    assert.deepEqual(out.files_changed, { added: ['src/middleware/auth.ts'], modified: ['package.json', 'src/auth/session.ts'], deleted: [], renamed: [] });
    assert.deepEqual(out.verification, {
      scope_match: false,
      scope_checked: true,
      unexpected_files: ['package.json'],
      warnings: ['⚠️ 1 file(s) modified outside declared scope (auth, middleware)'],
    });
    assert.equal(typeof out.duration_seconds, 'number');
    assert.match(
      text(done),
      /^Completed task \w+ "Setup JWT middleware" \(success\) in \d+s\.\nFiles changed: 1 added, 2 modified\.\n {2}A src\/middleware\/auth\.ts\n {2}M package\.json\n {2}M src\/auth\/session\.ts\nOutside the declared areas: package\.json\nWarning: ⚠️ 1 file\(s\) modified outside declared scope \(auth, middleware\)$/,
    );
  });

  it('says the scope was not checked, rather than that it matched, without areas or without a snapshot', async () => {
    const { workflow_id } = (await call('start_workflow', { name: 'Unchecked scope' })).structuredContent as { workflow_id: string };
    const noAreas = (await call('start_task', { workflow_id, name: 'No areas', goal: 'g' })).structuredContent as { task_id: string };
    repo.write('src/auth/session.ts', 'export const s = 3;\n');
    const done = await call('complete_task', { task_id: noAreas.task_id, status: 'success', outcome: { summary: 's' } });
    assert.deepEqual((done.structuredContent as Record<string, unknown>).verification, {
      scope_match: null,
      scope_checked: false,
      unexpected_files: [],
      warnings: ['No areas were declared at start_task, so the scope was not checked.'],
    });
    assert.match(text(done), /\nScope: not checked \(see the warning\)\.\nWarning: No areas were declared at start_task, so the scope was not checked\.$/);

    // A workspace that does not exist: no snapshot, so the files changed (and the scope) are unknown.
    const elsewhere = await connectInMemory({ dir: path.join(tempDir(), 'ledger'), toolsets: ['workflow'], workspace: path.join(tempDir(), 'gone') });
    try {
      const callThere = async (name: string, args: unknown) => (await elsewhere.client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
      const wf = (await callThere('start_workflow', { name: 'No snapshot' })).structuredContent as { workflow_id: string };
      const st = (await callThere('start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'g', areas: ['auth'] })).structuredContent as {
        task_id: string;
        snapshot_type: string;
      };
      assert.equal(st.snapshot_type, 'none');
      const there = await callThere('complete_task', { task_id: st.task_id, status: 'success', outcome: { summary: 's' } });
      const v = (there.structuredContent as { verification: { scope_match: unknown; scope_checked: boolean; unexpected_files: string[]; warnings: string[] } }).verification;
      assert.deepEqual([v.scope_match, v.scope_checked, v.unexpected_files], [null, false, []]);
      assert.ok(v.warnings.includes('The files changed are not known, so the scope was not checked.'), v.warnings.join(' | '));
      assert.doesNotMatch(text(there), /every changed file is inside/);
    } finally {
      await elsewhere.close();
    }
  });

  it('checks pathological glob areas against long file names, as a plain scan says', async () => {
    const { workflow_id } = (await call('start_workflow', { name: 'Hostile areas' })).structuredContent as { workflow_id: string };
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        starGlob(),
        fc.uniqueArray(
          longName(110).filter((n) => n !== ''),
          { minLength: 1, maxLength: 3 },
        ),
        async (glob, names) => {
          round++;
          const st = (await call('start_task', { workflow_id, name: `Round ${round}`, goal: 'g', areas: [glob.pattern] })).structuredContent as { task_id: string };
          for (const name of names) repo.write(`dir/${name}`, `round ${round}\n`);
          const done = (await call('complete_task', { task_id: st.task_id, status: 'success', outcome: { summary: 's' } })).structuredContent as {
            verification: { unexpected_files: string[]; scope_match: boolean };
          };
          const outside = names
            .filter((n) => !starGlobMatches(glob, n))
            .map((n) => `dir/${n}`)
            .sort();
          assert.deepEqual(done.verification.unexpected_files, outside, `area ${glob.pattern}`);
          assert.equal(done.verification.scope_match, outside.length === 0);
        },
      ),
      {
        seed: PROPERTY_SEED,
        numRuns: Math.max(1, Math.round(12 * Number(process.env.PROPERTY_RUNS_SCALE ?? 1))),
        examples: [[STALLING_GLOB, ['a'.repeat(110), `${'a'.repeat(109)}b`]]],
      },
    );
  });

  it('refuses every bad enum, missing field and malformed value with -32602, naming it', async () => {
    const wf = (await call('start_workflow', { name: 'W' })).structuredContent as { workflow_id: string };
    const task = ((await call('start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'G' })).structuredContent as { task_id: string }).task_id;
    const cases: [string, Record<string, unknown>, string][] = [
      ['start_workflow', {}, 'name is required'],
      ['start_workflow', { name: 'x'.repeat(201) }, 'name exceeds maximum length of 200 characters'],
      ['start_workflow', { name: 'W', plan: [{ step: '1' }] }, 'plan[0].goal is required'],
      ['start_workflow', { name: 'W', plan: [{ step: '1', goal: 'g', owner: 'me' }] }, 'Unknown field "owner" in plan[0]; accepted: step, goal'],
      ['start_workflow', { name: 'W', plan: 'do it' }, 'plan must be an array of {step, goal} objects'],
      ['start_workflow', { name: 'W', workflowName: 'x' }, 'Unknown argument "workflowName"; accepted: name, description, plan, project_id'],
      ['start_task', { workflow_id: wf.workflow_id, name: 'T' }, 'goal is required'],
      ['start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'G', areas: 'auth' }, 'areas must be an array of strings'],
      ['start_task', { workflow_id: wf.workflow_id, name: 'T', goal: 'G', areas: Array(21).fill('a') }, 'areas exceeds maximum of 20 items'],
      [
        'log_decision',
        { task_id: task, category: 'architecure', question: 'q', chosen: 'c', reasoning: 'r' },
        'category must be one of architecture, library_choice, trade_off, workaround, other (got "architecure")',
      ],
      ['log_decision', { task_id: task, category: 'other', question: 'q', chosen: 'c' }, 'reasoning is required'],
      [
        'log_issue',
        { task_id: task, type: 'bug', description: 'd', resolution: 'r' },
        'type must be one of documentation_gap, bug_encountered, dependency_conflict, unclear_requirement, other (got "bug")',
      ],
      ['log_issue', { task_id: task, type: 'other', description: 'd', resolution: 'r', requires_human_review: 'yes' }, 'requires_human_review must be true or false'],
      ['log_milestone', { task_id: task, message: 'm', progress: 101 }, 'progress must be between 0 and 100'],
      ['log_milestone', { task_id: task, message: 'm', progress: '50' }, 'progress must be a number from 0 to 100'],
      ['log_milestone', { task_id: task, message: 'm', metadata: [1, 2] }, 'metadata must be a JSON object'],
      ['log_milestone', { task_id: task, message: 'm', metadata: { blob: 'x'.repeat(10_001) } }, 'metadata exceeds maximum size of 10000 characters once serialised as JSON'],
      ['log_milestone', { task_id: task, message: 'x'.repeat(201) }, 'message exceeds maximum length of 200 characters'],
      ['complete_task', { task_id: task, status: 'done', outcome: { summary: 's' } }, 'status must be one of success, partial_success, failed (got "done")'],
      ['complete_task', { task_id: task, status: 'success' }, 'outcome is required'],
      ['complete_task', { task_id: task, status: 'success', outcome: {} }, 'outcome.summary is required'],
      [
        'complete_task',
        { task_id: task, status: 'success', outcome: { summary: 's', sumary: 's' } },
        'Unknown field "sumary" in outcome; accepted: summary, achievements, limitations, manual_review_needed, manual_review_reason, next_steps',
      ],
      ['complete_task', { task_id: task, status: 'success', outcome: { summary: 's', achievements: ['ok', ''] } }, 'outcome.achievements[1] cannot be empty'],
      [
        'complete_task',
        { task_id: task, status: 'success', outcome: { summary: 's' }, metadata: { tests_status: 'green' } },
        'metadata.tests_status must be one of passed, failed, not_run (got "green")',
      ],
      ['complete_task', { task_id: task, status: 'success', outcome: 'fine' }, 'outcome must be an object'],
    ];
    for (const [tool, args, message] of cases) {
      assert.deepEqual(await rpcError(call(tool, args)), { code: -32602, message }, `${tool} ${JSON.stringify(args).slice(0, 100)}`);
    }
    // Nothing was recorded by the refused calls: the task is still running, with no event.
    const service = await c.services.workflow();
    const detail = await service.workflowDetail(wf.workflow_id);
    assert.deepEqual(
      detail.events.map((e) => e.kind),
      ['workflow_started', 'task_started'],
    );
    assert.equal(detail.tasks[0]!.status, 'in_progress');
  });

  it('answers unknown ids with -32602 and what to do, and a second completion with a structured conflict', async () => {
    const wf = (await call('start_workflow', { name: 'W' })).structuredContent as { workflow_id: string };
    assert.deepEqual(await rpcError(call('start_task', { workflow_id: 'nope', name: 'T', goal: 'G' })), {
      code: -32602,
      message: 'Workflow not found: nope. Use start_workflow to create one and pass the workflow_id it returns.',
    });
    assert.deepEqual(await rpcError(call('log_milestone', { task_id: 'missing', message: 'm' })), {
      code: -32602,
      message: 'Task not found: missing. Use the task_id that start_task returned.',
    });
    assert.deepEqual(await rpcError(call('complete_task', { task_id: wf.workflow_id, status: 'success', outcome: { summary: 's' } })), {
      code: -32602,
      message: `${wf.workflow_id} is a workflow id, not a task id. Start a task in it with start_task and pass the task_id it returns.`,
    });
    assert.deepEqual(await rpcError(call('start_task', { workflow_id: wf.workflow_id, parent_task_id: 'ghost', name: 'T', goal: 'G' })), {
      code: -32602,
      message: 'Parent task not found: ghost. Use a task_id that start_task returned, or omit parent_task_id for a top-level task.',
    });
    const other = (await call('start_workflow', { name: 'Other' })).structuredContent as { workflow_id: string };
    const parent = ((await call('start_task', { workflow_id: other.workflow_id, name: 'P', goal: 'G' })).structuredContent as { task_id: string }).task_id;
    assert.deepEqual(await rpcError(call('start_task', { workflow_id: wf.workflow_id, parent_task_id: parent, name: 'T', goal: 'G' })), {
      code: -32602,
      message: `Parent task ${parent} belongs to workflow ${other.workflow_id}, not ${wf.workflow_id}; pass workflow_id ${other.workflow_id}.`,
    });

    await call('complete_task', { task_id: parent, status: 'success', outcome: { summary: 's' } });
    const again = await call('complete_task', { task_id: parent, status: 'failed', outcome: { summary: 's' } });
    assert.equal(again.isError, true);
    type Shape = { code: string; message: string; retryable: boolean; details: unknown };
    // The structured error travels as structuredContent.error or, where clients would check that against the output schema, in _meta.
    const error = ((again.structuredContent as { error?: Shape } | undefined)?.error ?? (again._meta as Record<string, Shape> | undefined)?.['agent-progress/error'])!;
    assert.ok(error, JSON.stringify(again));
    assert.equal(text(again), error.message);
    assert.equal(error.code, 'conflict');
    assert.equal(error.retryable, false);
    assert.deepEqual(error.details, { task_id: parent, status: 'success' });
    assert.match(error.message, /^Task \w+ \("P"\) was already completed \(success\) at \S+; a task is completed once\. Start a new task with start_task to continue\.$/);
  });

  it('nests subtasks, and reports a manual review as asked', async () => {
    const wf = (await call('start_workflow', { name: 'Full auth system' })).structuredContent as { workflow_id: string };
    const main = ((await call('start_task', { workflow_id: wf.workflow_id, name: 'Implement authentication', goal: 'All of it' })).structuredContent as { task_id: string })
      .task_id;
    const sub1 = (await call('start_task', { workflow_id: wf.workflow_id, parent_task_id: main, name: 'Setup JWT middleware', goal: 'g' })).structuredContent as {
      task_id: string;
      parent_task_id: string;
    };
    assert.equal(sub1.parent_task_id, main);
    const sub2 = (
      (await call('start_task', { workflow_id: wf.workflow_id, parent_task_id: sub1.task_id, name: 'Sub-subtask', goal: 'g' })).structuredContent as { task_id: string }
    ).task_id;
    repo.write('src/auth/jwt.ts', 'jwt');
    await call('complete_task', { task_id: sub2, status: 'success', outcome: { summary: 's' } });
    await call('complete_task', { task_id: sub1.task_id, status: 'success', outcome: { summary: 's' } });
    const last = await call('complete_task', {
      task_id: main,
      status: 'partial_success',
      outcome: { summary: 'Works', manual_review_needed: true, manual_review_reason: 'Security review of token handling' },
    });
    assert.deepEqual((last.structuredContent as { files_changed: { added: string[] } }).files_changed.added, ['src/auth/jwt.ts'], 'the parent counts what its subtasks changed');
    const requests = await (await c.services.workflow()).reviewRequests(0);
    assert.deepEqual(
      requests.map((r) => [r.kind, r.taskName, r.text]),
      [['task_completed', 'Implement authentication', 'Security review of token handling']],
    );
  });
});
