// Connect Agent Hooks' planning: hooks merged into Claude Code's and Gemini CLI's settings without
// breaking what is there, our older commands replaced rather than repeated, the instructions
// section added once and replaced between its markers.

import * as assert from 'node:assert/strict';
import { HOOK_TARGETS, hookCommand, isOwnHookCommand, planHooks, shellQuote, upsertSection, type HookInput } from '../../../../src/extension/connect/agentHooks';
import { parseJsonConfig } from '../../../../src/extension/connect/jsonMerge';

const input: HookInput = { node: { command: '/usr/bin/node', env: {} }, cliScript: '/ext/agent progress/dist/cli.js', ledgerPath: "/data/it's/data.db", projectId: 'shop' };
const target = (id: string) => HOOK_TARGETS.find((t) => t.id === id)!;

describe('agent hooks planning', () => {
  it('quotes for sh and recognises its own commands', () => {
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    const command = hookCommand(input);
    assert.equal(command, `AGENT_PROGRESS_PROJECT=shop /usr/bin/node '/ext/agent progress/dist/cli.js' --db '/data/it'\\''s/data.db' hook`);
    assert.ok(isOwnHookCommand(command));
    assert.ok(isOwnHookCommand(hookCommand({ ...input, cliScript: '/old/ext/dist/cli.js' }, 'gemini')));
    assert.ok(!isOwnHookCommand('npx prettier --write .'));
  });

  it('merges Claude Code hooks into settings that have other keys and hooks, and is idempotent', () => {
    const existing = JSON.stringify(
      {
        permissions: { allow: ['Bash(npm test)'] },
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }] },
      },
      null,
      2,
    );
    const plan = planHooks(target('claude'), '/ws', existing, input);
    assert.equal(plan.status, 'update');
    const after = JSON.parse(plan.after!) as { permissions: unknown; hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> };
    assert.deepEqual(after.permissions, { allow: ['Bash(npm test)'] });
    assert.deepEqual(after.hooks.PreToolUse, [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }]);
    assert.deepEqual(
      after.hooks.Stop!.map((g) => g.hooks.map((h) => h.command)),
      [['say done'], [hookCommand(input)]],
    );
    assert.deepEqual(after.hooks.SessionStart, [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: hookCommand(input), timeout: 60 }] }]);
    assert.equal(after.hooks.SessionEnd!.length, 1);
    assert.equal(planHooks(target('claude'), '/ws', plan.after, input).status, 'unchanged');
    // An update of the extension (another folder): replaced, not added twice.
    const moved = planHooks(target('claude'), '/ws', plan.after, { ...input, cliScript: '/new/ext/dist/cli.js' });
    const hooks = (JSON.parse(moved.after!) as { hooks: Record<string, { hooks: { command: string }[] }[]> }).hooks;
    assert.deepEqual(
      hooks.Stop!.flatMap((g) => g.hooks.map((h) => h.command)),
      ['say done', hookCommand({ ...input, cliScript: '/new/ext/dist/cli.js' })],
    );
  });

  it('writes Gemini CLI hooks in its format and refuses a settings file it cannot read', () => {
    const plan = planHooks(target('gemini'), '/ws', '{ // comment\n "mcpServers": {} }', input);
    assert.match(plan.after!, /^\{ \/\/ comment\n/, 'the comment is kept: the file is edited in place');
    const after = parseJsonConfig(plan.after!, 'settings.json').config as {
      mcpServers: unknown;
      hooks: Record<string, { hooks: { name: string; type: string; command: string }[] }[]>;
    };
    assert.deepEqual(Object.keys(after.hooks), ['SessionStart', 'AfterAgent', 'SessionEnd']);
    assert.equal(after.hooks.SessionStart![0]!.hooks[0]!.command, hookCommand(input, 'gemini'));
    assert.deepEqual(after.mcpServers, {});
    for (const bad of ['{', '{"hooks": []}', '{"hooks": {"SessionStart": {}}}']) {
      const refused = planHooks(target('gemini'), '/ws', bad, input);
      assert.equal(refused.status, 'error', bad);
      assert.match(refused.error!, /fix (it|or remove it) and run the command again/);
    }
  });

  it('adds the instructions section once and replaces it between its markers', () => {
    const first = upsertSection('# Agents\n\nBe nice.\n', 'SECTION');
    assert.equal(first, '# Agents\n\nBe nice.\n\nSECTION\n');
    const plan = planHooks(target('agents-md'), '/ws', '# Agents\n', input);
    assert.equal(plan.status, 'update');
    assert.match(plan.after!, /call\n {2}`log_progress`/);
    assert.equal(planHooks(target('agents-md'), '/ws', plan.after, input).status, 'unchanged');
    const changed = planHooks(target('agents-md'), '/ws', plan.after, { ...input, projectId: 'other' });
    assert.equal((changed.after!.match(/agent-progress:begin/g) ?? []).length, 1);
    assert.match(changed.after!, /project `other`/);
  });
});
