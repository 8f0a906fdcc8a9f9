// Random and hostile input at every queue tool, through a real client: the server never crashes,
// every refusal is a clear message (no stack trace, bounded length), a refused call changes no data,
// and what is accepted matches the tool's full output schema.

import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { type z } from 'zod';
import * as schemas from '../../../src/core/queue/schemas';
import { connectInMemory, type Connected } from '../../helpers/inMemoryServer';
import { tempDir, removeTempDirs } from '../../helpers/tmp';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261122);
const RUNS = Math.round(150 * Number(process.env.PROPERTY_RUNS_SCALE ?? 1));

const TOOLS: Record<string, { fields: string[]; output: z.ZodObject }> = {
  create_project: { fields: ['name', 'description', 'defaultMaxRetries', 'defaultLeaseDurationMinutes', 'reaperIntervalMinutes'], output: schemas.projectResult },
  list_projects: { fields: ['includeClosed'], output: schemas.projectsOutput },
  get_project: { fields: ['projectId'], output: schemas.projectResult },
  close_project: { fields: ['projectId'], output: schemas.projectResult },
  join_project: { fields: ['projectId'], output: schemas.projectResult },
  create_task_type: { fields: ['projectId', 'name', 'template', 'variables', 'duplicateHandling', 'maxRetries', 'leaseDurationMinutes'], output: schemas.taskTypeResult },
  list_task_types: { fields: ['projectId'], output: schemas.taskTypesOutput },
  get_task_type: { fields: ['projectId', 'typeId'], output: schemas.taskTypeResult },
  add_task: { fields: ['projectId', 'typeId', 'instructions', 'variables'], output: schemas.addTaskOutput },
  create_tasks_bulk: { fields: ['projectId', 'tasks'], output: schemas.bulkOutput },
  get_task: { fields: ['taskId'], output: schemas.taskWithHistoryOutput },
  list_tasks: { fields: ['projectId', 'status', 'typeId', 'limit', 'offset'], output: schemas.tasksOutput },
  register_agent: { fields: ['projectId', 'agentName', 'apiKey'], output: schemas.registerOutput },
  get_current_task: { fields: ['projectId', 'agentName', 'apiKey'], output: schemas.currentTaskOutput },
  request_task: { fields: ['projectId', 'agentName', 'apiKey'], output: schemas.requestTaskOutput },
  complete_task: { fields: ['taskId', 'explanation', 'agentName', 'apiKey'], output: schemas.completeOutput },
  fail_task: { fields: ['taskId', 'explanation', 'canRetry', 'agentName', 'apiKey'], output: schemas.failOutput },
  extend_lease: { fields: ['taskId', 'additionalMinutes', 'agentName', 'apiKey'], output: schemas.completeOutput },
  get_project_status: { fields: ['projectId'], output: schemas.projectStatusOutput },
  get_agent_status: { fields: ['projectId', 'agentName'], output: schemas.agentResult },
  get_task_history: { fields: ['taskId'], output: schemas.historyOutput },
  get_audit_log: { fields: ['projectId', 'limit', 'before'], output: schemas.auditOutput },
};

/** Values that are sometimes right and mostly hostile. */
function hostile(known: { projects: string[]; tasks: string[]; types: string[]; keys: string[] }): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...known.projects, ...known.tasks, ...known.types, ...known.keys, 'p', 'default', 'alpha'),
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom(
      '',
      ' ',
      "'; DROP TABLE tasks; --",
      '{{x}}',
      '{{',
      '<script>alert(1)</script>',
      '\u0000',
      '\ud800',
      '\ufeffbom',
      '\u202eRTL',
      '😀'.repeat(60),
      'x'.repeat(25_000),
      'NaN',
      '1e309',
      'apk_' + 'A'.repeat(43),
      'queued',
      'ignore',
    ),
    fc.integer({ min: -5, max: 2_000 }),
    fc.double({ noNaN: false }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.record({ instructions: fc.string({ maxLength: 8 }) })), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom('a', 'x', 'bad key', '__proto__', 'constructor'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null)), { maxKeys: 3 }),
  );
}

/** A value that is usually right for the field: what makes calls get past validation to the rules. */
function plausible(field: string, known: { projects: string[]; tasks: string[]; types: string[]; keys: string[] }): fc.Arbitrary<unknown> {
  const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
  const text = fc.string({ minLength: 1, maxLength: 40 });
  switch (field) {
    case 'projectId':
      return fc.constantFrom(...known.projects, 'p', 'p', 'other');
    case 'name':
    case 'agentName':
      return fc.oneof(word, fc.constantFrom('alpha', 'beta', 't', 'p'));
    case 'taskId':
      return fc.constantFrom(...known.tasks);
    case 'typeId':
      return fc.constantFrom(...known.types, 't', 'default');
    case 'apiKey':
      return fc.constantFrom(...known.keys);
    case 'description':
    case 'instructions':
    case 'explanation':
    case 'template':
      return fc.oneof(text, fc.constant('Do {{a}}'));
    case 'variables':
      return fc.oneof(fc.record({ a: fc.string({ maxLength: 10 }) }), fc.constant([]), fc.constant(['a']));
    case 'duplicateHandling':
      return fc.constantFrom('ignore', 'fail', 'allow');
    case 'status':
      return fc.constantFrom('queued', 'running', 'completed', 'failed', 'cancelled');
    case 'tasks':
      return fc.array(fc.oneof(fc.record({ instructions: text }), fc.record({ typeId: fc.constant('t'), variables: fc.record({ a: fc.string({ maxLength: 5 }) }) })), {
        minLength: 1,
        maxLength: 5,
      });
    case 'includeClosed':
    case 'canRetry':
      return fc.boolean();
    case 'limit':
    case 'offset':
    case 'before':
    case 'defaultMaxRetries':
    case 'maxRetries':
      return fc.integer({ min: 0, max: 60 });
    default:
      return fc.double({ min: 0.01, max: 3, noNaN: true });
  }
}

