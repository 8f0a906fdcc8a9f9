// The MCP side of the floor (see bench/floorHost.mjs): an SDK server like bench/noopServer.mjs
// whose one tool sends its arguments as a line to the floor host over its Unix socket
// (AGENT_PROGRESS_BENCH_FLOOR_SOCKET) and answers once the host says the line is durable.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';
import { connectFloor } from './floorClient.mjs';

const floor = await connectFloor(process.env.AGENT_PROGRESS_BENCH_FLOOR_SOCKET);
// Without its floor host the server cannot answer: it exits, and the bench's call fails instead of waiting.
floor.socket.on('close', () => process.exit(1));

const server = new McpServer({ name: 'bench-floor', version: '1.0.0' });
server.registerTool(
  'log',
  { title: 'Log', description: 'Appends its arguments to a file durably and answers.', inputSchema: { projectId: z.string(), title: z.string(), content: z.string() } },
  async (args) => {
    await floor.send(JSON.stringify(args));
    return { content: [{ type: 'text', text: `Logged: ${args.title}` }] };
  },
);

process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
