// Connect Other Agents, without VS Code: the TOML and JSON merges keep what the files held, the
// server entries group the toolsets as the server allows, and the plan reports each change.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AGENT_CLIENTS,
  applyPlans,
  COLLIDING_TOOLSETS,
  describePlans,
  foreignConflicts,
  lineDiff,
  planClient,
  resolveNode,
  serverEntries,
  type ConnectInput,
} from '../../../src/extension/connect/agentConfigs';
import { parseJsonc, parseJsonConfig } from '../../../src/extension/connect/jsonMerge';
import { ConfigFormatError, readTomlServer, upsertTomlServer } from '../../../src/extension/connect/tomlMerge';
import { TOOLSET_NAMES, toolNamesOf } from '../../../src/mcp/toolsets';
import { failOnCi } from '../../helpers/ci';
import { tempDir, useTempDirs } from '../../helpers/tmp';

const server = {
  command: '/usr/bin/node',
  args: ['/ext/dist/server.js', '--toolset', 'progress,queue'],
  env: { AGENT_PROGRESS_DB_PATH: '/data/a b/data.db', QUOTE: 'say "hi" \\ there' },
};

/** Parses TOML with Python's tomllib (a real parser), or skips when Python is not there. */
function parseToml(ctx: Mocha.Context, text: string): Record<string, unknown> {
  const r = spawnSync('python3', ['-c', 'import sys, tomllib, json; print(json.dumps(tomllib.loads(sys.stdin.read())))'], { input: text, encoding: 'utf8' });
  if (r.error) {
    failOnCi('python3 is not installed, but CI must check the TOML with a real parser: apt-get install -y python3 (see .ci/run).');
    ctx.skip(); // no python3 here, so no independent TOML parser to check the output against (failOnCi above makes this a failure on CI)
  }
  assert.equal(r.status, 0, `not valid TOML:\n${text}\n${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const input = (over: Partial<ConnectInput> = {}): ConnectInput => ({
  serverScript: '/ext/dist/server.js',
  node: { command: '/usr/bin/node', env: {} },
  ledgerPath: '/storage/data.db',
  workspace: '/work/repo',
  projectId: 'repo',
  toolsets: ['progress', 'queue', 'workflow', 'traces'],
  ...over,
});

describe('Codex TOML merge', () => {
  it('appends the server table to a file with other tables and comments, which stay byte for byte', function () {
    const before = [
      '# my codex config',
      'model = "o3"  # inline comment',
      '',
      '[mcp_servers.other]',
      'command = "npx"',
      'args = ["-y", "other-mcp"]',
      '',
      '[profiles.fast]',
      'model = "gpt-5"',
      '',
    ].join('\n');
    const after = upsertTomlServer(before, 'agent-progress', server);
    assert.ok(after.startsWith(before), 'the existing text is kept as written');
    const parsed = parseToml(this, after) as { mcp_servers: Record<string, unknown>; profiles: unknown; model: string };
    assert.deepEqual(parsed.mcp_servers['agent-progress'], server);
    assert.deepEqual(parsed.mcp_servers.other, { command: 'npx', args: ['-y', 'other-mcp'] });
    assert.deepEqual(parsed.profiles, { fast: { model: 'gpt-5' } });
    assert.deepEqual(readTomlServer(after, 'agent-progress'), { ...server, other: {} });
  });

  it('replaces an existing table and its env subtable in place, keeping the keys the user added', function () {
    const before = [
      '[mcp_servers.agent-progress]',
      'command = "node"',
      'args = [',
      '  "/old/dist/server.js", # old copy',
      '  "--toolset", "progress",',
      ']',
      'startup_timeout_sec = 20',
      '',
      '[mcp_servers.agent-progress.env]',
      "AGENT_PROGRESS_DB_PATH = '/old/data.db'",
      '',
      '[mcp_servers.after]',
      'command = "x"',
      '',
    ].join('\n');
    const previous = readTomlServer(before, 'agent-progress');
    assert.deepEqual(previous, {
      command: 'node',
      args: ['/old/dist/server.js', '--toolset', 'progress'],
      env: { AGENT_PROGRESS_DB_PATH: '/old/data.db' },
      other: { startup_timeout_sec: 'startup_timeout_sec = 20' },
    });
    const after = upsertTomlServer(before, 'agent-progress', server);
    const parsed = parseToml(this, after) as { mcp_servers: Record<string, Record<string, unknown>> };
    assert.deepEqual(parsed.mcp_servers['agent-progress'], { ...server, startup_timeout_sec: 20 });
    assert.deepEqual(parsed.mcp_servers.after, { command: 'x' });
    assert.ok(after.indexOf('[mcp_servers.agent-progress]') < after.indexOf('[mcp_servers.after]'), 'replaced where it was');
    assert.equal(upsertTomlServer(after, 'agent-progress', server), after, 'writing the same server twice changes nothing');
  });

  it('is not fooled by brackets in strings and multi-line strings, and keeps CRLF line ends', function () {
    const before = ['notes = """', '[mcp_servers.agent-progress]', 'not a table"""', 'x = "[mcp_servers.agent-progress]"', ''].join('\r\n');
    assert.equal(readTomlServer(before, 'agent-progress'), undefined);
    const after = upsertTomlServer(before, 'agent-progress', server);
    assert.ok(after.startsWith(before));
    assert.ok(!/[^\r]\n/.test(after), 'every line ends with CRLF');
    const parsed = parseToml(this, after) as { notes: string; mcp_servers: Record<string, unknown> };
    assert.equal(parsed.notes, '[mcp_servers.agent-progress]\nnot a table');
    assert.deepEqual(parsed.mcp_servers['agent-progress'], server);
  });

  it('refuses a server defined by a dotted key or an inline table, and a value left open, saying what to do', () => {
    assert.throws(
      () => readTomlServer('mcp_servers.agent-progress.command = "x"\n', 'agent-progress'),
      (e: Error) => e instanceof ConfigFormatError && /dotted key or an inline table/.test(e.message) && /run the command again/.test(e.message),
    );
    assert.throws(() => readTomlServer('[mcp_servers]\nagent-progress = { command = "x" }\n', 'agent-progress'), ConfigFormatError);
    assert.throws(() => readTomlServer('args = [\n"a",\n', 'agent-progress'), /line 1: a value is not closed/);
    assert.throws(() => readTomlServer('[broken\n', 'agent-progress'), /line 1: cannot read the table header/);
  });

  it('quotes keys and strings that need it', function () {
    const odd = { command: 'C:\\Program Files\\nodejs\\node.exe', args: ["it's", 'tab\there', 'del\x7f'], env: { 'WEIRD.KEY': 'ü' } };
    const after = upsertTomlServer('', 'agent progress', odd);
    const parsed = parseToml(this, after) as { mcp_servers: Record<string, unknown> };
    assert.deepEqual(parsed.mcp_servers['agent progress'], odd);
    assert.deepEqual(readTomlServer(after, 'agent progress'), { ...odd, other: {} });
  });
});

describe('JSON config merge', () => {
  it('reads JSON with comments and trailing commas, leaving commas inside strings alone', () => {
    assert.deepEqual(parseJsonConfig('{\n  // a comment\n  "a": "http://x//y", /* b */ "c": [1,], "d": "echo a, }",\n}', '.mcp.json').config, {
      a: 'http://x//y',
      c: [1],
      d: 'echo a, }',
    });
    assert.throws(() => parseJsonConfig('{"mcpServers": ', '.mcp.json'), /\.mcp\.json is not valid JSON \(ValueExpected at line 1, column 16\); fix or remove it/);
    assert.throws(() => parseJsonConfig('[1]', '.mcp.json'), /does not hold a JSON object/);
  });
});

describe('Connect Other Agents: entries and plans', () => {
  useTempDirs();

  it('groups the toolsets into as few servers as their tool names allow', () => {
    const entries = serverEntries(input());
    assert.deepEqual(
      entries.map((e) => [e.name, e.toolsets]),
      [
        ['agent-progress', ['progress', 'queue', 'traces']],
        ['agent-progress-workflow', ['workflow']],
      ],
    );
    // Run lean, as the servers the editor starts (src/core/leanNode.ts).
    assert.deepEqual(entries[0]!.launch.args, ['--max-semi-space-size=1', '/ext/dist/server.js', '--toolset', 'progress,queue,traces']);
    assert.deepEqual(entries[0]!.launch.env, {
      MALLOC_MMAP_THRESHOLD_: '131072',
      AGENT_PROGRESS_DB_PATH: '/storage/data.db',
      AGENT_PROGRESS_PROJECT: 'repo',
      AGENT_PROGRESS_WORKSPACE: '/work/repo',
    });
    assert.deepEqual(serverEntries(input({ toolsets: ['workflow'], node: { command: '/code', env: { ELECTRON_RUN_AS_NODE: '1' } } }))[0]!.launch.env.ELECTRON_RUN_AS_NODE, '1');
  });

  it('points the agents at the PostgreSQL ledger the sidebar uses, never writing its password', () => {
    const databaseUrl = 'postgres://team:s3cr%40t@db.example:5432/agent_progress?sslmode=require&password=qu3ryPw';
    const entries = serverEntries(input({ databaseUrl }));
    for (const e of entries) {
      assert.equal(e.launch.env.AGENT_PROGRESS_DATABASE_URL, 'postgres://team@db.example:5432/agent_progress?sslmode=require');
      assert.doesNotMatch(JSON.stringify(e.launch), /s3cr|qu3ryPw/);
    }
    const summary = describePlans([], entries, input({ databaseUrl }));
    assert.match(summary, /PostgreSQL ledger `postgres:\/\/team@db\.example:5432\/agent_progress\?sslmode=require`/);
    assert.match(summary, /PGPASSWORD/);
    assert.doesNotMatch(summary, /s3cr|qu3ryPw/);
    // Without a password (PGPASSWORD or ~/.pgpass already): the URL as it is, and nothing to say.
    assert.equal(serverEntries(input({ databaseUrl: 'postgres://team@db.example/ap' }))[0]!.launch.env.AGENT_PROGRESS_DATABASE_URL, 'postgres://team@db.example/ap');
    assert.doesNotMatch(describePlans([], entries.slice(0, 0), input({ databaseUrl: 'postgres://team@db.example/ap' })), /PGPASSWORD/);
  });

  it('knows every pair of toolsets whose tool names collide (checked against the server)', () => {
    const names = TOOLSET_NAMES as readonly string[];
    for (const a of names) {
      for (const b of names) {
        if (a >= b) continue;
        const shared = toolNamesOf(a as never).some((t) => toolNamesOf(b as never).includes(t));
        const listed = COLLIDING_TOOLSETS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
        assert.equal(listed, shared, `${a} and ${b}: ${shared ? 'share a tool name' : 'share none'}`);
      }
    }
  });

  it('merges into existing files keeping other servers and keys, and reports each change', () => {
    const dir = tempDir();
    const entries = serverEntries(input({ workspace: dir }));
    const claudeBefore = JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } }, other: { keep: true } });
    const claude = planClient(AGENT_CLIENTS[0]!, dir, claudeBefore, entries, false);
    assert.equal(claude.status, 'update');
    assert.deepEqual(
      claude.changes.map((c) => c.status),
      ['added', 'added'],
    );
    const written = JSON.parse(claude.after!) as { mcpServers: Record<string, Record<string, unknown>>; other: unknown };
    assert.deepEqual(Object.keys(written.mcpServers), ['github', 'agent-progress', 'agent-progress-workflow']);
    assert.deepEqual(written.other, { keep: true });
    assert.equal(written.mcpServers['agent-progress']!.type, 'stdio');

    const vscodeBefore = '{\n  // mine\n  "inputs": [],\n  "servers": { "agent-progress": { "command": "python", "args": ["mine.py"] } }\n}\n';
    const kept = planClient(AGENT_CLIENTS.find((c) => c.id === 'vscode')!, dir, vscodeBefore, entries, false);
    assert.deepEqual(kept.changes, [
      { name: 'agent-progress', status: 'kept', foreign: 'python mine.py' },
      { name: 'agent-progress-workflow', status: 'added' },
    ]);
    assert.match(kept.after!, /^\{\n {2}\/\/ mine\n/, 'comments stay');
    assert.deepEqual(foreignConflicts([kept]), [{ file: path.join('.vscode', 'mcp.json'), name: 'agent-progress', foreign: 'python mine.py' }]);
    const replaced = planClient(AGENT_CLIENTS.find((c) => c.id === 'vscode')!, dir, vscodeBefore, entries, true);
    assert.equal(replaced.changes[0]!.status, 'replaced');
    assert.equal((parseJsonc(replaced.after!).value as { servers: Record<string, { command: string }> }).servers['agent-progress']!.command, '/usr/bin/node');

    const codex = planClient(AGENT_CLIENTS[1]!, dir, undefined, entries, false);
    assert.equal(codex.status, 'create');
    const broken = planClient(AGENT_CLIENTS[2]!, dir, '{ nope', entries, false);
    assert.equal(broken.status, 'error');
    assert.match(broken.error!, /\.cursor[\\/]mcp\.json is not valid JSON/);
    assert.equal(broken.after, '{ nope', 'a file it cannot read is not rewritten');

    applyPlans([claude, codex, broken]);
    assert.equal(fs.readFileSync(path.join(dir, '.mcp.json'), 'utf8'), claude.after);
    assert.equal(fs.readFileSync(path.join(dir, '.codex', 'config.toml'), 'utf8'), codex.after);
    assert.equal(fs.existsSync(path.join(dir, '.cursor')), false);

    const again = AGENT_CLIENTS.slice(0, 2).map((c) => planClient(c, dir, fs.readFileSync(path.join(dir, c.file), 'utf8'), entries, false));
    assert.deepEqual(
      again.map((p) => p.status),
      ['unchanged', 'unchanged'],
      'a second run changes nothing',
    );
    const summary = describePlans([claude, codex, kept, broken], entries, input({ workspace: dir }));
    assert.match(summary, /Claude Code: `\.mcp\.json` updated/);
    assert.match(summary, /`agent-progress`: left as it was: a different server of that name is there \(`python mine\.py`\)/);
    assert.match(summary, /\+ +"agent-progress": \{/);
    assert.match(summary, /not changed \(error\)/);
  });

  it('updates without asking an entry this command wrote for an older copy of the extension', () => {
    const dir = tempDir();
    const entries = serverEntries(input({ workspace: dir, toolsets: ['progress'] }));
    const old = {
      mcpServers: { 'agent-progress': { command: 'node', args: ['/ext-0.0.9/dist/server.js', '--toolset', 'progress'], env: { AGENT_PROGRESS_DB_PATH: '/storage/data.db' } } },
    };
    const plan = planClient(AGENT_CLIENTS[2]!, dir, JSON.stringify(old), entries, false);
    assert.deepEqual(plan.changes, [{ name: 'agent-progress', status: 'updated' }]);
    // One written with Node options before the script (as now) is ours too.
    const withOptions = {
      mcpServers: { 'agent-progress': { ...old.mcpServers['agent-progress'], args: ['--max-semi-space-size=1', '/ext-0.0.9/dist/server.js', '--toolset', 'progress'] } },
    };
    assert.deepEqual(planClient(AGENT_CLIENTS[2]!, dir, JSON.stringify(withOptions), entries, false).changes, [{ name: 'agent-progress', status: 'updated' }]);
    const foreign = { mcpServers: { 'agent-progress': { ...old.mcpServers['agent-progress'], args: ['--max-semi-space-size=1', '/elsewhere/mine.js'] } } };
    assert.equal(planClient(AGENT_CLIENTS[2]!, dir, JSON.stringify(foreign), entries, false).changes[0]!.status, 'kept');
  });

  it('prefers a Node 20+ from PATH, else the editor runtime (as Node under Electron)', () => {
    const bin = tempDir();
    const node = path.join(bin, process.platform === 'win32' ? 'node.exe' : 'node');
    fs.writeFileSync(node, '', { mode: 0o755 });
    assert.deepEqual(resolveNode({ pathEnv: `relative${path.delimiter}${bin}`, execPath: '/code', electron: true, versionOf: () => 'v22.1.0\n' }), {
      command: node,
      env: {},
      source: 'path',
    });
    assert.deepEqual(resolveNode({ pathEnv: bin, execPath: '/code', electron: true, versionOf: () => 'v18.0.0' }), {
      command: '/code',
      env: { ELECTRON_RUN_AS_NODE: '1' },
      source: 'editor',
    });
    assert.deepEqual(resolveNode({ pathEnv: '', execPath: '/srv/node', electron: false, versionOf: () => undefined }), { command: '/srv/node', env: {}, source: 'editor' });
  });

  it('diffs lines with context', () => {
    assert.deepEqual(lineDiff('a\nb\nc\nd\ne\nf\n', 'a\nb\nc\nX\ne\nf\n', 1), ['  ...', '  c', '- d', '+ X', '  e', '  ...']);
  });
});
