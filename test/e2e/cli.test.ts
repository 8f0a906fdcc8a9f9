// The CLI (dist/cli.js) as a user and a script run it: commands, --json, stdin, exit codes.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, cleanEnv, CLI, startServer } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';

function cli(args: string[], options: { db?: string; input?: string; cwd?: string; env?: Record<string, string> } = {}) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: cleanEnv({ ...(options.db ? { AGENT_PROGRESS_DB_PATH: options.db } : {}), ...options.env }),
    cwd: options.cwd ?? (options.db ? path.dirname(options.db) : undefined),
    input: options.input ?? '',
  });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

describe('the CLI', function () {
  this.timeout(60_000);
  useTempDirs();

  it('logs, searches and shows entries in the ledger the MCP server uses', async () => {
    const db = path.join(tempDir(), 'data.db');
    const logged = cli(['log', '--project', 'shop', '--title', 'Added cart', '--content', 'Cart with totals.', '--tag', 'cart', '--tag', 'ui', '--agent', 'me', '--json'], { db });
    assert.equal(logged.status, 0, logged.stderr);
    const entry = JSON.parse(logged.stdout) as { id: string; projectId: string };
    assert.equal(entry.projectId, 'shop');

    const server = await startServer({ db });
    const found = await call(server, 'search_logs', { projectId: 'shop', tags: ['cart'] });
    assert.equal((found.structuredContent as { total: number }).total, 1);
    await call(server, 'log_progress', { projectId: 'shop', title: 'Checkout page', content: 'From the MCP side.' });
    await server.close();

    const search = cli(['search', '--project', 'shop'], { db });
    assert.equal(search.status, 0, search.stderr);
    assert.match(search.stdout, /Checkout page/);
    assert.match(search.stdout, new RegExp(`${entry.id}  \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}  Added cart  \\[cart, ui\\]  \\(me\\)`));
    assert.match(search.stdout, /2 of 2 entries in shop/);

    const json = JSON.parse(cli(['search', 'cart', '--project', 'shop', '--json'], { db }).stdout) as { total: number; entries: { id: string; agentId: string }[] };
    assert.equal(json.total, 1);
    assert.equal(json.entries[0]!.agentId, 'me');

    const shown = cli(['show', entry.id], { db });
    assert.equal(shown.status, 0);
    assert.match(shown.stdout, /^Added cart\nid: \S+ {3}project: shop {3}created: \S+ {3}agent: me\ntags: cart, ui\n\nCart with totals\.\n$/);
    const full = JSON.parse(cli(['show', entry.id, '--summarise', '--json'], { db }).stdout) as { summary: string; summarySource: string };
    assert.deepEqual([full.summary, full.summarySource], ['Cart with totals.', 'fallback']);
  });

  it('reads the content from stdin or a file', () => {
    const dir = tempDir();
    const db = path.join(dir, 'data.db');
    assert.equal(cli(['log', '-p', 'p', '--title', 'piped'], { db, input: 'from stdin\nline two' }).status, 0);
    fs.writeFileSync(path.join(dir, 'notes.md'), '# notes\nfrom a file');
    assert.equal(cli(['log', '-p', 'p', '--title', 'file', '--content-file', path.join(dir, 'notes.md')], { db }).status, 0);
    const entries = (JSON.parse(cli(['search', '-p', 'p', '--json'], { db }).stdout) as { entries: { id: string; title: string }[] }).entries;
    const byTitle = Object.fromEntries(entries.map((e) => [e.title, e.id]));
    assert.match(cli(['show', byTitle.piped!], { db }).stdout, /from stdin\nline two/);
    assert.match(cli(['show', byTitle.file!], { db }).stdout, /# notes\nfrom a file/);
  });

  it('takes the project from the repository it runs in', () => {
    const repo = path.join(tempDir(), 'acme-shop');
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
    const db = path.join(repo, '..', 'data.db');
    const r = cli(['log', '--title', 't', '--content', 'c', '--json'], { db, cwd: path.join(repo, 'src', 'deep') });
    assert.equal((JSON.parse(r.stdout) as { projectId: string }).projectId, 'acme-shop');
  });

  it("exits 2 with the seed's message on invalid input, and 1 when an entry is not found", () => {
    const db = path.join(tempDir(), 'data.db');
    const bad = cli(['log', '-p', 'p', '--title', 'x'.repeat(101), '--content', 'c'], { db });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr.trim(), 'agent-progress log: --title exceeds maximum length of 100 characters');
    const missing = cli(['show', 'nope1234abcd'], { db });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /Entry not found: nope1234abcd/);
    const json = cli(['show', 'nope1234abcd', '--json'], { db });
    assert.deepEqual(JSON.parse(json.stdout), { error: { code: 'not_found', message: 'Entry not found: nope1234abcd. Use search to find ids.', retryable: false } });
    const date = cli(['search', '-p', 'p', '--since', 'yesterday'], { db });
    assert.equal(date.status, 2);
    assert.match(date.stderr, /Invalid date format for --since: expected ISO 8601/);
  });

  it("names its own flags and commands in errors, never the MCP tools' arguments and names", () => {
    const db = path.join(tempDir(), 'data.db');
    const says = (args: string[]): string => {
      const r = cli(args, { db });
      assert.notEqual(r.status, 0, args.join(' '));
      return r.stderr.trim();
    };
    assert.equal(says(['search', '-p', 'p', '--since', 'yesterday']), 'agent-progress search: Invalid date format for --since: expected ISO 8601');
    assert.equal(says(['search', '-p', 'p', '--until', 'soon']), 'agent-progress search: Invalid date format for --until: expected ISO 8601');
    assert.equal(says(['search', '-p', 'p', '--limit', '500']), 'agent-progress search: --limit must be between 1 and 100');
    assert.equal(says(['log', '-p', 'p', '--title', '', '--content', 'c']), 'agent-progress log: --title is required and cannot be empty');
    const unknown = says(['add-task', 'nope', '-', 'do it']);
    assert.equal(
      unknown,
      'agent-progress add-task: Project not found: nope. Use "agent-progress list-projects" to see the projects, or "agent-progress create-project" to make it.',
    );
    const json = cli(['get-project', 'nope', '--json'], { db });
    assert.match((JSON.parse(json.stdout) as { error: { message: string } }).error.message, /Use "agent-progress list-projects"/);
    for (const text of [unknown, json.stdout]) assert.doesNotMatch(text, /\b(startDate|endDate|list_projects|create_project|search_logs)\b/);
  });

  it('explains usage mistakes with exit code 2', () => {
    const db = path.join(tempDir(), 'data.db');
    assert.equal(cli([], { db }).status, 2);
    const unknown = cli(['frobnicate'], { db });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    const flag = cli(['log', '--titel', 'x'], { db });
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /Unknown option --titel\. Run "agent-progress log --help"/);
    assert.match(cli(['search', '--limit', 'many'], { db }).stderr, /--limit must be a number/);
    assert.match(cli(['log', '--content', 'a', '--content-file', 'b', '--title', 't'], { db }).stderr, /not both/);
  });

  it('prints help for the tool and for each command', () => {
    const help = cli(['--help']);
    assert.equal(help.status, 0);
    for (const command of ['log', 'search', 'show', 'projects']) {
      assert.match(help.stdout, new RegExp(`\\n  ${command} `));
      const own = cli([command, '--help']);
      assert.equal(own.status, 0);
      assert.match(own.stdout, new RegExp(`^Usage: agent-progress ${command}`));
    }
  });

  it('lists projects', () => {
    const db = path.join(tempDir(), 'data.db');
    assert.match(cli(['projects'], { db }).stdout, /No projects yet/);
    cli(['log', '-p', 'alpha', '--title', 't', '--content', 'c'], { db });
    cli(['log', '-p', 'alpha', '--title', 't2', '--content', 'c'], { db });
    assert.match(cli(['projects'], { db }).stdout, /^alpha {2}2 entries, latest \S+\n$/);
    assert.equal((JSON.parse(cli(['projects', '--json'], { db }).stdout) as { projects: unknown[] }).projects.length, 1);
  });

  it('accepts --db before or after the command', () => {
    const db = path.join(tempDir(), 'x', 'ledger.db');
    assert.equal(cli(['--db', db, 'log', '-p', 'p', '--title', 't', '--content', 'c']).status, 0);
    assert.equal((JSON.parse(cli(['search', '-p', 'p', '--json', `--db=${db}`]).stdout) as { total: number }).total, 1);
  });
});
