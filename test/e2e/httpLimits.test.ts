// The HTTP server's limits against the built dist/server.js --http, with real HTTP clients: the
// sessions it holds are capped (the least recently used ends) and idle ones end; failed bearer
// attempts are logged without the token and rate-limited per address; the Bearer scheme is
// case-insensitive; a short token on a reachable address is refused; the log names the address
// actually bound.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { httpClient, rawRequest, startHttpServer, TOKEN } from '../helpers/httpServer';
import { cleanEnv, SERVER } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { waitFor } from '../helpers/wait';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };

/** A new session by a bare initialize request; its id. */
async function initialize(port: number): Promise<string> {
  const r = await rawRequest(port, {
    path: '/mcp',
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  assert.equal(r.status, 200, r.body);
  return String(r.headers['mcp-session-id']);
}

/** tools/list in a session: its status and body. */
function listTools(port: number, session: string): Promise<{ status: number; body: string }> {
  return rawRequest(port, {
    path: '/mcp',
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
}

async function metric(port: number, line: string): Promise<number> {
  const r = await rawRequest(port, { path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.status, 200, r.body);
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\d+)$`, 'm').exec(r.body);
  assert.ok(m, `no ${line} in /metrics:\n${r.body}`);
  return Number(m[1]);
}

describe('HTTP server limits (dist/server.js --http)', function () {
  this.timeout(120_000);
  useTempDirs();

  it('holds at most --max-sessions sessions: the least recently used ends, and gets 404', async () => {
    const server = await startHttpServer(path.join(tempDir(), 'data.db'), { args: ['--max-sessions', '3'] });
    try {
      const { client, transport } = await httpClient(server.port);
      await client.listTools();
      const first = transport.sessionId!;
      const later: string[] = [];
      for (let i = 0; i < 40; i++) later.push(await initialize(server.port));

      assert.equal(await metric(server.port, 'agent_progress_http_sessions'), 3);
      assert.equal(await metric(server.port, 'agent_progress_http_sessions_max'), 3);
      assert.equal(await metric(server.port, 'agent_progress_http_sessions_ended_total{reason="capacity"}'), 38);
      const gone = await listTools(server.port, first);
      assert.equal(gone.status, 404);
      assert.deepEqual(JSON.parse(gone.body), { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: initialize a new session' }, id: null });
      await assert.rejects(client.listTools(), /Session not found: initialize a new session/);
      assert.equal((await listTools(server.port, later[0]!)).status, 404, 'ended for good, not restored from the ledger');
      for (const session of later.slice(-3)) assert.equal((await listTools(server.port, session)).status, 200);
      assert.match(server.stderr(), /"msg":"session ended","session_id":"[^"]+","reason":"capacity"/);
      await client.close().catch(() => undefined);
    } finally {
      await server.stop();
    }
  });

  it('ends a session idle longer than AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES', async () => {
    const server = await startHttpServer(path.join(tempDir(), 'data.db'), { env: { AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES: '0.01' } });
    try {
      const session = await initialize(server.port);
      assert.equal((await listTools(server.port, session)).status, 200);
      // An SDK client keeps its event stream (a GET) open: listening is not a call, it goes idle too.
      const { client } = await httpClient(server.port);
      await client.listTools();
      await waitFor(async () => (await metric(server.port, 'agent_progress_http_sessions')) === 0, 'the idle sessions to end', 30_000, 50);
      assert.equal(await metric(server.port, 'agent_progress_http_sessions_ended_total{reason="idle"}'), 2);
      assert.equal((await listTools(server.port, session)).status, 404);
      await assert.rejects(client.listTools(), /Session not found: initialize a new session/);
      await client.close().catch(() => undefined);
      assert.match(server.stderr(), /ended after 0\.01 minutes idle/);
    } finally {
      await server.stop();
    }
  });

  it('refuses bad session settings with a usage error', () => {
    for (const [args, env, message] of [
      [['--max-sessions', '0'], {}, /--max-sessions needs a whole number of sessions from 1 to 100000, got "0"/],
      [['--session-idle-minutes', 'soon'], {}, /--session-idle-minutes needs a number of minutes above 0/],
      [[], { AGENT_PROGRESS_HTTP_MAX_SESSIONS: '2.5' }, /AGENT_PROGRESS_HTTP_MAX_SESSIONS needs a whole number of sessions/],
    ] as const) {
      const run = spawnSync(process.execPath, [SERVER, '--toolset', 'queue', '--http', '0', ...args], {
        env: cleanEnv({ AGENT_PROGRESS_DB_PATH: path.join(tempDir(), 'data.db'), AGENT_PROGRESS_HTTP_TOKEN: TOKEN, ...env }),
        timeout: 20_000,
      });
      assert.equal(run.status, 2, run.stderr.toString());
      assert.match(run.stderr.toString(), message);
    }
  });

  it('logs failed bearer attempts without the token, and refuses their address with 429 after ten', async () => {
    const server = await startHttpServer(path.join(tempDir(), 'data.db'));
    try {
      // 127.0.0.2 is another loopback address on Linux: another client, as the server sees it.
      const attacker = { localAddress: '127.0.0.2' };
      for (let i = 0; i < 10; i++) {
        const r = await rawRequest(server.port, { ...attacker, path: '/metrics', headers: { authorization: `Bearer guess-number-${i}-xyzzy` } });
        assert.equal(r.status, 401, `attempt ${i + 1}`);
      }
      const blocked = await rawRequest(server.port, { ...attacker, path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(blocked.status, 429, 'refused even with the right token: a guess made now would learn nothing');
      const retryAfter = Number(blocked.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${blocked.headers['retry-after']}`);
      assert.match((JSON.parse(blocked.body) as { error: string }).error, /^Too many failed bearer attempts from 127\.0\.0\.2; retry in \d+ s with the right token$/);
      assert.equal((await rawRequest(server.port, { ...attacker, path: '/healthz' })).status, 200, '/healthz needs no token');

      // Another address is not held responsible.
      assert.equal(await metric(server.port, 'agent_progress_http_auth_failures_total'), 10);
      assert.equal(await metric(server.port, 'agent_progress_http_rate_limited_total'), 1);
      const lines = server
        .stderr()
        .split('\n')
        .filter((l) => l.includes('refused a request'));
      assert.equal(lines.length, 10);
      assert.match(lines[0]!, /"msg":"refused a request: wrong bearer token","remote":"127\.0\.0\.2","path":"\/metrics","attempts":1/);
      assert.match(server.stderr(), /"msg":"refusing every request from 127\.0\.0\.2 for 60 s after 10 failed bearer attempts"/);
      assert.doesNotMatch(server.stderr(), /guess-number|xyzzy/, 'the token given is never logged');
    } finally {
      await server.stop();
    }
  });

  it('matches the Bearer scheme whatever its case', async () => {
    const server = await startHttpServer(path.join(tempDir(), 'data.db'));
    try {
      for (const header of [`bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer   ${TOKEN}`]) {
        assert.equal((await rawRequest(server.port, { path: '/metrics', headers: { authorization: header } })).status, 200, header);
      }
      for (const header of [`Basic ${TOKEN}`, `Bearer`, TOKEN]) {
        assert.equal((await rawRequest(server.port, { path: '/metrics', headers: { authorization: header } })).status, 401, header);
      }
    } finally {
      await server.stop();
    }
  });

  it('refuses a short token on an address other machines reach, and names the address it binds', async () => {
    const refused = spawnSync(process.execPath, [SERVER, '--toolset', 'queue', '--http', '0', '--host', '0.0.0.0'], {
      env: cleanEnv({ AGENT_PROGRESS_DB_PATH: path.join(tempDir(), 'data.db'), AGENT_PROGRESS_HTTP_TOKEN: 'only-twenty-chars-xx' }),
      timeout: 20_000,
    });
    assert.equal(refused.status, 2, refused.stderr.toString());
    assert.match(
      refused.stderr.toString(),
      /^agent-progress-mcp: Refusing to listen on 0\.0\.0\.0, which other machines can reach, with a bearer token of 20 characters: set AGENT_PROGRESS_HTTP_TOKEN to at least 32 random characters/m,
    );
    assert.doesNotMatch(refused.stderr.toString(), /only-twenty-chars-xx/);

    const server = await startHttpServer(path.join(tempDir(), 'data.db'), { args: ['--host', 'localhost'] });
    try {
      const start = server
        .stderr()
        .split('\n')
        .map((l) => JSON.parse(l || '{}') as { msg?: string; address?: string; port?: number })
        .find((r) => r.msg?.startsWith('Agent Progress'))!;
      assert.ok(start.address === '127.0.0.1' || start.address === '::1', String(start.address));
      assert.equal(start.port, server.port);
      assert.notEqual(server.port, 0);
      const shown = start.address === '::1' ? `[::1]:${server.port}` : `127.0.0.1:${server.port}`;
      assert.match(start.msg!, new RegExp(`listening on ${shown.replace(/[.[\]]/g, '\\$&')} `));
      assert.equal((await rawRequest(server.port, { host: start.address, path: '/healthz' })).status, 200);
    } finally {
      await server.stop();
    }
  });
});
