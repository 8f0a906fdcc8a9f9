// Streamable HTTP transport (node dist/server.js --http PORT): 127.0.0.1 by default, a bearer
// token on every request but /healthz, Host and Origin checked against DNS rebinding, one MCP
// server per session, sessions kept in the ledger so that a client's session (and the agent it
// authenticated as) survives a restart, /metrics for Prometheus, a graceful shutdown.

import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { FILE_MODE } from '../core/storage/files';
import type { Logger } from '../core/log';
import { newQueueSession, type QueueSession } from '../core/queue/queueService';
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
}

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
  /** Stops accepting, lets requests in flight finish, keeps sessions for the next start. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  queue: QueueSession;
}

/** The bearer token: from the environment, else kept in a 0600 file beside the ledger. */
export function httpToken(env: NodeJS.ProcessEnv, tokenFile: string): { token: string; source: string } {
  const fromEnv = env.AGENT_PROGRESS_HTTP_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: 'AGENT_PROGRESS_HTTP_TOKEN' };
  try {
    const saved = fs.readFileSync(tokenFile, 'utf8').trim();
    if (saved.length >= 16) return { token: saved, source: tokenFile };
  } catch {
    // not there yet
  }
  const token = randomBytes(32).toString('base64url');
  fs.writeFileSync(tokenFile, token + '\n', { mode: FILE_MODE });
  return { token, source: tokenFile };
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
  const sessions = new Map<string, Session>();
  let inFlight = 0;
  let closing = false;
  let port = options.port;
  const hostsFor = (p: number): Set<string> =>
    new Set([`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`, ...(options.host !== '127.0.0.1' && options.host !== '0.0.0.0' ? [`${options.host}:${p}`] : []), ...options.allowedHosts]);
  const originsFor = (p: number): Set<string> => new Set([`http://127.0.0.1:${p}`, `http://localhost:${p}`, `http://[::1]:${p}`, ...options.allowedOrigins]);

  const open = async (queue: QueueSession, id?: string): Promise<Session> => {
    const server = createServer({ services: deps.services, logger: deps.logger, toolsets: deps.toolsets, version: deps.version, project: deps.project, session: queue });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id ?? randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sid) => {
        queue.id = sid;
        sessions.set(sid, entry);
      },
    });
    const entry: Session = { transport, queue };
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && sessions.get(sid) === entry && !closing) {
        sessions.delete(sid);
        // The client ended its session: forget it, and its agent is no longer connected.
        void deps.services.queue().then((q) => q.endSession(queue)).catch(() => undefined);
      }
    };
    await server.connect(transport);
    return entry;
  };

  /** A session the ledger remembers (a restart happened): rebuilt, then initialized internally. */
  const restore = async (sid: string): Promise<Session | undefined> => {
    const queue = await (await deps.services.queue()).restoreSession(sid);
    if (!queue) return undefined;
    const entry = await open(queue, sid);
    const init = new Request(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'restored-session', version: '1' } } }),
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
    const auth = req.headers.authorization ?? '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    if (!given || !sameSecret(given, options.token)) {
      return sendJson(res, 401, { error: 'A bearer token is required: Authorization: Bearer <token> (AGENT_PROGRESS_HTTP_TOKEN, or the token file the server names at start)' }, { 'www-authenticate': 'Bearer' });
    }
    if (closing) return rpcError(res, 503, -32000, 'The server is shutting down; retry in a moment');
    if (url.pathname === '/metrics') {
      if (req.method !== 'GET') return sendJson(res, 405, { error: 'Use GET' });
      const text = await (await deps.services.queue()).metrics();
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
    if (typeof sid === 'string') {
      entry = sessions.get(sid) ?? (await restore(sid));
      if (!entry) return rpcError(res, 404, -32001, 'Session not found: initialize a new session');
    } else {
      if (req.method !== 'POST') return rpcError(res, 400, -32000, 'Mcp-Session-Id header is required');
      entry = await open(newQueueSession({ persistent: true }));
    }
    const response = await entry.transport.handleRequest(toWebRequest(req, url.toString(), body));
    if (typeof sid !== 'string' && entry.transport.sessionId) {
      // A new session: remember it, so that it survives a restart.
      const q = entry.queue;
      await (await deps.services.ledger()).queue.saveSession({ id: q.id, projectId: null, agentName: null, createdAt: q.createdAt, lastSeen: new Date().toISOString() });
    }
    await sendWebResponse(response, res);
  };

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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}/mcp`;

  return {
    url,
    port,
    close: async () => {
      closing = true;
      server.close();
      const deadline = Date.now() + 10_000;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      server.closeAllConnections();
      for (const entry of sessions.values()) await entry.transport.close().catch(() => undefined);
      sessions.clear();
    },
  };
}
