// The server as a process: stdout carries only the protocol, it stops cleanly on signals and when
// stdin closes, it runs from dist/ alone, and the README's tool table matches tools/list.

import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, cleanEnv, CLI, ROOT, SERVER, startServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { copyShippedDist } from '../helpers/shippedDist';
import { waitFor } from '../helpers/wait';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { renderToolsTable } from '../../src/mcp/toolsTable';
import { TOOLSET_NAMES } from '../../src/mcp/toolsets';

interface Raw {
  child: ChildProcessWithoutNullStreams;
  stdoutLines: string[];
  stderr: () => string;
  send(message: object): void;
  response(id: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnRaw(db: string, server = SERVER): Raw {
  const child = spawn(process.execPath, [server, '--toolset', 'progress'], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db }), cwd: path.dirname(db) });
  const stdoutLines: string[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      stdoutLines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stdoutLines,
    stderr: () => stderr,
    send: (message) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n'),
    response: (id) => waitFor(() => stdoutLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((m) => m.id === id), `response ${id}`, 15_000),
    exited,
  };
}

async function initialize(raw: Raw): Promise<void> {
  raw.send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await raw.response(0);
  raw.send({ method: 'notifications/initialized' });
}

describe('the server process', function () {
  this.timeout(60_000);
  useTempDirs();

  it('writes nothing but JSON-RPC on stdout, even when a tool fails', async () => {
    const raw = spawnRaw(path.join(tempDir(), 'data.db'));
    await initialize(raw);
    raw.send({ id: 1, method: 'tools/call', params: { name: 'log_progress', arguments: { projectId: 'p', title: 't', content: 'c' } } });
    raw.send({ id: 2, method: 'tools/call', params: { name: 'log_progress', arguments: { projectId: 'p', title: 'x'.repeat(200), content: 'c' } } });
    raw.send({ id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    raw.send({ id: 4, method: 'no/such/method', params: {} });
    const bad = await raw.response(2);
    assert.deepEqual((bad.error as { code: number; message: string }).code, -32602);
    assert.equal((bad.error as { message: string }).message, 'title exceeds maximum length of 100 characters');
    await raw.response(3);
    assert.equal(((await raw.response(4)).error as { code: number }).code, -32601);
    for (const line of raw.stdoutLines) {
      const msg = JSON.parse(line) as { jsonrpc: string };
      assert.equal(msg.jsonrpc, '2.0', line);
    }
    raw.child.stdin.end();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
    assert.match(raw.stderr(), /serving progress over stdio/);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`exits cleanly on ${signal}, keeping what it acknowledged`, async () => {
      const db = path.join(tempDir(), 'data.db');
      const raw = spawnRaw(db);
      await initialize(raw);
      raw.send({ id: 1, method: 'tools/call', params: { name: 'log_progress', arguments: { projectId: 'p', title: 'before signal', content: 'c' } } });
      await raw.response(1);
      raw.child.kill(signal);
      assert.deepEqual(await raw.exited, { code: 0, signal: null });
      const s = await startServer({ db });
      const found = await call(s, 'search_logs', { projectId: 'p' });
      assert.equal((found.structuredContent as { total: number }).total, 1);
      await s.close();
    });
  }

  it('exits when stdin closes', async () => {
    const raw = spawnRaw(path.join(tempDir(), 'data.db'));
    await initialize(raw);
    raw.child.stdin.end();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
  });

  it('runs from a copy of dist/ with no node_modules anywhere above it', async () => {
    const dir = tempDir();
    const dist = path.join(dir, 'dist');
    fs.mkdirSync(dist);
    copyShippedDist(dist);
    const db = path.join(dir, 'ledger', 'data.db');
    const s = await startServer({ db, server: path.join(dist, 'server.js') });
    await call(s, 'log_progress', { projectId: 'p', title: 'standalone', content: 'no node_modules' });
    await s.close();
    const cli = spawnSync(process.execPath, [path.join(dist, 'cli.js'), 'search', '--project', 'p', '--json'], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: db }), cwd: dir });
    assert.equal(cli.status, 0, cli.stderr.toString());
    assert.equal((JSON.parse(cli.stdout.toString()) as { total: number }).total, 1);
  });

  it('prints help and version, and refuses bad options with exit code 2', () => {
    const help = spawnSync(process.execPath, [SERVER, '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stderr.toString(), /Usage: agent-progress-mcp/);
    assert.equal(help.stdout.length, 0, 'help goes to stderr: stdout is for the protocol');
    const version = spawnSync(process.execPath, [SERVER, '--version']);
    assert.equal(version.stderr.toString().trim(), (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    const bad = spawnSync(process.execPath, [SERVER, '--toolset', 'nonsense']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr.toString(), new RegExp(`Unknown toolset "nonsense"\\. Available: ${TOOLSET_NAMES.join(', ')}, or all\\. Run with --help`));
  });

  it('refuses a ledger path with .. segments before serving', () => {
    const run = spawnSync(process.execPath, [SERVER], { env: cleanEnv({ AGENT_PROGRESS_DB_PATH: '/tmp/../etc/data.db' }) });
    assert.equal(run.status, 2);
    assert.match(run.stderr.toString(), /must not contain '\.\.' segments/);
  });

  it('answers initialize quickly enough to report, with the ledger not opened yet', async () => {
    const db = path.join(tempDir(), 'data.db');
    const started = process.hrtime.bigint();
    const s = await startServer({ db });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`      spawn to initialize answered: ${ms.toFixed(0)} ms (figure only; bench/ measures it properly)`);
    assert.equal(fs.existsSync(`${db}.journal`), false, 'the ledger opens on the first tool call, not at start');
    await s.close();
  });

  it('documents exactly the tools that tools/list serves in the README', async () => {
    // The built server's tools/list, per toolset, rendered as the README's table is.
    const db = path.join(tempDir(), 'data.db');
    const listed: { toolset: string; tools: Tool[] }[] = [];
    for (const toolset of TOOLSET_NAMES) {
      const s = await startServer({ db, args: ['--toolset', toolset] });
      listed.push({ toolset, tools: (await s.client.listTools()).tools });
      await s.close();
    }
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(renderToolsTable(listed)), 'README tool table is stale: run node --import tsx scripts/toolsTable.mjs --write');
  });

  it('keeps the CLI and the server on the same version', () => {
    const v = spawnSync(process.execPath, [CLI, '--version']).stdout.toString().trim();
    assert.equal(v, spawnSync(process.execPath, [SERVER, '--version']).stderr.toString().trim());
  });

  it('ships bundles of ASCII text only (V8 holds a script with one other character as two bytes a character, for the life of the process)', () => {
    for (const name of ['server.js', 'cli.js', 'server-main.js', 'cli-main.js', 'core.js', 'ledgerHost.js', 'extension.js']) {
      const text = fs.readFileSync(path.join(ROOT, 'dist', name), 'utf8');
      const at = text.search(/[\u0080-\uffff]/);
      assert.equal(at, -1, `dist/${name} has non-ASCII text at ${at}: ${text.slice(Math.max(0, at - 40), at + 20)}`);
    }
  });
});
