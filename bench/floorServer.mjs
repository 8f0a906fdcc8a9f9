// The MCP side of the floor (see bench/floorHost.mjs): an SDK server like bench/noopServer.mjs
// whose one tool sends its arguments as a line to the floor host over its Unix socket
// (AGENT_PROGRESS_BENCH_FLOOR_SOCKET) and answers once the host says the line is durable.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as net from 'node:net';
import * as z from 'zod';

const socket = net.connect(process.env.AGENT_PROGRESS_BENCH_FLOOR_SOCKET);
// Without its floor host the server cannot answer: it exits, and the bench's call fails instead of waiting.
socket.on('error', () => undefined);
socket.on('close', () => process.exit(1));
const waiting = [];
let answers = '';
socket.on('data', (data) => {
  answers += data.toString('utf8');
  for (let end = answers.indexOf('\n'); end >= 0; end = answers.indexOf('\n')) {
    answers = answers.slice(end + 1);
    waiting.shift()?.();
  }
});

const server = new McpServer({ name: 'bench-floor', version: '1.0.0' });
server.registerTool(
  'log',
  { title: 'Log', description: 'Appends its arguments to a file durably and answers.', inputSchema: { projectId: z.string(), title: z.string(), content: z.string() } },
  async (args) => {
    await new Promise((resolve) => {
      waiting.push(resolve);
      socket.write(`${JSON.stringify(args)}\n`);
    });
    return { content: [{ type: 'text', text: `Logged: ${args.title}` }] };
  },
);

process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
