// The Agent Sessions tree as plain data: provider, project, session (turns, tokens, health score),
// and a pure mapper to what a TreeItem shows. No vscode import: the provider turns this into
// TreeItems, and unit tests check it directly.

import type { SessionOverview } from '../../core/traces/traceService';
import { CommandIds } from '../commandIds';
import { exactTime, relativeTime } from '../views/format';
import { type TooltipData, type TreeRow, messageRow, showMoreRow } from '../views/treeRow';

export const PROVIDER_LABELS: Record<string, string> = {
  claude_code: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  vscode_copilot: 'VS Code Copilot Chat',
};

const PROVIDER_ORDER = ['claude_code', 'codex', 'gemini', 'vscode_copilot'];
export const SESSIONS_PAGE = 50;

export interface ProjectGroup {
  provider: string;
  key: string;
  name: string;
  path: string | null;
  sessions: SessionOverview[];
  lastActivity: string | null;
}

export type AgentSessionsNode =
  | { kind: 'provider'; provider: string; sessions: number; projects: ProjectGroup[] }
  | { kind: 'project'; group: ProjectGroup }
  | { kind: 'session'; session: SessionOverview }
  | { kind: 'more'; key: string; shown: number; total: number }
  | { kind: 'message'; id: string; text: string; icon: 'error' | 'info' };

export type SessionTreeItemData = TreeRow;

function basename(p: string): string {
  const parts = p.split(/[\\/]+/).filter(Boolean);
  return parts.at(-1) ?? p;
}

/** Sessions grouped by provider, then project (most recent activity first). */
export function groupSessions(sessions: readonly SessionOverview[]): Extract<AgentSessionsNode, { kind: 'provider' }>[] {
  const byProvider = new Map<string, Map<string, ProjectGroup>>();
  for (const s of sessions) {
    const projects = byProvider.get(s.provider) ?? new Map<string, ProjectGroup>();
    byProvider.set(s.provider, projects);
    const key = `${s.provider}:${s.project_hash ?? 'none'}`;
    const group = projects.get(key) ?? {
      provider: s.provider,
      key,
      name: s.project_path ? basename(s.project_path) : 'No project',
      path: s.project_path,
      sessions: [],
      lastActivity: null,
    };
    group.sessions.push(s);
    const last = s.end_time ?? s.start_time;
    if (last && (group.lastActivity === null || last > group.lastActivity)) group.lastActivity = last;
    projects.set(key, group);
  }
  return [...byProvider.entries()]
    .sort((a, b) => PROVIDER_ORDER.indexOf(a[0]) - PROVIDER_ORDER.indexOf(b[0]))
    .map(([provider, projects]) => {
      const list = [...projects.values()].sort((a, b) =>
        (a.lastActivity ?? '') > (b.lastActivity ?? '') ? -1 : (a.lastActivity ?? '') < (b.lastActivity ?? '') ? 1 : a.name.localeCompare(b.name),
      );
      return { kind: 'provider' as const, provider, sessions: list.reduce((n, g) => n + g.sessions.length, 0), projects: list };
    });
}

export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

export function healthIcon(score: number): { id: string; color: string } {
  if (score >= 80) return { id: 'pass', color: 'testing.iconPassed' };
  if (score >= 50) return { id: 'warning', color: 'list.warningForeground' };
  return { id: 'error', color: 'list.errorForeground' };
}

export function sessionLabel(s: SessionOverview): string {
  const text = s.title ?? (s.snippet.trim() !== '' ? s.snippet : s.id);
  return text.replace(/\s+/g, ' ').trim();
}

export function sessionDescription(s: SessionOverview, now: Date): string {
  const parts = [`${s.turn_count} ${s.turn_count === 1 ? 'turn' : 'turns'}`, `${compactNumber(s.total_tokens)} tokens`, `health ${s.score}`];
  if (s.start_time) parts.push(relativeTime(s.start_time, now));
  return parts.join(' · ');
}

export function sessionTooltip(s: SessionOverview): TooltipData {
  const lines = [`${PROVIDER_LABELS[s.provider] ?? s.provider}${s.kind !== 'main' ? ` (${s.kind})` : ''}${s.project_path ? ` in ${s.project_path}` : ''}`];
  if (s.start_time)
    lines.push(
      `${exactTime(s.start_time)}${s.end_time ? ` to ${exactTime(s.end_time)}` : ''}${s.duration_seconds !== null ? ` (${Math.round(s.duration_seconds / 60)} min)` : ''}`,
    );
  lines.push(`${s.turn_count} turns, ${s.tool_calls} tool calls, ${s.failed_tool_calls} failed`);
  lines.push(`${s.total_tokens.toLocaleString('en-US')} tokens${s.models.length > 0 ? ` (${s.models.join(', ')})` : ''}`);
  lines.push(`Health ${s.score}/100${s.subagents > 0 ? ` · ${s.subagents} sub-agent session${s.subagents === 1 ? '' : 's'}` : ''}`);
  lines.push(`ID: ${s.id}`);
  const data: TooltipData = { title: sessionLabel(s), lines };
  if (s.title && s.snippet) data.summary = s.snippet;
  return data;
}

export function toTreeItemData(node: AgentSessionsNode, now: Date): SessionTreeItemData {
  switch (node.kind) {
    case 'provider':
      return {
        id: `provider:${node.provider}`,
        label: PROVIDER_LABELS[node.provider] ?? node.provider,
        description: `${node.sessions} ${node.sessions === 1 ? 'session' : 'sessions'}`,
        iconId: node.provider === 'vscode_copilot' ? 'copilot' : 'robot',
        contextValue: 'provider',
        collapsible: 'collapsed',
      };
    case 'project': {
      const g = node.group;
      return {
        id: `project:${g.key}`,
        label: g.name,
        description: `${g.sessions.length} ${g.sessions.length === 1 ? 'session' : 'sessions'}${g.lastActivity ? ` · ${relativeTime(g.lastActivity, now)}` : ''}`,
        tooltip: { title: g.name, lines: [g.path ?? 'Sessions without a project folder', ...(g.lastActivity ? [`Latest ${exactTime(g.lastActivity)}`] : [])] },
        iconId: 'repo',
        contextValue: 'project',
        collapsible: 'collapsed',
      };
    }
    case 'session': {
      const s = node.session;
      const icon = healthIcon(s.score);
      return {
        id: `session:${s.id}`,
        label: sessionLabel(s),
        description: sessionDescription(s, now),
        tooltip: sessionTooltip(s),
        iconId: icon.id,
        iconColor: icon.color,
        contextValue: 'agentSession',
        collapsible: 'none',
        command: { command: CommandIds.openAgentSession, title: 'Open Agent Session', arguments: [{ id: s.id }] },
      };
    }
    case 'more':
      return showMoreRow(`more:${node.key}:${node.shown}`, node, CommandIds.showMoreSessions, [node.key]);
    case 'message':
      return messageRow(`message:${node.id}`, node);
  }
}
