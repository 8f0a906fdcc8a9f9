// What a client of the ledger host loads: a process that builds the MCP server of every toolset
// and writes and reads through a real host (started from source, detached) must never load the
// direct engine (sql.js, the SQLite engine, openLedger, the PostgreSQL driver). Observed through
// the child's own module table (require.cache, real files when run from source), beside the same
// script opening the ledger directly, which does load them.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { tempDir } from '../../../helpers/tmp';

const ROOT = path.resolve(__dirname, '../../../..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cjs', 'index.cjs');
const ENGINE = /node_modules[\\/](sql\.js|pg)[\\/]|src[\\/]core[\\/]storage[\\/](openLedger|sqlite[\\/](sqlJs|engine)|postgres[\\/]engine)\.ts$/;

/** Runs the client in a child process; answers the engine modules it had loaded at the end. */
function engineModulesOf(db: string, host: boolean): string[] {
  const script = `
    const { Services } = require(${JSON.stringify(path.join(ROOT, 'src/core/services.ts'))});
    const { createServer } = require(${JSON.stringify(path.join(ROOT, 'src/mcp/server.ts'))});
    const { TOOLSET_NAMES } = require(${JSON.stringify(path.join(ROOT, 'src/mcp/toolsets.ts'))});
    const logger = { debug() {}, info() {}, warn() {}, error() {}, addSecret() {}, once() {} };
    const services = new Services({ config: { dbPath: process.argv[1], openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } }, logger, host: ${host ? '{ idleMs: 60000 }' : 'false'} });
    (async () => {
      for (const toolset of TOOLSET_NAMES) await createServer({ services, logger, toolsets: [toolset], version: '0' }).close();
      const ledger = await services.ledger();
      await ledger.progress.insertEntry({ id: 'm1', projectId: 'mods', title: 'loaded modules', content: 'through the host', createdAt: new Date(0).toISOString(), tags: [], agentId: null });
      const traces = await services.traces();
      await traces.listSessions({ limit: 1 });
      if (${host} && !ledger.host) throw new Error('the ledger was not opened through a host');
      process.stdout.write(JSON.stringify(Object.keys(require.cache)));
      await services.close();
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_PROGRESS_') && !k.startsWith('OPENAI_')) env[k] = v;
  const home = tempDir('ap-mods-home-');
  const run = spawnSync(process.execPath, ['--require', TSX, '-e', script, db], {
    env: { ...env, AGENT_PROGRESS_TRACES_HOME: home, AGENT_PROGRESS_HOST_STANDBY: 'off' },
    encoding: 'utf8',
    timeout: 90_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return (JSON.parse(run.stdout) as string[]).filter((file) => ENGINE.test(file));
}

describe('a client of the ledger host', function () {
  this.timeout(180_000);

  it('never loads the direct engine (sql.js, the SQLite engine, pg) while every toolset is built and the ledger written and read through the host', () => {
    const db = path.join(tempDir('ap-mods-'), 'data.db');
    assert.deepEqual(engineModulesOf(db, true), []);
    // The same observation sees them when the ledger is opened directly.
    const direct = engineModulesOf(path.join(tempDir('ap-mods-'), 'data.db'), false);
    assert.ok(
      direct.some((f) => /sql\.js/.test(f)),
      `a direct open loads sql.js: ${direct.join(', ')}`,
    );
  });
});
