// The Review tree as plain data: runs, each with its phase, its agents (state and live duration),
// the approval queue and the threads; and a pure mapper to what a TreeItem shows. No vscode
// import: the provider turns this into TreeItems, and unit tests check it directly.

import type { ReviewAction, ReviewAgent, ReviewRun, ReviewState, ReviewThread } from '../../core/review/types';
import { CommandIds } from '../commandIds';
import { exactTime, relativeTime } from '../views/format';
import type { TreeRow } from '../views/treeRow';

export type ReviewNode =
  | { kind: 'run'; state: ReviewState; expanded: boolean }
  | { kind: 'phase'; state: ReviewState }
  | { kind: 'agents'; state: ReviewState }
  | { kind: 'agent'; agent: ReviewAgent }
  | { kind: 'actions'; state: ReviewState }
  | { kind: 'action'; action: ReviewAction }
  | { kind: 'threads'; state: ReviewState }
  | { kind: 'thread'; thread: ReviewThread }
  | { kind: 'message'; id: string; text: string; icon: string };

/** A live duration: "4s", "2m 05s", "1h 02m". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** How long an agent ran, or has been running at `now`; undefined before it starts. */
export function agentDuration(agent: ReviewAgent, now: Date): number | undefined {
  if (agent.state === 'running' && agent.startedAt) return Math.max(0, now.getTime() - Date.parse(agent.startedAt));
  return agent.durationMs ?? undefined;
}

export function phaseProgress(state: ReviewState): string {
  const phases = state.run.definition.phases.filter((p) => p !== 'failed');
  const at = phases.indexOf(state.run.phase);
  return at < 0 ? state.run.phase : `${at + 1}/${phases.length}`;
}

function runLabel(run: ReviewRun): string {
  return run.definition.title ?? run.workflow;
}

const AGENT_ICONS: Record<ReviewAgent['state'], [string, string | undefined]> = {
  pending: ['circle-large-outline', undefined],
  running: ['sync~spin', 'charts.blue'],
  completed: ['pass-filled', 'charts.green'],
  failed: ['error', 'charts.red'],
};

const ACTION_LABEL: Record<ReviewAction['kind'], string> = {
  post_comment: 'Comment',
  open_thread: 'Open thread',
  reply_thread: 'Reply',
  resolve_thread: 'Resolve thread',
};

function firstLine(text: string, max = 80): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function where(file: string | null | undefined, line: number | null | undefined): string {
  if (!file) return '';
  return line ? `${file}:${line}` : file;
}

export function phaseIcon(phase: string): [string, string | undefined] {
  if (phase === 'completed') return ['pass-filled', 'charts.green'];
  if (phase === 'failed') return ['error', 'charts.red'];
  if (phase === 'pending') return ['circle-large-outline', undefined];
  return ['sync~spin', 'charts.blue'];
}

