// The MCP tool tests of every toolset that keeps data in the ledger, run a second time with the
// ledger on PostgreSQL (a throwaway server from test/helpers/postgres.ts): the same test files,
// loaded again inside this suite, with connectInMemory opening a fresh database per server.
// Skipped with a message when PostgreSQL is not installed (never on CI).

import { setLedgerBackend } from '../../helpers/inMemoryServer';
import * as assert from 'node:assert/strict';
import { databasesCreated, usePostgres } from '../../helpers/postgres';

const FILES = [
  './server.test',
  './queueTools.test',
  './queueGuards.test',
  './workflowServer.test',
  './reviewServer.test',
  './agentFacing.test',
  './progressProperties.test',
  './queueProperties.test',
];

describe('MCP tools with the ledger on PostgreSQL', function () {
  this.timeout(60_000);
  usePostgres();
  let createdBefore = 0;
  before(() => {
    createdBefore = databasesCreated();
    setLedgerBackend('postgres');
  });
  after(() => setLedgerBackend('sqlite'));
  for (const file of FILES) {
    // Load each file afresh so its suites register here, and leave it out of the cache again so
    // that mocha's own load of it (before or after this one) registers the sqlite run too.
    delete require.cache[require.resolve(file)];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- mocha registers a file's suites when it is required
    require(file);
    delete require.cache[require.resolve(file)];
  }
  // Registered after the files' suites, so it runs after them.
  describe('afterwards', () => {
    it("opened those servers' ledgers on PostgreSQL", () => {
      assert.ok(databasesCreated() - createdBefore >= 40, `only ${databasesCreated() - createdBefore} databases were created`);
    });
  });
});
