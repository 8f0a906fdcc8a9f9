// The Progress Log tree as plain data: node kinds and a pure mapper to what a TreeItem shows.
// No vscode import: the provider turns this into TreeItems, and unit tests check it directly.

import type { EntryListing, ProjectInfo } from '../../core/progress/types';
import { CommandIds } from '../commandIds';
import { exactTime, relativeTime } from '../views/format';

export type ProgressLogNode =
  | { kind: 'project'; project: ProjectInfo; expanded: boolean }
  | { kind: 'entry'; entry: EntryListing }
  | { kind: 'more'; projectId: string; shown: number; total: number }
  | { kind: 'message'; id: string; text: string; icon: 'error' | 'info' };

import { type TooltipData, type TreeRow as TreeItemData, messageRow, showMoreRow } from '../views/treeRow';

export type { TooltipData, TreeItemData };

export function entryDescription(entry: EntryListing, now: Date): string {
  const parts: string[] = [];
  if (entry.agentId) parts.push(entry.agentId);
  if (entry.tags.length > 0) parts.push(entry.tags.map((t) => `#${t}`).join(' '));
  parts.push(relativeTime(entry.createdAt, now));
  return parts.join(' · ');
}

/** A session digest: written by Agent Progress from a transcript (tag auto, agent `<provider>:<short id>`). */
export function isDigestEntry(entry: Pick<EntryListing, 'tags' | 'agentId'>): boolean {
  return entry.tags.some((t) => t.toLowerCase() === 'auto') && /^(claude_code|codex|gemini|vscode_copilot):[^\s]+$/.test(entry.agentId ?? '');
}

export function entryTooltip(entry: EntryListing, summary?: string | null): TooltipData {
  const lines = [`${exactTime(entry.createdAt)}${entry.agentId ? ` by ${entry.agentId}` : ''} in ${entry.projectId}`];
  if (isDigestEntry(entry)) lines.push("Session digest: written by Agent Progress from the agent's transcript");
  if (entry.tags.length > 0) lines.push(`Tags: ${entry.tags.join(', ')}`);
  lines.push(`ID: ${entry.id}`);
  const data: TooltipData = { title: entry.title, lines };
  if (summary) data.summary = summary;
  return data;
}

export function toTreeItemData(node: ProgressLogNode, now: Date, filterTag?: string): TreeItemData {
  switch (node.kind) {
    case 'project': {
      const p = node.project;
      const count = filterTag ? `#${filterTag}` : `${p.entryCount} ${p.entryCount === 1 ? 'entry' : 'entries'}`;
      const last = p.lastEntryAt ? ` · ${relativeTime(p.lastEntryAt, now)}` : '';
      return {
        id: `project:${p.projectId}`,
        label: p.projectId,
        description: `${count}${last}`,
        tooltip: { title: p.projectId, lines: [`${p.entryCount} entries`, ...(p.lastEntryAt ? [`Latest ${exactTime(p.lastEntryAt)}`] : []), `Created ${exactTime(p.createdAt)}`] },
        iconId: 'repo',
        contextValue: 'project',
        collapsible: node.expanded ? 'expanded' : 'collapsed',
      };
    }
    case 'entry': {
      const e = node.entry;
      return {
        id: `entry:${e.id}`,
        label: e.title,
        description: entryDescription(e, now),
        tooltip: entryTooltip(e),
        iconId: isDigestEntry(e) ? 'history' : e.hasSummary ? 'note' : 'circle-small-filled',
        contextValue: 'entry',
        collapsible: 'none',
        command: { command: CommandIds.openEntry, title: 'Open Entry', arguments: [{ id: e.id, projectId: e.projectId }] },
      };
    }
    case 'more':
      return showMoreRow(`more:${node.projectId}:${node.shown}`, node, CommandIds.showMoreEntries, [node.projectId]);
    case 'message':
      return messageRow(`message:${node.id}`, node);
  }
}
