// The ledger host's part of the schema: what each write carrying an id returned, so that a call
// retried after its host died is answered instead of applied twice. Rows older than ten minutes
// are pruned by later writes. Append migrations; never edit a shipped one.

import type { SchemaStream } from '../engine';

export const hostSchema: SchemaStream = {
  name: 'host',
  migrations: [
    {
      version: 1,
      description: 'write ids: results of writes a client may retry',
      statements: ['CREATE TABLE _write_results (id TEXT PRIMARY KEY, result TEXT NOT NULL, at INTEGER NOT NULL)', 'CREATE INDEX idx_write_results_at ON _write_results (at)'],
    },
  ],
};
