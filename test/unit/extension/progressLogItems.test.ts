import * as assert from 'node:assert/strict';
import type { EntryListing } from '../../../src/core/progress/types';
import { CommandIds } from '../../../src/extension/commandIds';
import { exactTime, relativeTime, shortDate } from '../../../src/extension/views/format';
import { pendingStatus, tickInterval } from '../../../src/extension/sessions/digestStatus';
import { entryTooltip, isDigestEntry, toTreeItemData } from '../../../src/extension/progressLog/progressLogItems';

const now = new Date('2025-06-15T12:00:00Z');
const entry: EntryListing = {
  id: 'a1b2c3d4e5f6',
  projectId: 'mobile-app',
  title: 'Refactored authentication module',
  createdAt: '2025-06-15T10:00:00Z',
  tags: ['auth', 'refactor'],
  agentId: 'copilot',
  hasSummary: true,
};

describe('Progress Log rows', () => {
  it('shows an entry with its agent, tags and relative time, opening it on click', () => {
    const data = toTreeItemData({ kind: 'entry', entry }, now);
    assert.equal(data.label, 'Refactored authentication module');
    assert.equal(data.description, 'copilot · #auth #refactor · 2h ago');
    assert.equal(data.id, 'entry:a1b2c3d4e5f6');
    assert.equal(data.contextValue, 'entry');
    assert.equal(data.iconId, 'note');
    assert.deepEqual(data.command, { command: CommandIds.openEntry, title: 'Open Entry', arguments: [{ id: 'a1b2c3d4e5f6', projectId: 'mobile-app' }] });
  });

  it('shows a project with its entry count and latest activity', () => {
    const data = toTreeItemData(
      {
        kind: 'project',
        project: { projectId: 'mobile-app', name: 'mobile-app', createdAt: '2025-06-01T00:00:00Z', entryCount: 3, lastEntryAt: '2025-06-15T11:30:00Z' },
        expanded: true,
      },
      now,
    );
    assert.equal(data.description, '3 entries · 30m ago');
    assert.equal(data.collapsible, 'expanded');
    assert.equal(
      toTreeItemData({ kind: 'project', project: { projectId: 'p', name: 'p', createdAt: '2025-06-01T00:00:00Z', entryCount: 1, lastEntryAt: null }, expanded: false }, now, 'auth')
        .description,
      '#auth',
    );
  });

  it('puts the cached summary in the tooltip as plain text', () => {
    const t = entryTooltip(entry, 'Summary <b>with markup</b>');
    assert.equal(t.title, 'Refactored authentication module');
    assert.equal(t.summary, 'Summary <b>with markup</b>');
    assert.deepEqual(t.lines, ['2025-06-15 10:00 UTC by copilot in mobile-app', 'Tags: auth, refactor', 'ID: a1b2c3d4e5f6']);
  });

  it('offers more when a project has more entries than shown', () => {
    const data = toTreeItemData({ kind: 'more', projectId: 'p', shown: 50, total: 120 }, now);
    assert.equal(data.label, 'Show more (50 of 120)');
    assert.deepEqual(data.command?.arguments, ['p']);
  });
});

describe('time formatting', () => {
  it('says how long ago, then the date', () => {
    assert.equal(relativeTime('2025-06-15T11:59:50Z', now), 'just now');
    assert.equal(relativeTime('2025-06-15T11:55:00Z', now), '5m ago');
    assert.equal(relativeTime('2025-06-13T12:00:00Z', now), '2d ago');
    assert.equal(relativeTime('2025-05-01T12:00:00Z', now), 'May 1');
    assert.equal(shortDate('2024-12-31T12:00:00Z', now), 'Dec 31, 2024');
    assert.equal(exactTime('2025-06-15T10:00:00.123Z'), '2025-06-15 10:00 UTC');
    assert.equal(relativeTime('not a date', now), 'not a date');
  });
});

describe('session digests in the editor', () => {
  it('gives a digest entry its own icon and says what it is', () => {
    const digest: EntryListing = {
      id: 'd1',
      projectId: 'shop',
      title: 'Fix lint',
      createdAt: '2026-05-01T10:00:00.000Z',
      tags: ['auto', 'gemini'],
      agentId: 'gemini:5776bca4',
      hasSummary: false,
    };
    const item = toTreeItemData({ kind: 'entry', entry: digest }, new Date('2026-05-01T11:00:00Z'));
    assert.equal(item.iconId, 'history');
    assert.match(entryTooltip(digest).lines.join('\n'), /Session digest: written by Agent Progress/);
    // A person's entry tagged auto is not a digest.
    assert.equal(isDigestEntry({ tags: ['auto'], agentId: 'alice' }), false);
    assert.equal(toTreeItemData({ kind: 'entry', entry: { ...digest, tags: ['auto'], agentId: 'alice' } }, new Date()).iconId, 'circle-small-filled');
  });

  it('counts the sessions not yet digested for the status bar, and ticks at half the idle time', () => {
    assert.equal(pendingStatus({ pending: [] }), undefined);
    const status = pendingStatus({
      pending: [
        { sessionId: 'a', provider: 'codex', parts: 0, dueInMinutes: 4 },
        { sessionId: 'b', provider: 'gemini', parts: 1, dueInMinutes: 9 },
      ],
    })!;
    assert.equal(status.text, '$(history) 2');
    assert.match(status.tooltip, /^2 agent sessions of this workspace not yet digested .*about 4 min/);
    assert.deepEqual([tickInterval(10), tickInterval(0.05), tickInterval(0)], [60_000, 1_500, 1_000]);
  });
});
