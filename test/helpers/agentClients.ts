// Launching a server entry the way Claude Code, Codex, Cursor, Gemini CLI and VS Code do: read
// the client's config file as that client reads it (JSON, or TOML through Python's tomllib when
// present, else our own reader), then spawn `command` with `args`, the client's base environment
// plus the entry's `env`, in the project folder, and speak MCP to it with the SDK's real client.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { readTomlServer } from '../../src/extension/connect/tomlMerge';

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const FILES: Record<string, { file: string; root?: string }> = {
  claude: { file: '.mcp.json', root: 'mcpServers' },
  cursor: { file: path.join('.cursor', 'mcp.json'), root: 'mcpServers' },
  gemini: { file: path.join('.gemini', 'settings.json'), root: 'mcpServers' },
  vscode: { file: path.join('.vscode', 'mcp.json'), root: 'servers' },
  codex: { file: path.join('.codex', 'config.toml') },
};

function tomlEntry(text: string, name: string): Launch | undefined {
  const py = spawnSync('python3', ['-c', 'import sys, tomllib, json; print(json.dumps(tomllib.loads(sys.stdin.read())))'], { input: text, encoding: 'utf8' });
  if (!py.error && py.status === 0) {
    const parsed = JSON.parse(py.stdout) as { mcp_servers?: Record<string, Launch> };
    return parsed.mcp_servers?.[name];
  }
  const own = readTomlServer(text, name);
  return own ? { command: own.command!, args: own.args ?? [], env: own.env ?? {} } : undefined;
}

/** The entry `name` of a client's config in `workspace`, read as that client reads it. */
export function readLaunch(client: string, workspace: string, name: string): Launch {
  const spec = FILES[client];
  if (!spec) throw new Error(`unknown client ${client}`);
  const text = fs.readFileSync(path.join(workspace, spec.file), 'utf8');
  const entry = spec.root
    ? ((client === 'vscode' ? parseJsonc(text, [], { allowTrailingComma: true }) : JSON.parse(text)) as Record<string, Record<string, Launch>>)[spec.root]?.[name]
    : tomlEntry(text, name);
  if (!entry || typeof entry.command !== 'string') throw new Error(`${spec.file} has no server "${name}"`);
  return { command: entry.command, args: entry.args ?? [], env: entry.env ?? {} };
}

/** Starts the entry as its client would and connects a real MCP client to it. */
export async function connectLaunch(launch: Launch, workspace: string, clientName: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...getDefaultEnvironment(), ...launch.env }, cwd: workspace, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: clientName, version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`${clientName}: ${launch.command} ${launch.args.join(' ')} did not start: ${(err as Error).message}\n${stderr.slice(-2000)}`);
  }
  return client;
}
