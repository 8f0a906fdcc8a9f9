// The bearer token file beside the ledger (issue 13 item 6): one others could read is replaced by
// a new 0600 file with a fresh token, and its old token stops working; a 0600 file is kept; what
// is not a regular file is refused. The built server with --http as a real process, real clients.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { httpClient, rawRequest, startHttpServer, type HttpServerProcess } from '../helpers/httpServer';
import { cleanEnv, SERVER } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

const OLD = 'old-token-others-could-read-0123456789';

describe('the HTTP token file', function () {
  this.timeout(60_000);
  useTempDirs();
  const running: HttpServerProcess[] = [];
  afterEach(async () => {
    while (running.length > 0) await running.pop()!.stop();
  });

  async function serve(db: string): Promise<HttpServerProcess> {
    const s = await startHttpServer(db, { env: { AGENT_PROGRESS_HTTP_TOKEN: '' } });
    running.push(s);
    return s;
  }

  it('replaces a world-readable token file with a fresh token in a 0600 file, and refuses the old token', async () => {
    const db = path.join(tempDir(), 'data.db');
    const tokenFile = `${db}.http-token`;
    fs.writeFileSync(tokenFile, `${OLD}\n`);
    fs.chmodSync(tokenFile, 0o644);
    const s = await serve(db);
    assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
    const fresh = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.notEqual(fresh, OLD);
    assert.match(s.stderr(), /could be read by other users \(mode 644\)/);
    assert.ok(!s.stderr().includes(fresh), 'the new token is not logged');
    const refused = await rawRequest(s.port, { path: '/mcp', method: 'POST', headers: { authorization: `Bearer ${OLD}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    const { client } = await httpClient(s.port, fresh);
    await client.close();
  });

  it('keeps the token of a 0600 file', async () => {
    const db = path.join(tempDir(), 'data.db');
    const tokenFile = `${db}.http-token`;
    fs.writeFileSync(tokenFile, `${OLD}\n`, { mode: 0o600 });
    fs.chmodSync(tokenFile, 0o600);
    const s = await serve(db);
    assert.equal(fs.readFileSync(tokenFile, 'utf8').trim(), OLD);
    const { client } = await httpClient(s.port, OLD);
    await client.close();
  });

  it('refuses a token file that is a FIFO, leaving it in place', async () => {
    const db = path.join(tempDir(), 'data.db');
    const tokenFile = `${db}.http-token`;
    assert.equal(spawnSync('mkfifo', [tokenFile]).status, 0);
    const r = spawnSync(process.execPath, [SERVER, '--toolset', 'queue', '--http', '0'], {
      env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_HTTP_TOKEN: '' }),
      timeout: 30_000,
    });
    assert.equal(r.status, 2, r.stderr.toString());
    assert.match(r.stderr.toString(), /token file .*is a named pipe \(FIFO\)/);
    assert.ok(fs.lstatSync(tokenFile).isFIFO());
  });
});
