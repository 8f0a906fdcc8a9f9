// The MCP tool tests of every toolset that keeps data in the ledger, registered again inside the
// calling suite (onHost, onPostgres, onPostgresHost): each file is loaded afresh so that its suites
// register there, and left out of the require cache again so that mocha's own load of it (before
// or after) registers its run on the ledger file too. connectInMemory opens the ledgers on
// whatever backend the suite set (inMemoryServer.ts setLedgerBackend).

import * as path from 'node:path';

const FILES = [
  'server.test',
  'queueTools.test',
  'queueGuards.test',
  'workflowServer.test',
  'reviewServer.test',
  'agentFacing.test',
  'progressProperties.test',
  'queueProperties.test',
];

export function registerToolTestsAgain(): void {
  for (const file of FILES) {
    const resolved = require.resolve(path.join(__dirname, '..', 'unit', 'mcp', file));
    delete require.cache[resolved];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- mocha registers a file's suites when it is required
    require(resolved);
    delete require.cache[resolved];
  }
}
