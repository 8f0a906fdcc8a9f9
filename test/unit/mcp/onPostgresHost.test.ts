// The MCP tool tests of every toolset that keeps data in the ledger, run a fourth time with the
// ledger on PostgreSQL reached through a ledger host: each server's Services open a fresh
// database through a real host process (started from source, detached, its folder in the test
// process's runtime folder), which ranks searches from its index in memory once built. The same
// test files, loaded again inside this suite. Skipped with a message without PostgreSQL (never on CI).

import * as assert from 'node:assert/strict';
import { ledgerBackend, setLedgerBackend } from '../../helpers/inMemoryServer';
import { databasesCreated, usePostgres } from '../../helpers/postgres';
import { hostsOpened } from '../../../src/core/host/client';
import { registerToolTestsAgain } from '../../helpers/mcpModes';

describe('MCP tools with the ledger on PostgreSQL through a ledger host', function () {
  this.timeout(120_000);
  usePostgres();
  let openedBefore = 0;
  let createdBefore = 0;
  before(() => {
    openedBefore = hostsOpened();
    createdBefore = databasesCreated();
    setLedgerBackend('postgres-host');
  });
  after(() => setLedgerBackend('sqlite'));
  registerToolTestsAgain();
  describe('afterwards', () => {
    it("opened those servers' PostgreSQL ledgers through a host", () => {
      assert.equal(ledgerBackend(), 'postgres-host');
      const created = databasesCreated() - createdBefore;
      assert.ok(created >= 40, `only ${created} databases were created`);
      // Servers whose tests never touch the ledger open none.
      assert.ok(hostsOpened() - openedBefore >= 40, `only ${hostsOpened() - openedBefore} ledgers were opened through a host for ${created} databases`);
    });
  });
});
