// Session digests against the shared transcript fixtures and generated Claude Code sessions: one
// entry per idle session with its files, commands and failures; a follow-up when a resumed session
// grows; nothing twice across runs and restarts, nor after retention archives or deletes a digest;
// a Gemini CLI session renumbered by a rewind still gets its follow-up; opt-outs hold; secrets never
// reach the ledger.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { digestAgentId, digestEntryId, type DigestSettings } from '../../../../src/core/digests/digestService';
import { silentLogger } from '../../../../src/core/log';
import { Services } from '../../../../src/core/services';
import { resolveTraceHomes } from '../../../../src/core/traces/homes';
import { appendClaudeTurn } from '../../../helpers/digestSessions';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { FIXTURE_HOME, writeClaude } from '../../../helpers/traceFiles';

const ACME = '/home/dev/acme-shop';

function open(options: { dir: string; home: string; workspace: string; now?: () => Date; settings?: Partial<DigestSettings> }): Services {
  return new Services({
    config: { dbPath: path.join(options.dir, 'data.db'), openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    logger: silentLogger,
    // The digest logic, on the file directly: a ledger host started from source per test took over 20 s on a loaded machine.
    host: false,
    workspace: options.workspace,
    traces: { homes: resolveTraceHomes({ env: { AGENT_PROGRESS_TRACES_HOME: options.home } }), minRefreshMs: 0 },
    ...(options.now ? { clock: options.now } : {}),
    ...(options.settings ? { digests: () => options.settings! } : {}),
  });
}

/** A Gemini CLI chat as the CLI writes it: a metadata line, messages appended, $set lines, in `home`. */
function geminiChat(home: string, workspace: string, id: string, start: Date): { file: string; append: (records: object[]) => void } {
  const dir = path.join(home, '.gemini', 'tmp', path.basename(workspace));
  fs.mkdirSync(path.join(dir, 'chats'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.project_root'), workspace);
  const file = path.join(dir, 'chats', `session-${start.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`);
  fs.writeFileSync(file, JSON.stringify({ sessionId: id, projectHash: 'f'.repeat(64), startTime: start.toISOString(), lastUpdated: start.toISOString(), kind: 'main' }) + '\n');
  return { file, append: (records) => fs.appendFileSync(file, records.map((r) => JSON.stringify(r) + '\n').join('')) };
}

function geminiTurn(at: Date, n: string, prompt: string, calls: { name: string; args: object; output: string }[]): object[] {
  const t = (s: number): string => new Date(at.getTime() + s * 1000).toISOString();
  return [
    { id: `u-${n}`, timestamp: t(0), type: 'user', content: [{ text: prompt }] },
    { $set: { lastUpdated: t(0) } },
    {
      id: `g-${n}`,
      timestamp: t(2),
      type: 'gemini',
      content: '',
      model: 'gemini-2.5-pro',
      tokens: { input: 100, output: 10, cached: 0, thoughts: 0, tool: 0, total: 110 },
      toolCalls: calls.map((c, k) => ({
        id: `${c.name}-${n}-${k}`,
        name: c.name,
        args: c.args,
        status: 'success',
        timestamp: t(3 + k),
        result: [{ functionResponse: { id: `${c.name}-${n}-${k}`, name: c.name, response: { output: c.output } } }],
      })),
    },
    { $set: { lastUpdated: t(3 + calls.length) } },
  ];
}

async function autoEntries(services: Services, projectId: string) {
  const progress = await services.progress();
  const { entries } = await progress.listEntries(projectId, { tags: ['auto'], limit: 200 });
  return Promise.all(entries.map((e) => progress.showEntry(e.id)));
}

describe('session digests', () => {
  useTempDirs();

  it('writes one entry per fixture session of the workspace, with its files, commands and failures, redacted', async () => {
    const services = open({ dir: tempDir(), home: FIXTURE_HOME, workspace: ACME });
    try {
      const run = await (await services.digests()).run();
      // Eight top-level sessions ran in acme-shop (sub-agent sessions are part of their parent's).
      assert.equal(run.written.length, 8);
      const entries = await autoEntries(services, 'acme-shop');
      assert.equal(entries.length, 8);
      const claude = entries.find((e) => e.id === digestEntryId('claude_code', '3c02559b-3c42-4cdd-b64e-2ec636ec8a8f', 0))!;
      assert.equal(claude.agentId, 'claude_code:3c02559b');
      assert.deepEqual(claude.tags, ['auto', 'claude_code']);
      assert.match(claude.title, /^カートにクーポンコード機能を追加したい/);
      assert.match(claude.content, /\*\*Files written or edited \(\d+\):\*\*\n(- .*\n)*- src\/cart\/cart\.ts/);
      assert.match(claude.content, /Session claude_code `3c02559b-3c42-4cdd-b64e-2ec636ec8a8f`, part 1, events 0-\d+: drill in/);
      const gemini = entries.find((e) => e.agentId === 'gemini:5776bca4')!;
      assert.match(gemini.content, /\*\*Commands run \(5, 4 failed\):\*\*\n- FAILED \(exit 1\): `npm run lint` \(5 runs, 4 failed\)/);
      assert.match(gemini.content, /\*\*Files written or edited \(1\):\*\*\n- src\/cart\/cart\.ts/);
      const codex = entries.find((e) => e.agentId === 'codex:019df5b8')!;
      assert.match(codex.content, /\*\*Tests run \(\d+\):\*\* `/);
      const copilot = entries.find((e) => e.agentId === 'vscode_copilot:83e150a6')!;
      assert.match(copilot.content, /OPENAI_API_KEY=\[REDACTED\]/);
      for (const e of entries) {
        assert.doesNotMatch(e.content + e.title, /sk-test-FAKE0000acmeShop|sk_test_FAKE51AcmeShop/);
      }
      // A second run, and a restart on the same ledger, write nothing more.
      assert.equal((await (await services.digests()).run()).written.length, 0);
    } finally {
      await services.close();
    }
  });

  it('never duplicates after a restart and digests only sessions inside the workspace', async () => {
    const dir = tempDir();
    const first = open({ dir, home: FIXTURE_HOME, workspace: ACME });
    await (await first.digests()).run();
    await first.close();
    const again = open({ dir, home: FIXTURE_HOME, workspace: ACME });
    try {
      const run = await (await again.digests()).run();
      assert.deepEqual([run.written.length, run.pending.length], [0, 0]);
      assert.equal((await autoEntries(again, 'acme-shop')).length, 8);
    } finally {
      await again.close();
    }
    const elsewhere = open({ dir: tempDir(), home: FIXTURE_HOME, workspace: '/home/dev/other-repo' });
    try {
      assert.equal((await (await elsewhere.digests()).run()).written.length, 0);
    } finally {
      await elsewhere.close();
    }
  });

  it('waits for the idle time, then writes a follow-up only when a resumed session grows', async () => {
    const home = tempDir();
    const workspace = tempDir('ap-ws-');
    const start = new Date('2026-06-01T10:00:00Z');
    const s = writeClaude(home, { cwd: workspace, start, turns: 2 });
    appendClaudeTurn(s.file, {
      sessionId: s.id,
      cwd: workspace,
      at: new Date(Date.parse(s.end) + 1000),
      prompt: 'Add the coupon model and run the tests',
      calls: [
        { name: 'Write', input: { file_path: path.join(workspace, 'src/coupon.ts'), content: 'export {}' } },
        { name: 'Bash', input: { command: 'npm test' }, error: true },
      ],
    });
    let now = new Date(Date.parse(s.end) + 5 * 60_000);
    const services = open({ dir: tempDir(), home, workspace, now: () => now, settings: { idleMinutes: 10 } });
    try {
      const digests = await services.digests();
      let run = await digests.run();
      assert.equal(run.written.length, 0);
      assert.deepEqual(
        run.pending.map((p) => [p.sessionId, p.parts]),
        [[s.id, 0]],
      );
      now = new Date(Date.parse(s.end) + 11 * 60_000);
      run = await digests.run();
      assert.equal(run.written.length, 1);
      const projectId = path.basename(workspace);
      let entries = await autoEntries(services, projectId);
      assert.equal(entries.length, 1);
      assert.match(entries[0]!.content, /- src\/coupon\.ts/);
      assert.match(entries[0]!.content, /- FAILED: `npm test`/);
      assert.match(entries[0]!.content, /\*\*Tests run \(3\):\*\* `npm test -- 0-1` passed; `npm test -- 1-1` passed; `npm test` failed/);
      // Idle again with nothing new: nothing more.
      now = new Date(Date.parse(s.end) + 60 * 60_000);
      assert.equal((await digests.run()).written.length, 0);
      // Resumed: a new turn two hours later; busy, then idle.
      const resumedAt = new Date(Date.parse(s.end) + 120 * 60_000);
      appendClaudeTurn(s.file, {
        sessionId: s.id,
        cwd: workspace,
        at: resumedAt,
        prompt: 'Now document the coupon API',
        calls: [{ name: 'Edit', input: { file_path: path.join(workspace, 'README.md'), old_string: 'a', new_string: 'b' } }],
        seed: 9,
      });
      now = new Date(resumedAt.getTime() + 2 * 60_000);
      run = await digests.run();
      assert.deepEqual([run.written.length, run.pending.map((p) => p.parts)], [0, [1]]);
      now = new Date(resumedAt.getTime() + 30 * 60_000);
      run = await digests.run();
      assert.deepEqual(
        run.written.map((w) => [w.part, w.entryId]),
        [[1, digestEntryId('claude_code', s.id, 1)]],
      );
      entries = await autoEntries(services, projectId);
      assert.equal(entries.length, 2);
      const followUp = entries.find((e) => e.id === digestEntryId('claude_code', s.id, 1))!;
      assert.equal(followUp.title, 'Now document the coupon API (continued)');
      assert.match(followUp.content, /- README\.md/);
      assert.doesNotMatch(followUp.content, /coupon\.ts/);
      assert.equal((await digests.run()).written.length, 0);
    } finally {
      await services.close();
    }
  });

  it('digests a session part once, even after retention archives or deletes its entry, and after a restart', async () => {
    const dir = tempDir();
    const services = open({ dir, home: FIXTURE_HOME, workspace: ACME });
    const later = new Date(Date.now() + 365 * 86_400_000).toISOString();
    try {
      assert.equal((await (await services.digests()).run()).written.length, 8);
      const ledger = await services.ledger();
      assert.equal(await ledger.transfer.archiveEntriesBefore({ before: later }, new Date().toISOString()), 8);
      assert.deepEqual(await autoEntries(services, 'acme-shop'), []);
      let run = await (await services.digests()).run();
      assert.deepEqual([run.written.length, run.alreadyWritten, run.pending.length], [0, 0, 0]);
      // Restored without a conflict: nothing was written under their ids meanwhile.
      assert.equal(await ledger.transfer.restoreArchived(), 8);
      assert.equal((await autoEntries(services, 'acme-shop')).length, 8);
      assert.equal(await ledger.transfer.deleteEntriesBefore({ before: later }), 8);
      run = await (await services.digests()).run();
      assert.deepEqual([run.written.length, run.alreadyWritten, run.pending.length], [0, 0, 0]);
    } finally {
      await services.close();
    }
    const again = open({ dir, home: FIXTURE_HOME, workspace: ACME });
    try {
      const run = await (await again.digests()).run();
      assert.deepEqual([run.written.length, run.pending.length], [0, 0]);
      assert.deepEqual(await autoEntries(again, 'acme-shop'), []);
    } finally {
      await again.close();
    }
  });

  it('writes the follow-up of a Gemini CLI session whose rewind renumbered its events, with only the new work', async () => {
    const home = tempDir();
    const workspace = tempDir('ap-ws-');
    const id = '7d0c5e1a-1111-4222-8333-944445555666';
    const start = new Date('2026-06-01T10:00:00Z');
    const chat = geminiChat(home, workspace, id, start);
    const edit = (file: string): { name: string; args: object; output: string } => ({
      name: 'replace',
      args: { file_path: path.join(workspace, file), old_string: 'a', new_string: 'b' },
      output: 'Successfully modified file',
    });
    const shell = (command: string): { name: string; args: object; output: string } => ({ name: 'run_shell_command', args: { command }, output: 'Output: ok\nExit Code: 0' });
    chat.append(geminiTurn(start, '1', 'Rename the cart module', [edit('src/a.ts'), edit('src/b.ts'), shell('npm test')]));
    chat.append(geminiTurn(new Date(start.getTime() + 60_000), '2', 'Also update the docs', [edit('docs/old.md'), shell('npm run docs')]));
    let now = new Date(start.getTime() + 30 * 60_000);
    const services = open({ dir: tempDir(), home, workspace, now: () => now, settings: { idleMinutes: 10 } });
    try {
      const digests = await services.digests();
      assert.deepEqual(
        (await digests.run()).written.map((w) => w.part),
        [0],
      );
      const projectId = path.basename(workspace);
      const [first] = await autoEntries(services, projectId);
      const covered = Number(/part 1, events 0-(\d+): drill in/.exec(first!.content)?.[1]);
      // Resumed two hours later: the person rewinds the docs request and asks for something else.
      // After the replay the session has fewer events than the first digest covered.
      const resumed = new Date(start.getTime() + 120 * 60_000);
      chat.append([{ $rewindTo: 'u-2' }, ...geminiTurn(resumed, '3', 'Instead, write the changelog', [edit('CHANGELOG.md')])]);
      now = new Date(resumed.getTime() + 30 * 60_000);
      const run = await digests.run();
      assert.deepEqual(
        run.written.map((w) => [w.part, w.entryId]),
        [[1, digestEntryId('gemini', id, 1)]],
      );
      const followUp = (await autoEntries(services, projectId)).find((e) => e.id === digestEntryId('gemini', id, 1))!;
      assert.equal(followUp.title, 'Instead, write the changelog (continued)');
      assert.match(followUp.content, /\*\*Files written or edited \(1\):\*\*\n- CHANGELOG\.md/);
      assert.doesNotMatch(followUp.content, /src\/a\.ts|docs\/old\.md/);
      const [, from, to] = /part 2, events (\d+)-(\d+): drill in/.exec(followUp.content) ?? [];
      assert.ok(Number(from) < Number(to) && Number(to) < covered, `${from}-${to} within the renumbered session (first part 0-${covered})`);
      assert.equal((await digests.run()).written.length, 0);
    } finally {
      await services.close();
    }
  });

  it('a Stop digests a busy session once; its follow-up waits for idle or the session end', async () => {
    const home = tempDir();
    const workspace = tempDir('ap-ws-');
    const s = writeClaude(home, { cwd: workspace, start: new Date('2026-06-01T10:00:00Z'), turns: 1 });
    const now = new Date(Date.parse(s.end) + 1000);
    const services = open({ dir: tempDir(), home, workspace, now: () => now });
    try {
      const digests = await services.digests();
      assert.equal((await digests.run({ sessionId: s.id, force: 'first' })).written.length, 1);
      appendClaudeTurn(s.file, { sessionId: s.id, cwd: workspace, at: new Date(Date.parse(s.end) + 500), prompt: 'and then this', calls: [] });
      assert.equal((await digests.run({ sessionId: s.id, force: 'first' })).written.length, 0);
      assert.deepEqual(
        (await digests.run({ sessionId: s.id.slice(0, 8), force: 'all' })).written.map((w) => w.part),
        [1],
      );
    } finally {
      await services.close();
    }
  });

  it('links the entries the agent logged during the session instead of repeating them', async () => {
    const home = tempDir();
    const workspace = tempDir('ap-ws-');
    const s = writeClaude(home, { cwd: workspace, start: new Date('2026-06-01T10:00:00Z'), turns: 2 });
    let now = new Date(Date.parse(s.start) + 2000);
    const services = open({ dir: tempDir(), home, workspace, now: () => now });
    try {
      const projectId = path.basename(workspace);
      const progress = await services.progress();
      const mine = await progress.logProgress({ projectId, title: 'Coupon model designed', content: 'Designed it.', agentId: 'claude-code' });
      const someoneElse = await progress.logProgress({ projectId, title: 'Release notes by a person', content: 'Wrote them.', agentId: 'alice' });
      now = new Date(Date.parse(s.end) + 3 * 3600_000);
      await (await services.digests()).run();
      const [digest] = await autoEntries(services, projectId);
      assert.match(
        digest!.content,
        new RegExp(`\\*\\*Logged by the agent during this session \\(1\\):\\*\\*\\n- Coupon model designed \\(entry \`${mine.id.replace(/[-]/g, '\\-')}\`, claude-code\\)`),
      );
      assert.ok(!digest!.content.includes(someoneElse.id));
      assert.ok(!digest!.content.includes('Designed it.'));
    } finally {
      await services.close();
    }
  });

  it('keeps secrets from prompts and commands out of the ledger', async () => {
    const home = tempDir();
    const workspace = tempDir('ap-ws-');
    const secret = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const s = writeClaude(home, { cwd: workspace, start: new Date('2026-06-01T10:00:00Z'), turns: 1, promptExtra: `use ${secret} please` });
    appendClaudeTurn(s.file, {
      sessionId: s.id,
      cwd: workspace,
      at: new Date(Date.parse(s.end) + 1000),
      prompt: 'deploy',
      calls: [{ name: 'Bash', input: { command: 'curl -H "Authorization: Bearer zzTOPsecretTOKENvalue1234" https://x.test && DB_PASSWORD=hunter2hunter2 ./deploy.sh' } }],
    });
    const services = open({ dir: tempDir(), home, workspace });
    try {
      await (await services.digests()).run();
      const [digest] = await autoEntries(services, path.basename(workspace));
      const stored = JSON.stringify(digest);
      for (const leaked of [secret, 'zzTOPsecretTOKENvalue1234', 'hunter2hunter2']) assert.ok(!stored.includes(leaked), leaked);
      assert.match(digest!.content, /\[REDACTED\]/);
    } finally {
      await services.close();
    }
  });

  describe('opt-outs', () => {
    function workspaceWith(capture: string | undefined): { home: string; workspace: string } {
      const home = tempDir();
      const workspace = tempDir('ap-ws-');
      writeClaude(home, { cwd: workspace, start: new Date('2026-06-01T10:00:00Z'), turns: 1 });
      writeClaude(home, { cwd: path.join(workspace, 'secret', 'deep'), start: new Date('2026-06-01T11:00:00Z'), turns: 1, seed: 3 });
      if (capture !== undefined) {
        fs.mkdirSync(path.join(workspace, '.agent-progress'), { recursive: true });
        fs.writeFileSync(path.join(workspace, '.agent-progress', 'capture.json'), capture);
      }
      return { home, workspace };
    }

    async function written(setup: { home: string; workspace: string }, settings?: Partial<DigestSettings>) {
      const services = open({ dir: tempDir(), ...setup, ...(settings ? { settings } : {}) });
      try {
        const run = await (await services.digests()).run();
        return {
          count: run.written.length,
          reason: run.policy.reason,
          warnings: run.policy.warnings,
          entries: (await autoEntries(services, path.basename(setup.workspace))).length,
        };
      } finally {
        await services.close();
      }
    }

    it('the committed capture.json turns the workspace off, narrows providers and folders, and never turns a setting back on', async () => {
      assert.deepEqual((await written(workspaceWith(undefined))).count, 2);
      const off = await written(workspaceWith('{"enabled": false}'));
      assert.deepEqual([off.count, off.entries], [0, 0]);
      assert.match(off.reason!, /capture is off for this workspace by .agent-progress[\\/]capture\.json/);
      assert.equal((await written(workspaceWith('{"excludeProviders": ["claude_code"]}'))).count, 0);
      assert.equal((await written(workspaceWith('{"excludeFolders": ["secret"]}'))).count, 1);
      assert.equal((await written(workspaceWith('{"excludeFolders": ["sec*"]}'))).count, 1);
      const widened = await written(workspaceWith('{"enabled": true}'), { enabled: false });
      assert.deepEqual([widened.count, widened.reason], [0, 'session digests are off in the settings']);
    });

    it('settings exclude providers and folders; a capture file that does not parse turns capture off and says why', async () => {
      assert.equal((await written(workspaceWith(undefined), { excludeProviders: ['claude_code'] })).count, 0);
      assert.equal((await written(workspaceWith(undefined), { excludeFolders: ['secret/deep'] })).count, 1);
      for (const bad of ['{not json', '[1]', '{"enabled": "no"}', '{"excludeProviders": "codex"}', '{"excludeFolders": [1]}']) {
        const r = await written(workspaceWith(bad));
        assert.equal(r.count, 0, bad);
        assert.match(r.reason!, /capture\.json.*capture is off until it is fixed/, bad);
      }
      const unknown = await written(workspaceWith('{"enabled": true, "ledgerPath": "/tmp/elsewhere", "excludeProviders": ["cursor"]}'));
      assert.equal(unknown.count, 2);
      assert.deepEqual(unknown.warnings.length, 2);
    });
  });

  it('names the agent by provider and short session id', () => {
    assert.equal(digestAgentId('codex', '019df5b8-f0b4-71fb-85dd-aa841d6d20ab'), 'codex:019df5b8');
    assert.match(digestEntryId('codex', 'x', 0), /^[A-Za-z0-9_-]{12}$/);
    assert.notEqual(digestEntryId('codex', 'x', 0), digestEntryId('codex', 'x', 1));
  });
});
