// Streamable HTTP transport (node dist/server.js --http PORT): 127.0.0.1 by default, a bearer
// token on every request but /healthz (failed attempts logged and rate-limited per address), Host
// and Origin checked against DNS rebinding, one MCP server per session, sessions kept in the
// ledger so that a client's session (and the agent it authenticated as) survives a restart, at
// most maxSessions of them held (the least recently used ends first) and idle ones ended,
// /metrics for Prometheus, a graceful shutdown.

import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as dns from 'node:dns/promises';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { Readable } from 'node:stream';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { readRegularTextSync, specialKind } from '../core/regularFile';
import { writeFileAtomicSync } from '../core/storage/files';
import type { MemoryIndexStats } from '../core/storage/store';
import type { Logger } from '../core/log';
import { newQueueSession, type QueueSession } from '../core/queue/session';
import type { Services } from '../core/services';
import { createServer } from './server';
import type { ToolsetName } from './toolsets';

export interface HttpOptions {
  port: number;
  host: string;
  token: string;
  /** Extra Host header values accepted (behind a proxy), e.g. "queue.example.com". */
  allowedHosts: string[];
  /** Extra Origin values accepted, e.g. "https://dashboard.example.com". */
  allowedOrigins: string[];
  /** Sessions held at once; a new one beyond it ends the least recently used. */
  maxSessions: number;
  /** A session unused this long ends (and its ledger row goes). */
  sessionIdleMs: number;
}

export { HTTP_SESSION_DEFAULTS } from './httpDefaults';
/** Failed bearer attempts an address may make per window before it is refused (429) for one. */
export const AUTH_FAILURE_LIMIT = 10;
export const AUTH_WINDOW_MS = 60_000;
/** Tokens shorter than this are refused on an address other machines can reach. */
export const MIN_NETWORK_TOKEN_LENGTH = 32;

/** A start refused for a reason the person can fix (exit 2 with the message). */
export class HttpStartRefused extends Error {}

export interface HttpDeps {
  services: Services;
  logger: Logger;
  toolsets: readonly ToolsetName[];
  version: string;
  project?: string | undefined;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  /** The address actually bound, e.g. "127.0.0.1", "::1" or "0.0.0.0". */
  address: string;
  /** Stops accepting, lets requests in flight finish, keeps sessions for the next start. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  queue: QueueSession;
  /** Calls of this session under way (POST, DELETE; not the GET event stream). */
  busy: number;
  lastActive: number;
  /** When its ledger row's last_seen was last written. */
  savedAt: number;
  endReason?: EndReason;
  ended?: boolean;
}

type EndReason = 'closed' | 'idle' | 'capacity';

/** Failed bearer attempts of one remote address in the current window. */
interface Strikes {
  count: number;
  windowStart: number;
  blockedUntil: number;
}

export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.');
}

/** Whether every address `host` names is a loopback one (so other machines cannot connect). */
async function loopbackOnly(host: string): Promise<boolean> {
  if (net.isIP(host)) return isLoopbackAddress(host);
  try {
    const all = await dns.lookup(host, { all: true });
    return all.length > 0 && all.every((a) => isLoopbackAddress(a.address));
  } catch {
    return true; // unresolvable: listen fails with its own message
  }
}

/** The bearer token of an Authorization header; the scheme is case-insensitive (RFC 7235). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = header.trim();
  const space = value.search(/[ \t]/);
  if (space < 0 || value.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const token = value.slice(space + 1).trim();
  return token === '' ? undefined : token;
}

/**
 * The bearer token: from the environment, else kept in a 0600 file beside the ledger. A saved
 * token in a file others could read is not trusted: a fresh one replaces it in a new 0600 file
 * (never written into the old, readable one), with a warning. Anything but a regular file there
 * is refused.
 */
