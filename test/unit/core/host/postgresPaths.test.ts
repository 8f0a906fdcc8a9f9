// Where the ledger host of a PostgreSQL ledger lives (hostPathsForUrl): a private folder of the
// user's runtime folder named by a hash of the whole connection string, the password shown
// nowhere in what the paths name, and the folder it serves its own.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { hostPaths, hostPathsForUrl, servedFolder } from '../../../../src/core/host/paths';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

const URL_A = 'postgres://agent:s3cret-one@db.internal:5432/agent_progress?sslmode=require';

describe('the ledger host paths of a PostgreSQL ledger', () => {
  useTempDirs();
  let saved: string | undefined;
  let runtime: string;
  beforeEach(() => {
    saved = process.env.XDG_RUNTIME_DIR;
    runtime = tempDir('ap-pgpaths-');
    process.env.XDG_RUNTIME_DIR = runtime;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
  });

  it('puts its folder, socket and files in the runtime folder, named by a hash, and shows the connection string redacted', () => {
    const p = hostPathsForUrl(URL_A);
    const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
    assert.match(p.dir, new RegExp(`^${runtime.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${path.sep}agent-progress-${uid}${path.sep}pg-[0-9a-f]{24}$`));
    for (const file of [p.pid, p.token, p.startLock, p.standby, p.handover, p.log]) assert.equal(path.dirname(file), p.dir);
    if (process.platform !== 'win32') assert.equal(p.socket, path.join(p.dir, 'sock'));
    assert.equal(p.databaseUrl, URL_A);
    assert.equal(p.ledger, 'postgres://agent:[redacted]@db.internal:5432/agent_progress?sslmode=require');
    for (const named of [p.dir, p.socket, p.pid, p.log, p.ledger]) assert.ok(!named.includes('s3cret-one'), `${named} names the password`);
    assert.equal(servedFolder(p), p.dir, 'it serves its own folder: a database has none');
  });

  it('gives one host to one connection string, however it is padded, and another to another password, user or database', () => {
    const p = hostPathsForUrl(URL_A);
    assert.equal(hostPathsForUrl(`  ${URL_A}\n`).dir, p.dir);
    const others = [
      URL_A.replace('s3cret-one', 's3cret-two'),
      URL_A.replace('agent:', 'other:'),
      URL_A.replace('/agent_progress', '/another'),
      URL_A.replace(':5432', ':5433'),
    ].map((url) => hostPathsForUrl(url).dir);
    assert.equal(new Set([p.dir, ...others]).size, 5);
  });

  it('gives one host to the spellings of one connection string, and another to other parameters', () => {
    const url = 'postgres://agent:s3cret%40one@db.internal:5432/agent_progress?sslmode=require&application_name=ap';
    const dir = hostPathsForUrl(url).dir;
    for (const spelling of [
      'postgresql://agent:s3cret%40one@db.internal:5432/agent_progress?sslmode=require&application_name=ap',
      'postgres://agent:s3cret%40one@DB.Internal:5432/agent_progress?sslmode=require&application_name=ap',
      'postgres://agent:s3cret%40one@db.internal/agent_progress?sslmode=require&application_name=ap',
      'postgres://agent:s3cret%40one@db.internal:5432/agent_progress?application_name=ap&sslmode=require',
      'postgres://%61gent:s3cret%40one@db.internal:5432/agent_progress?sslmode=require&application_name=ap',
    ]) {
      assert.equal(hostPathsForUrl(spelling).dir, dir, spelling);
      assert.equal(hostPathsForUrl(spelling).databaseUrl, spelling, 'the host is given the string as it was written');
    }
    for (const other of [
      url.replace('sslmode=require', 'sslmode=disable'),
      url.replace('&application_name=ap', ''),
      url.replace('agent:', 'Agent:'),
      url.replace('@db.internal:5432', '@db.internal:5433'),
      'postgres://agent@/agent_progress?host=/var/run/postgresql',
    ]) {
      assert.notEqual(hostPathsForUrl(other).dir, dir, other);
    }
    // A string that is no postgres URL names its host as it is written.
    assert.equal(hostPathsForUrl('host=/tmp dbname=ap').dir, hostPathsForUrl(' host=/tmp dbname=ap ').dir);
    assert.notEqual(hostPathsForUrl('host=/tmp dbname=ap').dir, hostPathsForUrl('dbname=ap host=/tmp').dir);
  });

  it("follows the runtime folder named when asked (a test's, a session's), and a file's host stays beside its ledger", () => {
    const first = hostPathsForUrl(URL_A).dir;
    const other = tempDir('ap-pgpaths-');
    process.env.XDG_RUNTIME_DIR = other;
    assert.ok(hostPathsForUrl(URL_A).dir.startsWith(`${other}${path.sep}`));
    assert.notEqual(hostPathsForUrl(URL_A).dir, first);
    const file = path.join(other, 'ledger', 'data.db');
    const f = hostPaths(file);
    assert.equal(f.databaseUrl, undefined);
    assert.equal(servedFolder(f), path.dirname(f.ledger));
  });
});
