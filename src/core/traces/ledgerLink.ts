// The link between what agents logged in the shared ledger (progress log today; the queue and
// workflow toolsets plug in the same way) and the transcripts: same project, overlapping time.
// Computed when asked, from both sides; nothing is written anywhere.

import * as path from 'node:path';
import type { ProgressService } from '../progress/progressService';
import { defaultProjectId } from '../projectId';
import type { QueueService } from '../queue/queueService';
import type { WorkflowService } from '../workflow/workflowService';
import type { LedgerActivity } from './types';

export type { LedgerActivity };

/** How far outside a session's first and last record ledger activity still belongs to it. */
export const LINK_SLACK_MS = 5 * 60_000;

/** A toolset's record of what agents did, queried by project and time. */
export interface LedgerActivitySource {
  readonly toolset: string;
  /** Project ids that have activity. */
  projects(): Promise<string[]>;
  /** Activity in one project between two instants (inclusive), oldest first, at most `limit`. */
  between(projectId: string, from: string, to: string, limit: number): Promise<LedgerActivity[]>;
}

const byTime = (a: LedgerActivity, b: LedgerActivity): number => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0);

/**
 * A toolset's activity source: its project ids, and its records of one project in a window (this
 * stamps them with the toolset, sorts them by time and keeps the first `limit`).
 */
function activitySource<S>(
  toolset: string,
  service: () => Promise<S>,
  projects: (s: S) => Promise<string[]>,
  inWindow: (s: S, projectId: string, from: string, to: string, limit: number) => Promise<Omit<LedgerActivity, 'toolset'>[]>,
): LedgerActivitySource {
  return {
    toolset,
    async projects() {
      return projects(await service());
    },
    async between(projectId, from, to, limit) {
      const found = await inWindow(await service(), projectId, from, to, limit);
      return found
        .map((a) => ({ toolset, ...a }))
        .sort(byTime)
        .slice(0, limit);
    },
  };
}

/** The progress log as an activity source. */
export function progressActivitySource(progress: () => Promise<ProgressService>): LedgerActivitySource {
  return activitySource(
    'progress',
    progress,
    async (p) => (await p.listProjects()).map((x) => x.projectId),
    async (p, projectId, from, to, limit) => {
      const result = await p.searchLogs({ projectId, startDate: from, endDate: to, limit: Math.min(limit, 100) });
      return result.listings.map((e) => ({ id: e.id, projectId: e.projectId, title: e.title, at: e.createdAt, agentId: e.agentId }));
    },
  );
}

/** The workflow toolset as an activity source: workflows started or active in the window. */
export function workflowActivitySource(workflow: () => Promise<WorkflowService>): LedgerActivitySource {
  return activitySource(
    'workflow',
    workflow,
    async (w) => (await w.listProjects()).map((x) => x.projectId),
    async (w, projectId, from, to) => {
      const { workflows } = await w.listWorkflows({ projectId, limit: 200 });
      return workflows
        .filter((x) => x.createdAt <= to && x.lastActivityAt >= from)
        .map((x) => ({ id: x.id, projectId: x.projectId, title: x.name, at: x.createdAt >= from ? x.createdAt : x.lastActivityAt, agentId: null }));
    },
  );
}

/** The task queue as an activity source: what agents did to tasks (its audit log) in the window. */
export function queueActivitySource(queue: () => Promise<QueueService>): LedgerActivitySource {
  return activitySource(
    'queue',
    queue,
    async (q) => (await q.listProjects({ includeClosed: true })).map((x) => x.id),
    async (q, projectId, from, to) => {
      const { events } = await q.getAuditLog({ projectId, limit: 200 });
      return events
        .filter((e) => e.at >= from && e.at <= to)
        .map((e) => ({
          id: e.taskId ?? String(e.id),
          projectId: e.projectId,
          title: `${e.action.replace(/_/g, ' ')}${e.taskId ? ` ${e.taskId}` : ''}`,
          at: e.at,
          agentId: e.agentName ?? e.actor,
        }));
    },
  );
}

/**
 * Whether a ledger project id names the folder a transcript ran in: the folder's repository name
 * (as the ledger defaults it), or any segment of its path (an agent in packages/web of acme-shop
 * logs under acme-shop). Case-insensitive.
 */
export function projectMatches(projectId: string, root: string | null): boolean {
  if (!root) return false;
  const wanted = projectId.toLowerCase();
  const segments = root
    .split(/[\\/]+/)
    .filter(Boolean)
    .map((s) => s.toLowerCase());
  if (segments.includes(wanted)) return true;
  try {
    return defaultProjectId(root).toLowerCase() === wanted;
  } catch {
    return false;
  }
}

/** The ledger projects a transcript's folder belongs to, deepest path segment first. */
export function ledgerProjectsFor(root: string | null, projects: readonly string[]): string[] {
  if (!root) return [];
  const segments = root
    .split(/[\\/]+/)
    .filter(Boolean)
    .map((s) => s.toLowerCase());
  const depth = (p: string): number => segments.lastIndexOf(p.toLowerCase());
  return projects.filter((p) => projectMatches(p, root)).sort((a, b) => depth(b) - depth(a));
}

export function window(start: string | null, end: string | null): { from: string; to: string } | undefined {
  if (!start) return undefined;
  const s = Date.parse(start);
  const e = end ? Date.parse(end) : s;
  if (Number.isNaN(s)) return undefined;
  return { from: new Date(s - LINK_SLACK_MS).toISOString(), to: new Date((Number.isNaN(e) ? s : e) + LINK_SLACK_MS).toISOString() };
}

export function basenameOf(root: string | null): string | null {
  return root ? path.basename(root) : null;
}
