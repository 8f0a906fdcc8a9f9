// The scripted demo (README's first command): a real MCP client talks to the built server over
// stdio, against a temporary ledger, and prints what was logged, found and summarised.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const keep = process.argv.includes('--keep');
const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-progress-demo-'));
const db = path.join(dir, 'data.db');
const say = (text = '') => process.stdout.write(text + '\n');

async function connect(name) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, 'dist', 'server.js'), '--toolset', 'progress'],
    env: { ...process.env, AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_LOG_LEVEL: 'warn' },
    stderr: 'inherit',
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const text = (result) => result.content.map((c) => c.text).join('\n');

say(`Agent Progress demo: ledger at ${db}\n`);
const copilot = await connect('demo-copilot');
const { tools } = await copilot.listTools();
say(`Tools served: ${tools.map((t) => t.name).join(', ')}\n`);

const entries = [
  {
    agentId: 'copilot',
    title: 'Refactored authentication to JWT',
    tags: ['auth', 'refactor'],
    content:
      'Replaced server sessions with JWT access tokens. Added src/auth/jwt.ts (sign/verify), updated src/middleware/auth.ts to validate the bearer token, and changed POST /login to return a token pair. All 42 tests pass. Left: refresh-token rotation.',
  },
  {
    agentId: 'claude-code',
    title: 'Added refresh-token rotation',
    tags: ['auth'],
    content:
      'Implemented refresh-token rotation with reuse detection in src/auth/refresh.ts; a reused token revokes the whole family. Added 9 tests. Documented the flow in docs/auth.md.',
  },
  {
    agentId: 'copilot',
    title: 'Fixed flaky checkout test',
    tags: ['tests'],
    content: 'The checkout e2e test raced the payment mock. Awaited the webhook before asserting; ran it 200 times without a failure.',
  },
];
const logged = [];
for (const entry of entries) {
  const result = await copilot.callTool({ name: 'log_progress', arguments: { projectId: 'acme-shop', ...entry } });
  logged.push(result.structuredContent);
  say(`log_progress  -> ${text(result)}`);
}

const claude = await connect('demo-claude-code');
say('\nA second agent (a separate server process on the same ledger) looks for earlier auth work:');
const found = await claude.callTool({ name: 'search_logs', arguments: { projectId: 'acme-shop', query: 'auth' } });
say(text(found));
say('\nFull-text search over titles and content ("webhook"):');
say(text(await claude.callTool({ name: 'search_logs', arguments: { projectId: 'acme-shop', text: 'webhook' } })));
say('\nOnly entries tagged both auth and refactor:');
say(text(await claude.callTool({ name: 'search_logs', arguments: { projectId: 'acme-shop', tags: ['auth', 'refactor'] } })));

const context = await claude.callTool({ name: 'get_context', arguments: { projectId: 'acme-shop', id: logged[0].id } });
say(`\nget_context ${logged[0].id} (summary by: ${context.structuredContent.summarySource}):`);
say(context.structuredContent.summary);
if (context.structuredContent.summarySource === 'fallback') {
  say("(No model was available, so this is an extract of the entry and is not cached. Inside VS Code the client's model summarises");
  say(' through MCP sampling; elsewhere set OPENAI_API_KEY, and optionally OPENAI_BASE_URL for any OpenAI-compatible endpoint.)');
}

say('\nBad input gets a clear refusal and changes nothing:');
try {
  await claude.callTool({ name: 'log_progress', arguments: { projectId: 'acme-shop', title: 'x'.repeat(101), content: 'too long a title' } });
} catch (err) {
  say(`log_progress  -> JSON-RPC error ${err.code}: ${err.message.replace(/^MCP error -?\d+: /, '')}`);
}

await copilot.close();
await claude.close();
const again = await connect('demo-restart');
const after = await again.callTool({ name: 'search_logs', arguments: { projectId: 'acme-shop' } });
say(`\nAfter both servers stopped and a new one started: ${after.structuredContent.total} entries still there.`);
await again.close();

const vsix = path.join(root, 'agent-progress.vsix');
if (existsSync(vsix)) {
  say(`\nThe extension is packaged as ${path.relative(process.cwd(), vsix) || vsix} (${Math.round(statSync(vsix).size / 1024)} KB).`);
  say('Install it with: code --install-extension agent-progress.vsix  (Copilot agent mode then finds the tools by itself).');
}
if (keep) say(`\nLedger kept at ${db}`);
else rmSync(dir, { recursive: true, force: true });
