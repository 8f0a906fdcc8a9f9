// The built server (dist/server.js) spawned as a real process, with a real SDK Client over stdio.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TEST_CODE_CACHE } from './tmp';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SERVER = path.join(ROOT, 'dist', 'server.js');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

export interface StdioServer {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string;
  close(): Promise<void>;
}

/** Environment without the developer's own settings leaking into a test. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { AGENT_PROGRESS_CODE_CACHE: TEST_CODE_CACHE };
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('AGENT_PROGRESS_') || k.startsWith('OPENAI_')) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/**
 * Runs the built CLI (dist/cli.js) as a process with a clean environment and empty stdin.
 * `timeout` bounds a run that could block (ms); `nodeArgs` go to node before the script.
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; timeout?: number; nodeArgs?: string[] } = {},
): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], { env: cleanEnv(options.env), cwd: options.cwd, input: '', timeout: options.timeout });
  return { status: run.status, stdout: run.stdout?.toString() ?? '', stderr: run.stderr?.toString() ?? '' };
}

export async function startServer(options: {
  db: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  clientOptions?: ClientOptions;
  setupClient?: (client: Client) => void;
  server?: string;
}): Promise<StdioServer> {
  fs.mkdirSync(options.cwd ?? path.dirname(options.db), { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.server ?? SERVER, ...(options.args ?? ['--toolset', 'progress'])],
    env: cleanEnv({ AGENT_PROGRESS_DB_PATH: options.db, ...options.env }),
    cwd: options.cwd ?? path.dirname(options.db),
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'e2e-client', version: '1.0.0' }, options.clientOptions);
  options.setupClient?.(client);
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid!,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

export async function call(server: StdioServer, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

export async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string };
    return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, '') };
  }
  throw new Error('expected a JSON-RPC error');
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