function refusalMessage(err: unknown): string | undefined {
  const e = err as { code?: number; message?: string };
  if (typeof e.code !== 'number') return undefined;
  assert.ok(e.code === -32602, `unexpected JSON-RPC code ${e.code}: ${e.message}`);
  return (e.message ?? '').replace(/^MCP error -?\d+: /, '');
}

function assertClear(message: string, context: string): void {
  assert.ok(message.length > 5 && message.length < 600, `${context}: ${message.length} characters: ${message.slice(0, 200)}`);
  assert.ok(!/\n\s+at /.test(message) && !/\.ts:\d+/.test(message), `${context}: a stack trace: ${message}`);
}

describe('queue tools under random and hostile input (properties, in memory)', function () {
  this.timeout(240_000);
  let admin: Connected;
  let agent: Connected;
  const known = { projects: ['p'], tasks: [] as string[], types: [] as string[], keys: [] as string[] };

  before(async () => {
    admin = await connectInMemory({ dir: tempDir(), toolsets: ['queue'] });
    agent = await connectInMemory({ dir: '', toolsets: ['queue'], services: admin.services });
    const ok = async (c: Connected, name: string, args: Record<string, unknown>) =>
      ((await c.client.callTool({ name, arguments: args })) as CallToolResult).structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    await ok(admin, 'create_project', { name: 'p', defaultLeaseDurationMinutes: 0.02 });
    known.types.push((await ok(admin, 'create_task_type', { projectId: 'p', name: 't', template: 'Do {{a}}', duplicateHandling: 'ignore' })).taskType.id);
    for (let i = 0; i < 20; i++) known.tasks.push((await ok(admin, 'add_task', { projectId: 'p', instructions: `job ${i}` })).task.id);
    known.keys.push((await ok(agent, 'register_agent', { projectId: 'p', agentName: 'alpha' })).apiKey);
    console.log(`      seed ${SEED}, ${RUNS} runs per tool (PROPERTY_SEED, PROPERTY_RUNS_SCALE to change)`);
  });

  after(async () => {
    await agent.close();
    await admin.close();
    removeTempDirs();
  });

  for (const [tool, spec] of Object.entries(TOOLS)) {
    it(`${tool}: never crashes, refuses clearly, and a refusal changes nothing`, async () => {
      const args = fc.oneof(
        {
          weight: 5,
          arbitrary: fc.record(Object.fromEntries(spec.fields.map((f) => [f, fc.oneof({ weight: 4, arbitrary: plausible(f, known) }, { weight: 1, arbitrary: hostile(known) })]))),
        },
        { weight: 3, arbitrary: fc.record(Object.fromEntries(spec.fields.map((f) => [f, hostile(known)])), { requiredKeys: [] }) },
        { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), hostile(known), { maxKeys: 4 }) },
        { weight: 1, arbitrary: hostile(known) },
      );
      let accepted = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(args, fc.boolean(), async (raw, asAgent) => {
          const who = asAgent ? agent : admin;
          const before = (await (await admin.services.ledger()).stats()).changes;
          let result: CallToolResult | undefined;
          let message: string | undefined;
          try {
            result = (await who.client.callTool({ name: tool, arguments: raw as Record<string, unknown> })) as CallToolResult;
          } catch (err) {
            message = refusalMessage(err);
            if (message === undefined) throw err;
          }
          if (result?.isError) message = (result.content[0] as { text: string }).text;
          if (message !== undefined) {
            refused++;
            assertClear(message, `${tool}(${JSON.stringify(raw)?.slice(0, 120)})`);
            const after = (await (await admin.services.ledger()).stats()).changes;
            assert.equal(after, before, `${tool} refused (${message}) but changed the ledger`);
          } else {
            accepted++;
            const parsed = spec.output.safeParse(result!.structuredContent);
            assert.ok(parsed.success, `${tool} output: ${parsed.success ? '' : parsed.error.message.slice(0, 300)}`);
          }
          // The server still answers.
          await admin.client.callTool({ name: 'list_projects', arguments: {} });
        }),
        { seed: SEED + tool.length, numRuns: RUNS, endOnFailure: true },
      );
      assert.ok(refused > 0, 'hostile input was never refused');
      if (process.env.PROPERTY_VERBOSE) console.log(`      ${tool}: ${accepted} accepted, ${refused} refused`);
    });
  }
});