export function httpToken(env: NodeJS.ProcessEnv, tokenFile: string): { token: string; source: string; warning?: string } {
  const fromEnv = env.AGENT_PROGRESS_HTTP_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: 'AGENT_PROGRESS_HTTP_TOKEN' };
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(tokenFile);
  } catch {
    st = undefined; // not there yet
  }
  const kind = st && specialKind(st);
  if (kind) throw new HttpStartRefused(`The token file ${tokenFile} is ${kind}, not a regular file: it was left untouched. Remove it, or set AGENT_PROGRESS_HTTP_TOKEN.`);
  const loose = st !== undefined && process.platform !== 'win32' && (st.mode & 0o077) !== 0;
  if (st && !loose) {
    try {
      const saved = readRegularTextSync(tokenFile, { maxBytes: 4096, what: 'The token file' }).trim();
      if (saved.length >= 16) return { token: saved, source: tokenFile };
    } catch {
      // unreadable or too large: replaced below
    }
  }
  const token = randomBytes(32).toString('base64url');
  // A new file (temp, 0600, renamed over the old one): the old file's permissions never apply to it.
  writeFileAtomicSync(tokenFile, Buffer.from(token + '\n'));
  const warning = loose
    ? `The token file ${tokenFile} could be read by other users (mode ${(st!.mode & 0o777).toString(8)}): its token is no longer accepted; a new one was written to it with mode 600.`
    : undefined;
  return { token, source: tokenFile, ...(warning ? { warning } : {}) };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function toWebRequest(req: http.IncomingMessage, url: string, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value);
  }
  return new Request(url, { method: req.method ?? 'GET', headers, ...(body && body.length > 0 ? { body: new Uint8Array(body) } : {}) });
}

async function sendWebResponse(response: Response, res: http.ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const stream = Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]);
  res.on('close', () => stream.destroy());
  await new Promise<void>((resolve) => {
    stream.on('end', resolve).on('error', resolve).on('close', resolve);
    stream.pipe(res);
  });
}

