// The traces toolset on a real MCP server (createServer) reading a given home folder, connected to
// a real SDK Client in memory.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '../../src/core/log';
import { Services } from '../../src/core/services';
import { resolveTraceHomes } from '../../src/core/traces/homes';
import { createServer } from '../../src/mcp/server';

export interface TraceClient {
  client: Client;
  services: Services;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** structuredContent of a successful call (fails the test on isError). */
  ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T>;
  /** The specification's structured error of a failed call, from its text (fails the test on success). */
  error(name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; details: Record<string, unknown>; retryable: boolean }>;
  close(): Promise<void>;
}

export async function connectTraces(home: string, dir: string): Promise<TraceClient> {
  const services = new Services({
    config: { dbPath: path.join(dir, 'data.db'), openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    logger: silentLogger,
    host: false,
    traces: { homes: resolveTraceHomes({ env: { AGENT_PROGRESS_TRACES_HOME: home } }), minRefreshMs: 0 },
  });
  const server = createServer({ services, logger: silentLogger, toolsets: ['traces'], version: 'test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'trace-test-client', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  // As real clients do: with the tools listed, the SDK validates every result against its schema.
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    services,
    call,
    async ok(name, args) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent as never;
    },
    async error(name, args) {
      const r = await call(name, args);
      if (!r.isError) throw new Error(`${name} succeeded: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
      assert.equal(r.structuredContent, undefined, 'an error carries no structuredContent (clients would validate it against the output schema)');
      return (JSON.parse((r.content[0] as { text: string }).text) as { error: never }).error;
    },
    close: async () => {
      await client.close();
      await server.close();
      await services.close();
    },
  };
}

/** Bytes of a tool result as it travels (the JSON-RPC result object). */
export function wireBytes(result: unknown): number {
  return Buffer.byteLength(JSON.stringify(result), 'utf8');
}
