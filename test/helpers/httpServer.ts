// The built server in HTTP mode (dist/server.js --http 0) as a real process, with real SDK clients
// over Streamable HTTP.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanEnv, SERVER } from './stdioServer';
import { waitFor } from './wait';

export const TOKEN = 'e2e-http-token-0123456789abcdef';

export interface HttpServerProcess {
  child: ChildProcessWithoutNullStreams;
  port: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startHttpServer(db: string, options: { port?: number; args?: string[]; env?: Record<string, string> } = {}): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [SERVER, '--toolset', 'queue', '--http', String(options.port ?? 0), ...(options.args ?? [])], {
    env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_HTTP_TOKEN: TOKEN, ...options.env }),
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const port = await waitFor(
    () => {
      const m = /"port":(\d+)/.exec(stderr);
      if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`);
      return m ? Number(m[1]) : undefined;
    },
    'the HTTP server to listen',
    20_000,
  );
  return {
    child,
    port,
    stderr: () => stderr,
    exited,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

export async function httpClient(port: number, token = TOKEN): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'e2e-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/**
 * A raw request, with any Host header (fetch does not let a caller set it), to `host` (default
 * 127.0.0.1) and from `localAddress` (another loopback address is another client to the server).
 */
export function rawRequest(
  port: number,
  options: { path: string; method?: string; headers?: Record<string, string>; body?: string; host?: string; localAddress?: string },
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const target = {
      host: options.host ?? '127.0.0.1',
      port,
      path: options.path,
      method: options.method ?? 'GET',
      headers: options.headers,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    };
    const req = http.request(target, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}