export async function startHttpServer(deps: HttpDeps, options: HttpOptions): Promise<RunningHttpServer> {
  // A short token is guessable from the network; refuse before anything is bound.
  if (options.token.length < MIN_NETWORK_TOKEN_LENGTH && !(await loopbackOnly(options.host))) {
    throw new HttpStartRefused(
      `Refusing to listen on ${options.host}, which other machines can reach, with a bearer token of ${options.token.length} characters: ` +
        `set AGENT_PROGRESS_HTTP_TOKEN to at least ${MIN_NETWORK_TOKEN_LENGTH} random characters (e.g. $(openssl rand -hex 24)), or unset it to use a generated one.`,
    );
  }
  const sessions = new Map<string, Session>();
  const ended: Record<EndReason, number> = { closed: 0, idle: 0, capacity: 0 };
  const strikes = new Map<string, Strikes>();
  let authFailures = 0;
  let rateLimited = 0;
  let inFlight = 0;
  let closing = false;
  let port = options.port;
  const bracketed = (h: string): string => (net.isIPv6(h) ? `[${h}]` : h);
  const hostsFor = (p: number): Set<string> =>
    new Set([
      `127.0.0.1:${p}`,
      `localhost:${p}`,
      `[::1]:${p}`,
      ...(options.host !== '127.0.0.1' && options.host !== '0.0.0.0' ? [`${bracketed(options.host)}:${p}`] : []),
      ...options.allowedHosts,
    ]);
  const originsFor = (p: number): Set<string> => new Set([`http://127.0.0.1:${p}`, `http://localhost:${p}`, `http://[::1]:${p}`, ...options.allowedOrigins]);
  // Active sessions keep their ledger row fresh, so that rows idle longer than sessionIdleMs can go.
  const touchMs = Math.min(options.sessionIdleMs / 4, 15 * 60_000);

  /**
   * Forgets a session for good: its ledger row and its agent's connection, then memory (until
   * then a request for it is answered 404, and is not restored from the row). Once.
   */
  const forget = async (entry: Session, reason: EndReason): Promise<void> => {
    if (entry.ended) return;
    entry.ended = true;
    const sid = entry.transport.sessionId;
    ended[reason]++;
    if (reason !== 'closed') deps.logger.info('session ended', { session_id: sid, reason, agent_id: entry.queue.agent?.name, project_id: entry.queue.agent?.projectId });
    await deps.services
      .queue()
      .then((q) => q.endSession(entry.queue))
      .catch((err: unknown) => deps.logger.warn(`Could not remove an ended session from the ledger: ${(err as Error).message}`));
    if (sid && sessions.get(sid) === entry) sessions.delete(sid);
  };

  const end = async (entry: Session, reason: EndReason): Promise<void> => {
    entry.endReason = reason;
    await Promise.all([forget(entry, reason), entry.transport.close().catch(() => undefined)]);
  };

  const touch = (entry: Session, now: number): void => {
    if (entry.ended || now - entry.savedAt < touchMs) return;
    entry.savedAt = now;
    const q = entry.queue;
    void deps.services
      .ledger()
      .then((l) =>
        l.queue.saveSession({ id: q.id, projectId: q.projectId ?? null, agentName: q.agent?.name ?? null, createdAt: q.createdAt, lastSeen: new Date(now).toISOString() }),
      )
      .catch((err: unknown) => deps.logger.warn(`Could not record a session's activity: ${(err as Error).message}`));
  };

  /**
   * Ends the least recently used idle sessions until a new one fits beside those held and those
   * being initialized (`starts`); false when all are busy.
   */
  let starts = 0;
  const makeRoom = async (): Promise<boolean> => {
    const live = (): number => [...sessions.values()].filter((e) => !e.ended).length;
    while (live() + starts >= options.maxSessions) {
      let victim: Session | undefined;
      for (const e of sessions.values()) if (!e.ended && e.busy === 0 && (!victim || e.lastActive < victim.lastActive)) victim = e;
      if (!victim) return false;
      await end(victim, 'capacity');
    }
    return true;
  };

  const open = async (queue: QueueSession, id?: string): Promise<Session> => {
    const server = createServer({ services: deps.services, logger: deps.logger, toolsets: deps.toolsets, version: deps.version, project: deps.project, session: queue });
    const now = Date.now();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id ?? randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sid) => {
        queue.id = sid;
        sessions.set(sid, entry);
      },
    });
    const entry: Session = { transport, queue, busy: 0, lastActive: now, savedAt: now };
    transport.onclose = () => {
      // The client ended its session (DELETE), or this server did: forget it, and its agent is
      // no longer connected. At shutdown sessions stay in the ledger for the next start.
      if (!closing && transport.sessionId) void forget(entry, entry.endReason ?? 'closed');
    };
    await server.connect(transport);
    return entry;
  };

  /** A session the ledger remembers (a restart happened): rebuilt, then initialized internally. */
  const restore = async (sid: string): Promise<Session | 'unknown' | 'full'> => {
    const queue = await (await deps.services.queue()).restoreSession(sid);
    if (!queue) return 'unknown';
    if (!(await makeRoom())) return 'full';
    const entry = await open(queue, sid);
    entry.savedAt = 0; // its row's last_seen is old: refresh it with this call
    const init = new Request(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'restored-session', version: '1' } },
      }),
    });
    await (await entry.transport.handleRequest(init)).text();
    await entry.transport.handleRequest(
      new Request(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      }),
    );
    deps.logger.info('session restored after a restart', { session_id: sid, agent_id: queue.agent?.name, project_id: queue.agent?.projectId });
    return entry;
  };

  /** A request without the right token: logged (never the token given) and counted for its address. */
  const refuse = (res: http.ServerResponse, remote: string, path: string, reason: string): void => {
    authFailures++;
    const now = Date.now();
    let s = strikes.get(remote);
    if (!s || now - s.windowStart >= AUTH_WINDOW_MS) {
      s = { count: 0, windowStart: now, blockedUntil: 0 };
      strikes.delete(remote);
      strikes.set(remote, s);
      // Forget the oldest addresses rather than grow without bound.
      while (strikes.size > 10_000) strikes.delete(strikes.keys().next().value!);
    }
    s.count++;
    deps.logger.warn(`refused a request: ${reason}`, { remote, path, attempts: s.count });
    if (s.count >= AUTH_FAILURE_LIMIT) {
      s.blockedUntil = now + AUTH_WINDOW_MS;
      deps.logger.warn(`refusing every request from ${remote} for ${AUTH_WINDOW_MS / 1000} s after ${s.count} failed bearer attempts`, { remote });
    }
    sendJson(
      res,
      401,
      { error: 'A bearer token is required: Authorization: Bearer <token> (AGENT_PROGRESS_HTTP_TOKEN, or the token file the server names at start)' },
      { 'www-authenticate': 'Bearer' },
    );
  };

  const httpMetrics = (): string =>
    [
      '# HELP agent_progress_http_sessions MCP sessions this server holds.',
      '# TYPE agent_progress_http_sessions gauge',
      `agent_progress_http_sessions ${sessions.size}`,
      '# HELP agent_progress_http_sessions_max Sessions this server holds at most (--max-sessions).',
      '# TYPE agent_progress_http_sessions_max gauge',
      `agent_progress_http_sessions_max ${options.maxSessions}`,
      '# HELP agent_progress_http_sessions_ended_total Sessions ended, by reason: closed by the client, idle, capacity (the least recently used, for a new one).',
      '# TYPE agent_progress_http_sessions_ended_total counter',
      ...(['closed', 'idle', 'capacity'] as const).map((r) => `agent_progress_http_sessions_ended_total{reason="${r}"} ${ended[r]}`),
      '# HELP agent_progress_http_auth_failures_total Requests refused for a missing or wrong bearer token.',
      '# TYPE agent_progress_http_auth_failures_total counter',
      `agent_progress_http_auth_failures_total ${authFailures}`,
      '# HELP agent_progress_http_rate_limited_total Requests refused (429) from an address after too many failed bearer attempts.',
      '# TYPE agent_progress_http_rate_limited_total counter',
      `agent_progress_http_rate_limited_total ${rateLimited}`,
    ].join('\n') + '\n';

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const host = req.headers.host ?? '';
    if (!hostsFor(port).has(host)) {
      deps.logger.warn('refused a request for another host (DNS rebinding?)', { host });
      return sendJson(res, 403, { error: `Host ${JSON.stringify(host)} is not allowed; use 127.0.0.1:${port} or start the server with --allowed-hosts` });
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !originsFor(port).has(origin)) {
      deps.logger.warn('refused a request from another origin', { origin });
      return sendJson(res, 403, { error: `Origin ${JSON.stringify(origin)} is not allowed; start the server with --allowed-origins to accept it` });
    }
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: closing ? 'stopping' : 'ok' });
    const remote = req.socket.remoteAddress ?? 'unknown';
    const blocked = strikes.get(remote);
    if (blocked && blocked.blockedUntil > Date.now()) {
      // Refused before the token is even compared: a guess made now learns nothing.
      rateLimited++;
      const wait = Math.max(1, Math.ceil((blocked.blockedUntil - Date.now()) / 1000));
      return sendJson(res, 429, { error: `Too many failed bearer attempts from ${remote}; retry in ${wait} s with the right token` }, { 'retry-after': String(wait) });
    }
    const auth = req.headers.authorization;
    const given = bearerToken(auth);
    if (!given) return refuse(res, remote, url.pathname, auth ? 'not a bearer token' : 'no bearer token');
    if (!sameSecret(given, options.token)) return refuse(res, remote, url.pathname, 'wrong bearer token');
    if (closing) return rpcError(res, 503, -32000, 'The server is shutting down; retry in a moment');
    if (url.pathname === '/metrics') {
      if (req.method !== 'GET') return sendJson(res, 405, { error: 'Use GET' });
      const text = (await (await deps.services.queue()).metrics()) + httpMetrics() + searchIndexMetrics((await deps.services.ledger()).progress.memoryIndexStats?.());
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(text);
      return;
    }
    if (url.pathname !== '/mcp') return sendJson(res, 404, { error: 'Not found: the MCP endpoint is /mcp' });

    let body: Buffer | undefined;
    if (req.method === 'POST') {
      try {
        body = await readBody(req, 4 << 20);
      } catch {
        return rpcError(res, 413, -32600, 'Request body over 4 MB');
      }
    }
    const sid = req.headers['mcp-session-id'];
    let entry: Session | undefined;
    const full = (): void => rpcError(res, 503, -32000, `All ${options.maxSessions} sessions are busy; retry in a moment`);
    let starting = false;
    if (typeof sid === 'string') {
      const found = sessions.get(sid) ?? (await restore(sid));
      if (found === 'unknown' || (found !== 'full' && found.ended)) return rpcError(res, 404, -32001, 'Session not found: initialize a new session');
      if (found === 'full') return full();
      entry = found;
    } else {
      if (req.method !== 'POST') return rpcError(res, 400, -32000, 'Mcp-Session-Id header is required');
      if (startsSession(body)) {
        if (!(await makeRoom())) return full();
        starting = true;
        starts++;
      }
      entry = await open(newQueueSession({ persistent: true }));
    }
    // A GET is the client's standing event stream, open while it is connected: not a call, so a
    // session whose client only listens still goes idle and may be ended for a new one.
    const call = req.method !== 'GET';
    if (call) entry.busy++;
    entry.lastActive = Date.now();
    try {
      const response = await entry.transport.handleRequest(toWebRequest(req, url.toString(), body)).finally(() => {
        if (starting) starts--;
      });
      if (typeof sid !== 'string' && entry.transport.sessionId) {
        // A new session: remember it, so that it survives a restart.
        const q = entry.queue;
        await (await deps.services.ledger()).queue.saveSession({ id: q.id, projectId: null, agentName: null, createdAt: q.createdAt, lastSeen: new Date().toISOString() });
      }
      await sendWebResponse(response, res);
    } finally {
      if (call) {
        entry.busy--;
        entry.lastActive = Date.now();
        touch(entry, entry.lastActive);
      }
    }
  };

  /** Ends sessions idle too long, keeps busy ones' rows fresh, and drops stale rows from the ledger. */
  let lastLedgerSweep = 0;
  const sweep = async (): Promise<void> => {
    const now = Date.now();
    for (const entry of [...sessions.values()]) {
      if (entry.ended) continue;
      if (entry.busy > 0) {
        entry.lastActive = now;
        touch(entry, now);
      } else if (now - entry.lastActive >= options.sessionIdleMs) {
        await end(entry, 'idle');
      }
    }
    if (now - lastLedgerSweep >= Math.min(60_000, options.sessionIdleMs)) {
      lastLedgerSweep = now;
      // Rows of sessions no server holds any more (ended before a restart, or on another server).
      const removed = await (await deps.services.ledger()).queue.expireSessions(new Date(now - options.sessionIdleMs).toISOString());
      if (removed > 0) deps.logger.info('idle sessions removed from the ledger', { removed });
    }
  };
  const sweepEvery = Math.max(50, Math.min(60_000, options.sessionIdleMs / 4));
  let sweeping = false;
  const sweeper = setInterval(() => {
    if (sweeping || closing) return;
    sweeping = true;
    sweep()
      .catch((err: unknown) => deps.logger.warn(`Could not end idle sessions: ${(err as Error).message}`))
      .finally(() => (sweeping = false));
  }, sweepEvery);
  sweeper.unref();

  const server = http.createServer((req, res) => {
    // A GET on /mcp is the client's standing event stream: it ends when its session closes.
    const counted = req.method !== 'GET';
    if (counted) inFlight++;
    handle(req, res)
      .catch((err: unknown) => {
        deps.logger.error(`HTTP request failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error; the server log has the details');
        else res.end();
      })
      .finally(() => {
        if (counted) inFlight--;
      });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (err) {
    clearInterval(sweeper);
    throw err;
  }
  const bound = server.address() as net.AddressInfo;
  port = bound.port;
  if (options.token.length < MIN_NETWORK_TOKEN_LENGTH && !isLoopbackAddress(bound.address)) {
    // The name resolved to a loopback address before, and to another now.
    clearInterval(sweeper);
    server.close();
    throw new HttpStartRefused(
      `Refusing to serve on ${bracketed(bound.address)}:${port}, which other machines can reach, with a bearer token of ${options.token.length} characters.`,
    );
  }
  const unspecified = bound.address === '0.0.0.0' || bound.address === '::';
  const urlHost = unspecified ? '127.0.0.1' : net.isIP(options.host) ? bracketed(bound.address) : options.host;
  const url = `http://${urlHost}:${port}/mcp`;

  return {
    url,
    port,
    address: bound.address,
    close: async () => {
      closing = true;
      clearInterval(sweeper);
      server.close();
      const deadline = Date.now() + 10_000;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      server.closeAllConnections();
      for (const entry of sessions.values()) await entry.transport.close().catch(() => undefined);
      sessions.clear();
    },
  };
}

/** Whether a POST body starts a session (an initialize request, alone or in a batch). */
function startsSession(body: Buffer | undefined): boolean {
  if (!body || body.length === 0) return false;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(parsed) ? parsed.some((m) => isInitializeRequest(m)) : isInitializeRequest(parsed);
  } catch {
    return false;
  }
}

/** The team server's index of ranked search in memory (PostgreSQL, searchIndexWanted), for /metrics; nothing without one. */
function searchIndexMetrics(stats: MemoryIndexStats | undefined): string {
  if (!stats) return '';
  return [
    '# HELP agent_progress_search_index_entries Entries held by the index of ranked search in memory (0 until its first build ends).',
    '# TYPE agent_progress_search_index_entries gauge',
    `agent_progress_search_index_entries ${stats.entries}`,
    '# HELP agent_progress_search_index_building Whether the index is being built (at start, after entries were deleted or changed).',
    '# TYPE agent_progress_search_index_building gauge',
    `agent_progress_search_index_building ${stats.building ? 1 : 0}`,
    '# HELP agent_progress_search_index_answers_total Ranked searches answered from the index (the others from PostgreSQL).',
    '# TYPE agent_progress_search_index_answers_total counter',
    `agent_progress_search_index_answers_total ${stats.answers}`,
    '# HELP agent_progress_search_index_builds_total Builds of the index ended (at start, then after entries were deleted or changed).',
    '# TYPE agent_progress_search_index_builds_total counter',
    `agent_progress_search_index_builds_total ${stats.builds}`,
    '',
  ].join('\n');
}
