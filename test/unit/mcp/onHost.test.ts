// The MCP tool tests of every toolset that keeps data in the ledger, run a third time through a
// ledger host: each server's Services reach the ledger file through a real host process (started
// from source, detached), the same test files loaded again inside this suite.

import * as assert from 'node:assert/strict';
import { ledgerBackend, setLedgerBackend } from '../../helpers/inMemoryServer';
import { hostsOpened } from '../../../src/core/host/client';
import { registerToolTestsAgain } from '../../helpers/mcpModes';

describe('MCP tools with the ledger through a ledger host', function () {
  this.timeout(120_000);
  let openedBefore = 0;
  before(() => {
    openedBefore = hostsOpened();
    setLedgerBackend('host');
  });
  after(() => setLedgerBackend('sqlite'));
  registerToolTestsAgain();
  describe('afterwards', () => {
    it("opened those servers' ledgers through a host", () => {
      assert.equal(ledgerBackend(), 'host');
      assert.ok(hostsOpened() - openedBefore >= 40, `only ${hostsOpened() - openedBefore} ledgers were opened through a host`);
    });
  });
});