export function toReviewItemData(node: ReviewNode, now: Date): TreeRow {
  switch (node.kind) {
    case 'run': {
      const { run } = node.state;
      const [iconId, iconColor] = phaseIcon(run.phase);
      const ctx = [run.context.branch, run.context.merge_request].filter(Boolean).join(' · ');
      return {
        id: `review:${run.id}`,
        label: runLabel(run),
        description: `${run.phase}${ctx ? ` · ${ctx}` : ''} · ${relativeTime(run.createdAt, now)}`,
        tooltip: {
          title: runLabel(run),
          lines: [
            `Review ${run.id} (${run.definition.source})`,
            `Project: ${run.projectId}`,
            `Phase: ${run.phase}`,
            ...(run.context.branch ? [`Branch: ${run.context.branch}`] : []),
            ...(run.context.merge_request ? [`Merge request: ${run.context.merge_request}`] : []),
            `Started ${exactTime(run.createdAt)} by ${run.startedBy}`,
          ],
          ...(run.context.notes ? { summary: run.context.notes } : {}),
        },
        iconId,
        ...(iconColor ? { iconColor } : {}),
        contextValue: 'reviewRun',
        collapsible: node.expanded ? 'expanded' : 'collapsed',
      };
    }
    case 'phase': {
      const { run } = node.state;
      const [iconId, iconColor] = phaseIcon(run.phase);
      return {
        id: `review:${run.id}:phase`,
        label: `Phase: ${run.phase}`,
        description: `${phaseProgress(node.state)} · since ${relativeTime(run.phaseChangedAt, now)}`,
        tooltip: { title: `Phase ${run.phase}`, lines: [`Phases: ${run.definition.phases.join(' → ')}`, `Since ${exactTime(run.phaseChangedAt)}`] },
        iconId,
        ...(iconColor ? { iconColor } : {}),
        contextValue: 'reviewPhase',
        collapsible: 'none',
      };
    }
    case 'agents': {
      const done = node.state.agents.filter((a) => a.state === 'completed' || a.state === 'failed').length;
      return {
        id: `review:${node.state.run.id}:agents`,
        label: 'Agents',
        description: `${done}/${node.state.agents.length} done`,
        iconId: 'organization',
        contextValue: 'reviewAgents',
        collapsible: 'expanded',
      };
    }
    case 'agent': {
      const a = node.agent;
      const [iconId, iconColor] = AGENT_ICONS[a.state];
      const ms = agentDuration(a, now);
      const description = [a.state, ms !== undefined ? formatDuration(ms) : undefined, a.anomalies.length ? `⚠ ${a.anomalies.length}` : undefined].filter(Boolean).join(' · ');
      return {
        id: `review:${a.runId}:agent:${a.name}`,
        label: a.name,
        description,
        tooltip: {
          title: a.name,
          lines: [
            ...(a.description ? [a.description] : []),
            `State: ${a.state}`,
            ...(a.startedAt ? [`Started ${exactTime(a.startedAt)}`] : []),
            ...(a.completedAt ? [`Ended ${exactTime(a.completedAt)}`] : []),
            ...a.anomalies.map((x) => `⚠ ${x}`),
          ],
          ...(a.summary ? { summary: a.summary } : {}),
        },
        iconId,
        ...(iconColor ? { iconColor } : {}),
        contextValue: `reviewAgent.${a.state}`,
        collapsible: 'none',
      };
    }
    case 'actions': {
      const pending = node.state.actions.filter((a) => a.status === 'pending').length;
      return {
        id: `review:${node.state.run.id}:actions`,
        label: 'Approval queue',
        description: `${pending} awaiting decision${node.state.actions.length > pending ? ` · ${node.state.actions.length - pending} decided` : ''}`,
        iconId: 'inbox',
        ...(pending > 0 ? { iconColor: 'charts.yellow' } : {}),
        contextValue: 'reviewActions',
        collapsible: pending > 0 ? 'expanded' : 'collapsed',
      };
    }
    case 'action': {
      const a = node.action;
      const target = a.target.thread_id ? `thread ${a.target.thread_id}` : where(a.target.file, a.target.line);
      const decided = a.status === 'pending' ? 'awaiting decision' : `${a.status} by ${a.decidedBy ?? '?'}`;
      return {
        id: `review:${a.runId}:action:${a.id}`,
        label: `${ACTION_LABEL[a.kind]}: ${firstLine(a.text)}`,
        description: [target, decided, a.createdBy ? `from ${a.createdBy}` : undefined].filter(Boolean).join(' · '),
        tooltip: {
          title: `${ACTION_LABEL[a.kind]} (${a.status})`,
          lines: [
            `Action ${a.id}`,
            ...(target ? [`Target: ${target}`] : []),
            `Queued ${exactTime(a.createdAt)}${a.createdBy ? ` by ${a.createdBy}` : ''}`,
            ...(a.originalText !== null ? [`Edited by ${a.editedBy ?? 'a person'}`] : []),
            ...(a.decidedAt ? [`${a.status} ${exactTime(a.decidedAt)} by ${a.decidedBy ?? '?'}`] : []),
            ...(a.note ? [`Note: ${a.note}`] : []),
          ],
          summary: a.text,
        },
        iconId: a.status === 'pending' ? 'circle-filled' : a.status === 'approved' ? 'check' : 'close',
        iconColor: a.status === 'pending' ? 'charts.yellow' : a.status === 'approved' ? 'charts.green' : 'disabledForeground',
        contextValue: `reviewAction.${a.status}`,
        collapsible: 'none',
        ...(a.threadId ? { command: { command: CommandIds.openReviewThread, title: 'Open Thread', arguments: [{ threadId: a.threadId }] } } : {}),
      };
    }
    case 'threads': {
      const open = node.state.threads.filter((t) => t.status === 'open').length;
      return {
        id: `review:${node.state.run.id}:threads`,
        label: 'Threads',
        description: `${open} open${node.state.threads.length > open ? ` · ${node.state.threads.length - open} resolved` : ''}`,
        iconId: 'comment-discussion',
        contextValue: 'reviewThreads',
        collapsible: 'collapsed',
      };
    }
    case 'thread': {
      const t = node.thread;
      const first = t.comments[0];
      return {
        id: `review:${t.runId}:thread:${t.id}`,
        label: where(t.file, t.line) || 'Review',
        description: `${t.status} · ${t.comments.length} comment${t.comments.length === 1 ? '' : 's'}${first ? ` · ${firstLine(first.body, 60)}` : ''}`,
        tooltip: { title: `Thread ${t.id} (${t.status})`, lines: t.comments.map((c) => `${c.author}: ${firstLine(c.body, 200)}`) },
        iconId: t.status === 'open' ? 'comment-unresolved' : 'comment',
        contextValue: `reviewThread.${t.status}`,
        collapsible: 'none',
        command: { command: CommandIds.openReviewThread, title: 'Open Thread', arguments: [{ threadId: t.id }] },
      };
    }
    case 'message':
      return { id: `review:message:${node.id}`, label: node.text, iconId: node.icon, contextValue: 'message', collapsible: 'none' };
  }
}

