// Snapshot files for tool listings. A changed listing fails until reviewed and rewritten with
// UPDATE_SNAPSHOTS=1. A missing snapshot is written on a developer's machine (a new toolset's first
// run), but fails when CI is set: deleting a snapshot must never make a CI run pass.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';

export function matchSnapshot(file: string, actual: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.UPDATE_SNAPSHOTS === '1') fs.writeFileSync(file, actual);
  else if (!fs.existsSync(file)) {
    if (env.CI) assert.fail(`snapshot ${file} is missing: run the tests with UPDATE_SNAPSHOTS=1 on your machine, review it, and commit it`);
    fs.writeFileSync(file, actual);
  }
  assert.equal(actual, fs.readFileSync(file, 'utf8'), 'tools/list changed: review, then run with UPDATE_SNAPSHOTS=1');
}
