// The servers' stdio transport (src/mcp/stdioTransport.ts) answers every line as the SDK's
// StdioServerTransport does, byte for byte, while plain tools/call requests skip the SDK's
// per-message schema checks: the same lines sent to a server on each transport get the same
// answers and the same errors, and the plain calls among them took the direct path.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { silentLogger } from '../../../src/core/log';
import { Services } from '../../../src/core/services';
import { createServer } from '../../../src/mcp/server';
import { plainToolCall, serveToolCalls, StdioTransport } from '../../../src/mcp/stdioTransport';
import { tempDir, useTempDirs } from '../../helpers/tmp';

const LINES = [
  JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
  JSON.stringify({ jsonrpc: '2.0', id: 'two', method: 'tools/call', params: { name: 'get_project', arguments: { projectId: 'nowhere' } } }),
  JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'request_task', arguments: {} } }),
  JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }),
  JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_projects', arguments: [1, 2] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_projects', arguments: { bogus: 1 } } }),
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_projects' } }),
  // Shapes left to the SDK: an extra top-level key, _meta, a fractional or missing id, no params, null params, a name that is not a string.
  JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_projects', arguments: {} }, extra: true }),
  JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_projects', arguments: {}, _meta: { progressToken: 'p' } } }),
  JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'list_projects', arguments: {}, _meta: { progressToken: {} } } }),
  JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
  JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
  JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/call' }),
  JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: null }),
  JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 42, arguments: {} } }),
  JSON.stringify({ jsonrpc: '1.0', id: 14, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
  '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"list_projects","arguments":{},"__proto__":{"x":1}}}',
  'this is not JSON',
  JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'tools/list' }),
  JSON.stringify({ jsonrpc: '2.0', id: 17, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
];

/** Serves the queue toolset on a fresh ledger over `kind`'s transport; feeds LINES, one at a time; answers what came out. */
async function run(kind: 'sdk' | 'ours'): Promise<{ out: string[]; errors: string[]; direct: number }> {
  const services = new Services({
    config: { dbPath: path.join(tempDir(), 'data.db'), openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    logger: silentLogger,
    host: false,
  });
  const server = createServer({ services, logger: silentLogger, toolsets: ['queue'], version: '0' });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const errors: string[] = [];
  let direct = 0;
  if (kind === 'sdk') await server.connect(new StdioServerTransport(stdin, stdout));
  else {
    const transport = new StdioTransport(stdin, stdout);
    await server.connect(transport);
    serveToolCalls(server.server, transport);
    const toolCall = transport.toolCall;
    assert.ok(toolCall, 'the direct path is set');
    transport.toolCall = (message) => {
      direct++;
      toolCall(message);
    };
  }
  server.server.onerror = (err) => errors.push(err.message);
  for (const line of LINES) {
    const before = text.length;
    stdin.write(`${line}\n`);
    // Each line with an id is answered before the next is sent (the order of the answers is then fixed);
    // a notification or a malformed line is not answered.
    const deadline = Date.now() + 1_000;
    while (Date.now() < deadline && text.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await server.close();
  await services.close();
  return { out: text.split('\n').filter(Boolean), errors, direct };
}

describe('the servers stdio transport', function () {
  this.timeout(60_000);
  useTempDirs();

  it('answers every line as the SDK transport does and takes the direct path for plain tools/call requests only', async () => {
    const sdk = await run('sdk');
    const ours = await run('ours');
    assert.equal(sdk.out.length, 14, 'the lines with a valid id are answered');
    assert.deepEqual(ours.out, sdk.out);
    assert.deepEqual(ours.errors, sdk.errors);
    assert.ok(sdk.errors.length >= 3, 'the malformed lines were errors');
    // Ids 1, 'two', 3, 4, 5, 6, 7, 13 (a name that is not a string: refused by the tools/call schema, as through the SDK) and 17.
    assert.equal(ours.direct, 9);
  });

  it('takes as plain only what the SDK schemas accept unchanged', () => {
    const plain = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } };
    assert.equal(plainToolCall(plain), true);
    assert.equal(plainToolCall({ ...plain, id: 'a' }), true);
    assert.equal(plainToolCall({ ...plain, id: 1.5 }), false);
    assert.equal(plainToolCall({ ...plain, id: null }), false);
    assert.equal(plainToolCall({ ...plain, method: 'tools/list' }), false);
    assert.equal(plainToolCall({ ...plain, result: {} }), false);
    assert.equal(plainToolCall({ ...plain, params: [] }), false);
    assert.equal(plainToolCall({ ...plain, params: { name: 'x', task: {} } }), false);
    assert.equal(plainToolCall({ ...plain, params: { name: 'x', _meta: {} } }), false);
    assert.equal(plainToolCall([plain]), false);
  });
});
