// The MCP tool tests of every toolset that keeps data in the ledger, run a second time with the
// ledger on PostgreSQL (a throwaway server from test/helpers/postgres.ts): the same test files,
// loaded again inside this suite, with connectInMemory opening a fresh database per server.
// Skipped with a message when PostgreSQL is not installed (never on CI).

import { setLedgerBackend } from '../../helpers/inMemoryServer';
import * as assert from 'node:assert/strict';
import { databasesCreated, usePostgres } from '../../helpers/postgres';
import { registerToolTestsAgain } from '../../helpers/mcpModes';

describe('MCP tools with the ledger on PostgreSQL', function () {
  this.timeout(60_000);
  usePostgres();
  let createdBefore = 0;
  before(() => {
    createdBefore = databasesCreated();
    setLedgerBackend('postgres');
  });
  after(() => setLedgerBackend('sqlite'));
  registerToolTestsAgain();
  // Registered after the files' suites, so it runs after them.
  describe('afterwards', () => {
    it("opened those servers' ledgers on PostgreSQL", () => {
      assert.ok(databasesCreated() - createdBefore >= 40, `only ${databasesCreated() - createdBefore} databases were created`);
    });
  });
});
