// The Agent Sessions tree as plain data, from the real index of the shared fixtures: provider,
// project, session rows with turns, tokens and health; grouping and ordering.

import * as assert from 'node:assert/strict';
import type { SessionOverview } from '../../../src/core/traces/traceService';
import { CommandIds } from '../../../src/extension/commandIds';
import { compactNumber, groupSessions, healthIcon, toTreeItemData } from '../../../src/extension/sessions/agentSessionsItems';
import { FIXTURE_HOME, serviceFor } from '../../helpers/traceFiles';

const now = new Date('2026-05-15T12:00:00Z');

describe('Agent Sessions rows', () => {
  let sessions: SessionOverview[];
  before(async () => {
    sessions = await serviceFor(FIXTURE_HOME).overview();
  });

  it('groups sessions by provider (in a fixed order), then project', () => {
    const providers = groupSessions(sessions);
    assert.deepEqual(
      providers.map((p) => [p.provider, p.sessions, p.projects.map((g) => g.name)]),
      [
        ['claude_code', 2, ['acme-shop']],
        ['codex', 2, ['acme-shop']],
        ['gemini', 2, ['acme-shop']],
        ['vscode_copilot', 2, ['acme-shop']],
      ],
    );
    const provider = toTreeItemData(providers[0]!, now);
    assert.deepEqual([provider.label, provider.description, provider.collapsible], ['Claude Code', '2 sessions', 'collapsed']);
    const project = toTreeItemData({ kind: 'project', group: providers[1]!.projects[0]! }, now);
    assert.deepEqual([project.label, project.description, project.tooltip?.lines[0]], ['acme-shop', '2 sessions · May 7', '/home/dev/acme-shop']);
  });

  it('shows a session with its turns, tokens and health, opening its page on click', () => {
    const c1 = sessions.find((s) => s.id.startsWith('3c02559b'))!;
    const data = toTreeItemData({ kind: 'session', session: c1 }, now);
    assert.equal(data.label, 'Cart coupon codes: applyCoupon(), tests, README');
    assert.equal(data.description, '6 turns · 320k tokens · health 92 · May 4');
    assert.deepEqual([data.iconId, data.iconColor], ['pass', 'testing.iconPassed']);
    assert.equal(data.contextValue, 'agentSession');
    assert.deepEqual(data.command, { command: CommandIds.openAgentSession, title: 'Open Agent Session', arguments: [{ id: c1.id }] });
    assert.deepEqual(data.tooltip!.lines, [
      'Claude Code in /home/dev/acme-shop',
      '2026-05-04 01:12 UTC to 2026-05-04 01:15 UTC (4 min)',
      '6 turns, 10 tool calls, 1 failed',
      '320,368 tokens (claude-opus-4-5-20251101)',
      'Health 92/100 · 1 sub-agent session',
      `ID: ${c1.id}`,
    ]);
  });

  it('labels an untitled session by its first prompt and flags a poor one', () => {
    const x2 = sessions.find((s) => s.id.startsWith('019e0165'))!;
    const data = toTreeItemData({ kind: 'session', session: x2 }, now);
    assert.equal(data.label, 'Fix the failing inventory sync job');
    assert.equal(x2.score, 45);
    assert.deepEqual([data.iconId, data.iconColor], ['error', 'list.errorForeground']);
  });

  it('formats counts and picks health icons at the documented thresholds', () => {
    assert.deepEqual([compactNumber(999), compactNumber(1200), compactNumber(85_417), compactNumber(3_074_273)], ['999', '1.2k', '85k', '3.1M']);
    assert.deepEqual([healthIcon(80).id, healthIcon(79).id, healthIcon(50).id, healthIcon(49).id], ['pass', 'warning', 'warning', 'error']);
  });
});
