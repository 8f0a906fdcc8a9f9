// Session digests through the CLI as real processes: two processes racing over the same sessions
// and ledger write each digest once; a restart writes nothing more; the hook command runs exactly
// as Claude Code runs it (its command string through sh -c, the hook JSON on stdin).

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { digestEntryId } from '../../src/core/digests/digestService';
import { HOOK_TARGETS, planHooks } from '../../src/extension/connect/agentHooks';
import { cleanEnv, CLI, runCli } from '../helpers/stdioServer';
import { tempDir, useTempDirs } from '../helpers/tmp';
import { writeClaude, writeCodex } from '../helpers/traceFiles';

interface Written {
  entryId: string;
  sessionId: string;
}

function run(
  command: string,
  args: string[],
  options: { env: Record<string, string>; input?: string; cwd?: string },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: cleanEnv(options.env), cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

const cliSync = (args: string[], env: Record<string, string>) => runCli(args, { env });

describe('session digests from the CLI', function () {
  this.timeout(120_000);
  useTempDirs();

  it('two processes racing over the same sessions write each digest exactly once; a restart writes none', async () => {
    const home = tempDir();
    const workspace = tempDir('ap-ws-');
    const db = path.join(tempDir(), 'data.db');
    const sessions = [
      ...Array.from({ length: 10 }, (_, i) =>
        writeClaude(home, {
          cwd: i % 2 === 0 ? workspace : path.join(workspace, 'pkg', String(i)),
          start: new Date(Date.UTC(2026, 5, 1, 8, i)),
          turns: 2,
          seed: 100 + i,
          failEvery: 3,
        }),
      ),
      ...Array.from({ length: 4 }, (_, i) => writeCodex(home, { cwd: workspace, start: new Date(Date.UTC(2026, 5, 2, 8, i)), turns: 2, seed: 200 + i })),
    ];
    const env = { AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_TRACES_HOME: home };
    const args = [CLI, 'digest', '--workspace', workspace, '--idle-minutes', '0', '--json'];
    const [a, b] = await Promise.all([run(process.execPath, args, { env }), run(process.execPath, args, { env })]);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(b.status, 0, b.stderr);
    const wa = (JSON.parse(a.stdout) as { written: Written[]; alreadyWritten: number }).written.map((w) => w.entryId);
    const wb = (JSON.parse(b.stdout) as { written: Written[]; alreadyWritten: number }).written.map((w) => w.entryId);
    const all = [...wa, ...wb].sort();
    assert.equal(all.length, sessions.length, `a wrote ${wa.length}, b wrote ${wb.length}`);
    assert.equal(new Set(all).size, sessions.length);
    const listed = JSON.parse(cliSync(['search', '--project', path.basename(workspace), '--tag', 'auto', '--limit', '100', '--json'], env).stdout) as {
      total: number;
      entries: { id: string }[];
    };
    assert.equal(listed.total, sessions.length);
    assert.deepEqual(listed.entries.map((e) => e.id).sort(), all);
    const again = JSON.parse(cliSync(['digest', '--workspace', workspace, '--idle-minutes', '0', '--json'], env).stdout) as { written: Written[] };
    assert.deepEqual(again.written, []);
    // An empty --session would name every session: refused, nothing written.
    const empty = cliSync(['digest', '--workspace', workspace, '--session', '', '--now'], env);
    assert.equal(empty.status, 2, empty.stderr);
    assert.match(empty.stderr, /--session needs a session id or a unique prefix of one/);
  });

  it('the Claude Code hook, run as Claude Code runs it, prints the project context at SessionStart and digests at Stop', async () => {
    const agentHome = tempDir();
    const workspace = tempDir('ap-ws-');
    const db = path.join(tempDir(), 'data.db');
    const session = writeClaude(agentHome, { cwd: workspace, start: new Date('2026-06-01T10:00:00Z'), turns: 2 });
    const projectId = path.basename(workspace);
    // The transcript is not under the default homes: the hook finds it from transcript_path.
    const env = { AGENT_PROGRESS_TRACES_HOME: tempDir() };
    assert.equal(cliSync(['--db', db, 'log', '--project', projectId, '--title', 'Cart totals done', '--content', 'Totals with tax.', '--agent', 'copilot'], env).status, 0);
    const command = `"${process.execPath}" "${CLI}" --db "${db}" hook`;
    const hook = (event: Record<string, unknown>) =>
      run('/bin/sh', ['-c', command], {
        env,
        cwd: workspace,
        input: JSON.stringify({ session_id: session.id, transcript_path: session.file, cwd: workspace, permission_mode: 'default', ...event }),
      });

    const start = await hook({ hook_event_name: 'SessionStart', source: 'startup' });
    assert.equal(start.status, 0, start.stderr);
    assert.match(start.stdout, new RegExp(`^Agent Progress: the latest 1 of 1 entries in the progress log of project "${projectId}"`));
    assert.match(start.stdout, /- \d{4}-\d\d-\d\dT[\d:.]+Z by copilot: Cart totals done \[[A-Za-z0-9_-]{12}\]\n {2}Totals with tax\./);

    const stop = await hook({ hook_event_name: 'Stop', stop_hook_active: false });
    assert.equal(stop.status, 0, stop.stderr);
    assert.equal(stop.stdout, '');
    const id = digestEntryId('claude_code', session.id, 0);
    const shown = cliSync(['--db', db, 'show', id, '--json'], env);
    assert.equal(shown.status, 0, shown.stderr);
    assert.deepEqual((JSON.parse(shown.stdout) as { tags: string[] }).tags, ['auto', 'claude_code']);
    // A second Stop in the same session writes nothing more.
    await hook({ hook_event_name: 'Stop', stop_hook_active: false });
    assert.equal((JSON.parse(cliSync(['--db', db, 'search', '--project', projectId, '--tag', 'auto', '--json'], env).stdout) as { total: number }).total, 1);

    const resumed = await hook({ hook_event_name: 'SessionStart', source: 'resume' });
    assert.match(resumed.stdout, /the latest 2 of 2 entries/);
    assert.match(resumed.stdout, /by claude_code:[0-9a-f]{8} \(session digest\): Turn 0:/);
  });

  it('the hooks Connect Agent Hooks writes parse, and their commands print the context for Claude Code and Gemini CLI', async () => {
    const workspace = tempDir('ap-ws-');
    const db = path.join(tempDir(), 'data.db');
    const env = { AGENT_PROGRESS_TRACES_HOME: tempDir() };
    assert.equal(cliSync(['--db', db, 'log', '--project', 'shop-web', '--title', 'Checkout fixed', '--content', 'Fixed it.'], env).status, 0);
    const input = { node: { command: process.execPath, env: {} }, cliScript: CLI, ledgerPath: db, projectId: 'shop-web' };
    for (const id of ['claude', 'gemini'] as const) {
      const plan = planHooks(HOOK_TARGETS.find((t) => t.id === id)!, workspace, undefined, input);
      const settings = JSON.parse(plan.after!) as { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> };
      assert.ok(settings.hooks.SessionStart && settings.hooks.SessionEnd, id);
      const command = settings.hooks.SessionStart[0]!.hooks[0]!.command;
      const r = await run('/bin/sh', ['-c', command], {
        env,
        cwd: workspace,
        input: JSON.stringify({ session_id: 'abc', transcript_path: '/nowhere/x.jsonl', cwd: workspace, hook_event_name: 'SessionStart', source: 'startup' }),
      });
      assert.equal(r.status, 0, r.stderr);
      if (id === 'claude') assert.match(r.stdout, /^Agent Progress: the latest 1 of 1 entries in the progress log of project "shop-web"[\s\S]*: Checkout fixed \[/);
      else {
        const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
        assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
        assert.match(out.hookSpecificOutput.additionalContext, /Checkout fixed/);
      }
    }
  });

  it('refuses hook input that is not the hook JSON without exit code 2 (which would block Claude)', async () => {
    const db = path.join(tempDir(), 'data.db');
    for (const input of ['not json', '[]', '{"session_id": "x"}']) {
      const r = await run(process.execPath, [CLI, '--db', db, 'hook'], { env: { AGENT_PROGRESS_TRACES_HOME: tempDir() }, input });
      assert.equal(r.status, 1, input);
      assert.match(r.stderr, /^agent-progress hook: (expected the hook JSON|the hook input)/, input);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
    // Refused before the ledger was opened: nothing was created.
    assert.equal(fs.existsSync(db), false);
  });
});
