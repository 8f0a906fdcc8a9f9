// One agent as its own OS process, for the multi-machine queue test: connects to an Agent Progress
// HTTP server with the real SDK client, registers, then requests and completes tasks until the
// queue is empty. Prints {"agent", "tasks": [ids in the order it got them]} as one JSON line.
// Usage: node queueAgent.mjs PORT TOKEN PROJECT AGENT_NAME

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [port, token, projectId, agentName] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
const client = new Client({ name: `agent-${agentName}`, version: '1.0.0' });

async function tool(name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

await client.connect(transport);
await tool('register_agent', { projectId, agentName });
const tasks = [];
for (;;) {
  const r = await tool('request_task');
  if (!r.task) {
    if (r.reason !== 'empty') throw new Error(`request_task ended with ${r.reason}`);
    break;
  }
  if (r.alreadyAssigned || r.task.assignedTo !== agentName) throw new Error(`handed ${JSON.stringify(r.task)} (alreadyAssigned ${r.alreadyAssigned})`);
  tasks.push(r.task.id);
  await tool('complete_task', { taskId: r.task.id, explanation: `done by ${agentName}` });
}
await client.close();
process.stdout.write(JSON.stringify({ agent: agentName, tasks }) + '\n');
