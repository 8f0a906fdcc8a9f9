// The floor: an MCP server over stdio built with the SDK in the ordinary way, with one tool that
// does nothing and answers at once. bench/run.mjs calls it through a real SDK client, side by
// side with Agent Progress's tools, so every ratio it reports is taken in the same run.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'bench-noop', version: '1.0.0' });

server.registerTool('noop', { title: 'No-op', description: 'Does nothing and answers at once.' }, async () => ({
  content: [{ type: 'text', text: 'ok' }],
}));

process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
