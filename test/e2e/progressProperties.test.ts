// Property-based tests of the progress toolset against the built server (dist/server.js) over stdio
// with a real SDK client: a few hundred random and hostile calls, each checked like the in-memory
// unit test does (test/helpers/progressProperties.ts), the ledger's seq read from this process
// through the shared journal. Afterwards the server process must still be alive and its stderr free
// of stack traces. Seed: PROPERTY_SEED (default printed); run counts: PROPERTY_RUNS_SCALE.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as fc from 'fast-check';
import { openLedger } from '../../src/core/storage/openLedger';
import type { Ledger } from '../../src/core/storage/store';
import { anyPlan, datePlan, PropertyRunner, propertySeed, rawArgumentsPlan, runs, validLogPlan, type Outcome } from '../helpers/progressProperties';
import { tempDir } from '../helpers/tmp';

const SERVER = path.resolve(__dirname, '../../dist/server.js');

describe('progress tools under random and hostile input (properties, dist/server.js over stdio)', function () {
  this.timeout(180_000);

  const seed = propertySeed();
  let stderr = '';
  let transport: StdioClientTransport;
  let client: Client;
  let ledger: Ledger | undefined;
  let runner: PropertyRunner;
  let dir: string | undefined;
  let pid: number;

  before(async () => {
    console.log(`      seed ${seed} (PROPERTY_SEED=${seed} replays it; PROPERTY_RUNS_SCALE scales the runs)`);
    dir = tempDir('ap-props-e2e-');
    const dbPath = path.join(dir, 'ledger', 'data.db');
    // The default environment only: no OPENAI_API_KEY, so summaries never leave the machine.
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      env: { ...getDefaultEnvironment(), AGENT_PROGRESS_DB_PATH: dbPath, AGENT_PROGRESS_LOG_LEVEL: 'info' },
      cwd: dir,
      stderr: 'pipe',
    });
    transport.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'property-tests-e2e', version: '0.0.0' });
    await client.connect(transport);
    pid = transport.pid!;
    runner = new PropertyRunner({
      client,
      seq: async () => {
        await ledger!.refresh();
        return (await ledger!.stats()).changes;
      },
      logLines: () => stderr.split('\n'),
    });
    await runner.init(); // the server opens (and creates) the ledger on this first call
    ledger = await openLedger({ file: dbPath, checkpoint: false });
  });

  after(async () => {
    await client?.close();
    await ledger?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (!runner) return;
    console.log('      calls per property (generated: accepted / refused; + follow-up calls):');
    let generated = 0;
    for (const [name, c] of runner.counts) {
      generated += c.generated;
      console.log(`        ${name}: ${c.generated} (${c.accepted} / ${c.refused}) + ${c.followUps}`);
    }
    console.log(`      ${generated} generated calls over stdio; ${runner.model.size} entries logged`);
  });

  it('hostile calls of every tool: clear -32602 refusals, an unchanged ledger when refused, exact storage and searches', async () => {
    const plan = fc.oneof(
      { weight: 6, arbitrary: anyPlan },
      { weight: 2, arbitrary: validLogPlan },
      { weight: 1, arbitrary: datePlan },
      { weight: 1, arbitrary: rawArgumentsPlan },
    );
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        await runner.exercise('stdio hostile', p);
      }),
      { seed, numRuns: runs(400), endOnFailure: true },
    );
    const c = runner.countsFor('stdio hostile');
    assert.ok(c.accepted >= 30 && c.refused >= 100, `too few of one kind: ${c.accepted} accepted, ${c.refused} refused`);
  });

  it('concurrent hostile calls on one stdio connection are each answered on their own', async () => {
    const property = 'stdio concurrent';
    await fc.assert(
      fc.asyncProperty(fc.array(anyPlan, { minLength: 2, maxLength: 8 }), async (plans) => {
        const before = await runner.harness.seq();
        const outcomes: Outcome[] = await Promise.all(plans.map((p) => runner.exercise(property, p, { exact: false, ping: false })));
        const logged = outcomes.filter((o, i) => o.ok && plans[i]!.tool === 'log_progress').length;
        assert.equal((await runner.harness.seq()) - before, logged, 'the ledger did not grow by exactly the accepted log_progress calls');
        await runner.ping(property);
      }),
      { seed, numRuns: runs(30), endOnFailure: true },
    );
  });

  it('the server process is still alive, still answers, and wrote no stack trace to stderr', async () => {
    assert.doesNotThrow(() => process.kill(pid, 0), `the server process ${pid} is gone`);
    await runner.ping('final');
    runner.checkLog('stderr after the properties');
    const stackLines = stderr.split('\n').filter((l) => /^\s+at\s/.test(l));
    assert.deepEqual(stackLines, [], "stack trace lines on the server's stderr");
    assert.ok(!/\[error\]|Uncaught|Unhandled|fatal/i.test(stderr), `errors on the server's stderr:\n${stderr.slice(0, 2000)}`);
    assert.ok(/serving progress over stdio/.test(stderr), 'the server never said it was serving (is stderr captured?)');
  });
});