/** The children of a node, from the state it carries. */
export function reviewChildren(node: ReviewNode): ReviewNode[] {
  switch (node.kind) {
    case 'run':
      return [
        { kind: 'phase', state: node.state },
        { kind: 'agents', state: node.state },
        { kind: 'actions', state: node.state },
        { kind: 'threads', state: node.state },
      ];
    case 'agents':
      return node.state.agents.map((agent) => ({ kind: 'agent', agent }));
    case 'actions': {
      // Pending first (oldest first), then decided ones, latest first.
      const pending = node.state.actions.filter((a) => a.status === 'pending');
      const decided = node.state.actions.filter((a) => a.status !== 'pending').reverse();
      return [...pending, ...decided].map((action) => ({ kind: 'action', action }));
    }
    case 'threads':
      return [...node.state.threads].sort((a, b) => (a.status === b.status ? 0 : a.status === 'open' ? -1 : 1)).map((thread) => ({ kind: 'thread', thread }));
    default:
      return [];
  }
}

/** The id of the `kind` a command was given: its tree node, {<kind>Id}, or an id string. */
function idOf(arg: unknown, kind: 'action' | 'thread'): string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string } & Record<string, unknown>;
    const node = o[kind] as { id: string } | undefined;
    if (o.kind === kind && node) return node.id;
    const id = o[`${kind}Id`];
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/** The action id a command was given: a tree node, {actionId}, or an id string. */
export function actionIdOf(arg: unknown): string | undefined {
  return idOf(arg, 'action');
}

/** The thread id a command was given: a tree node, {threadId}, or an id string. */
export function threadIdOf(arg: unknown): string | undefined {
  return idOf(arg, 'thread');
}

/** The status bar's text and tooltip for a run. */
export function reviewStatusText(state: ReviewState, now: Date): { text: string; tooltip: string } {
  const running = state.agents.find((a) => a.state === 'running');
  const done = state.agents.filter((a) => a.state === 'completed' || a.state === 'failed').length;
  const pending = state.actions.filter((a) => a.status === 'pending').length;
  const [icon] = phaseIcon(state.run.phase);
  const text = `$(${icon}) Review: ${state.run.phase}${running ? ` · ${running.name}` : ''} · ${done}/${state.agents.length}${pending ? ` · ${pending} to approve` : ''}`;
  const tooltip = [
    `${runLabel(state.run)} (${state.run.id})`,
    `Phase ${state.run.phase} since ${relativeTime(state.run.phaseChangedAt, now)}`,
    ...state.agents.map((a) => {
      const ms = agentDuration(a, now);
      return `${a.name}: ${a.state}${ms !== undefined ? ` (${formatDuration(ms)})` : ''}`;
    }),
    ...(pending ? [`${pending} action(s) awaiting approval`] : []),
  ].join('\n');
  return { text, tooltip };
}
