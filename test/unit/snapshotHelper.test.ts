// The snapshot helper: a missing snapshot fails in CI (deleting one must not make a run pass),
// is written on a developer's machine, and a changed listing fails everywhere.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { matchSnapshot } from '../helpers/snapshot';
import { tempDir, useTempDirs } from '../helpers/tmp';

describe('tool listing snapshots', () => {
  useTempDirs();

  it('fails on a missing snapshot when CI is set, and writes nothing', () => {
    const file = path.join(tempDir(), 'tools.json');
    assert.throws(() => matchSnapshot(file, '[]\n', { CI: 'true' }), /snapshot .*tools\.json is missing: run the tests with UPDATE_SNAPSHOTS=1/);
    assert.equal(fs.existsSync(file), false);
  });

  it('writes a missing snapshot outside CI, then holds the listing to it', () => {
    const file = path.join(tempDir(), 'tools.json');
    matchSnapshot(file, '[1]\n', {});
    assert.equal(fs.readFileSync(file, 'utf8'), '[1]\n');
    assert.throws(() => matchSnapshot(file, '[2]\n', {}), /tools\/list changed/);
    matchSnapshot(file, '[2]\n', { UPDATE_SNAPSHOTS: '1' });
    assert.equal(fs.readFileSync(file, 'utf8'), '[2]\n');
  });
});
