// Property-based tests of the progress toolset through the real server (createServer over Services
// on a temp ledger) and a real SDK client, connected in memory: thousands of random and hostile
// calls, each checked against an oracle of the input rules and a model of the ledger (see
// test/helpers/progressProperties.ts). Seed: PROPERTY_SEED (default printed); run counts:
// PROPERTY_RUNS_SCALE.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as fc from 'fast-check';
import { createLogger } from '../../../src/core/log';
import { Services } from '../../../src/core/services';
import type { Ledger } from '../../../src/core/storage/store';
import { createServer } from '../../../src/mcp/server';
import {
  anyPlan,
  datePlan,
  FTS_PROJECT,
  ftsEntryPlan,
  ftsSearchPlan,
  getContextPlan,
  logProgressPlan,
  PropertyRunner,
  propertySeed,
  rawArgumentsPlan,
  runs,
  searchPlan,
  validLogPlan,
  type CallPlan,
  type Outcome,
} from '../../helpers/progressProperties';
import { hostOption } from '../../helpers/inMemoryServer';
import { tempDir } from '../../helpers/tmp';

describe('progress tools under random and hostile input (properties, in memory)', function () {
  this.timeout(120_000);

  const seed = propertySeed();
  const logLines: string[] = [];
  let services: Services;
  let client: Client;
  let ledger: Ledger;
  let runner: PropertyRunner;
  let dir: string | undefined;

  const params = (numRuns: number): fc.Parameters<[CallPlan]> => ({ seed, numRuns: runs(numRuns), endOnFailure: true });

  before(async () => {
    console.log(`      seed ${seed} (PROPERTY_SEED=${seed} replays it; PROPERTY_RUNS_SCALE scales the runs)`);
    dir = tempDir('ap-props-');
    const logger = createLogger({ level: 'info', sink: (line) => logLines.push(line) });
    services = new Services({
      config: { dbPath: path.join(dir, 'data.db'), openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
      logger,
      host: hostOption(),
    });
    const server = createServer({ services, logger, toolsets: ['progress'], version: '0.0.0-test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    // No sampling capability: get_context then never writes (its fallback summary is not cached).
    client = new Client({ name: 'property-tests', version: '0.0.0' });
    await client.connect(clientSide);
    runner = new PropertyRunner({ client, seq: async () => (await ledger.stats()).changes, logLines: () => logLines });
    ledger = await services.ledger();
    await runner.init();
  });

  after(async () => {
    await client?.close();
    await services?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (!runner) return;
    let generated = 0;
    let all = 0;
    console.log('      calls per property (generated: accepted / refused; + follow-up calls):');
    for (const [name, c] of runner.counts) {
      generated += c.generated;
      all += c.generated + c.followUps;
      console.log(`        ${name}: ${c.generated} (${c.accepted} / ${c.refused}) + ${c.followUps}`);
    }
    console.log(`      ${generated} generated calls, ${all} calls in all; ${runner.model.size} entries logged`);
  });

  it('log_progress: refuses bad arguments with a clear -32602 and an unchanged ledger; stores accepted ones byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(logProgressPlan, async (plan) => {
        await runner.exercise('log_progress hostile', plan);
      }),
      params(700),
    );
    const c = runner.countsFor('log_progress hostile');
    assert.ok(c.accepted >= 50 && c.refused >= 200, `too few of one kind: ${c.accepted} accepted, ${c.refused} refused`);
  });

  it('log_progress: odd but valid text (astral, combining, RTL, zero-width, markup, SQL, at the limits) is accepted and round-trips exactly', async () => {
    await fc.assert(
      fc.asyncProperty(validLogPlan, async (plan) => {
        const out = await runner.exercise('log_progress valid', plan);
        assert.ok(out.ok, 'a valid entry was refused');
      }),
      params(300),
    );
  });

  it('get_context: refuses bad arguments and unknown ids cleanly; returns exactly what was logged', async () => {
    await fc.assert(
      fc.asyncProperty(getContextPlan, async (plan) => {
        await runner.exercise('get_context hostile', plan);
      }),
      params(400),
    );
    const c = runner.countsFor('get_context hostile');
    assert.ok(c.accepted >= 50 && c.refused >= 50, `too few of one kind: ${c.accepted} accepted, ${c.refused} refused`);
  });

  it('search_logs: refuses bad arguments cleanly; results are newest first, without content, and agree with a model of the ledger', async () => {
    await fc.assert(
      fc.asyncProperty(searchPlan, async (plan) => {
        await runner.exercise('search_logs hostile', plan);
      }),
      params(700),
    );
    const c = runner.countsFor('search_logs hostile');
    assert.ok(c.accepted >= 100 && c.refused >= 100, `too few of one kind: ${c.accepted} accepted, ${c.refused} refused`);
  });

  it('search_logs dates: a bound is refused exactly when it is not ISO 8601, and accepted bounds filter by the right instant', async () => {
    await fc.assert(
      fc.asyncProperty(datePlan, async (plan) => {
        await runner.exercise('search_logs dates', plan);
      }),
      params(400),
    );
  });

  it('search_logs text: words, "phrases", prefix*, OR and -exclusions find exactly what a model of the grammar finds', async () => {
    await fc.assert(
      fc.asyncProperty(ftsEntryPlan, async (plan) => {
        const out = await runner.exercise('search_logs text (entries logged)', plan, { ping: false });
        assert.ok(out.ok, 'a valid entry was refused');
      }),
      { seed, numRuns: runs(60), endOnFailure: true },
    );
    assert.ok(runner.model.list.filter((e) => e.projectId === FTS_PROJECT).length >= 10);
    await fc.assert(
      fc.asyncProperty(ftsSearchPlan, async (plan) => {
        await runner.exercise('search_logs text', plan);
      }),
      params(300),
    );
  });

  it('arguments that are not a JSON object are refused as invalid params, naming the rule', async () => {
    await fc.assert(
      fc.asyncProperty(rawArgumentsPlan, async (plan) => {
        const out = await runner.exercise('non-object arguments', plan);
        assert.ok(!out.ok, 'non-object arguments were accepted');
      }),
      params(100),
    );
  });

  it('concurrent batches of hostile calls: each answered on its own, the ledger grows by exactly the accepted log_progress calls', async () => {
    const property = 'concurrent batches';
    await fc.assert(
      fc.asyncProperty(fc.array(anyPlan, { minLength: 2, maxLength: 8 }), async (plans) => {
        const before = await runner.harness.seq();
        const outcomes: Outcome[] = await Promise.all(plans.map((plan) => runner.exercise(property, plan, { exact: false, ping: false })));
        const logged = outcomes.filter((o, i) => o.ok && plans[i]!.tool === 'log_progress').length;
        assert.equal((await runner.harness.seq()) - before, logged, 'the ledger did not grow by exactly the accepted log_progress calls');
        await runner.ping(property);
      }),
      { seed, numRuns: runs(60), endOnFailure: true },
    );
  });

  it('the server logged no error and no stack trace, and still answers', async () => {
    runner.checkLog('end of the properties');
    await runner.ping('final');
  });
});
