// The Task Queue tree view: a thin adapter from the queue (through LedgerConnection) to TreeItems.
// Refreshes when any process writes the ledger, and every few seconds while a lease counts down.

import type * as vscode from 'vscode';
import { TreeProvider } from '../views/treeProvider';
import { toTreeItem } from '../views/treeItem';
import type { TaskStatus } from '../../core/queue/types';
import type { LedgerConnection } from '../ledgerConnection';
import { countOf, STATUS_ORDER, toQueueItemData, type TaskQueueNode } from './taskQueueItems';

const PAGE = 50;
const COUNTDOWN_MS = 5_000;

export class TaskQueueProvider extends TreeProvider<TaskQueueNode> {
  private readonly shown = new Map<string, number>();
  private countdown: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: LedgerConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.register(host.onDidChange(() => this.refresh()));
    this.register(() => {
      if (this.countdown) clearInterval(this.countdown);
    });
  }

  refresh(): void {
    this.redraw();
  }

  showMore(projectId: string, status: TaskStatus): void {
    const key = `${projectId}:${status}`;
    this.shown.set(key, (this.shown.get(key) ?? PAGE) + PAGE);
    this.refresh();
  }

  getTreeItem(node: TaskQueueNode): vscode.TreeItem {
    return toTreeItem(toQueueItemData(node, this.now()));
  }

  async getChildren(node?: TaskQueueNode): Promise<TaskQueueNode[]> {
    try {
      const queue = await this.host.queue();
      if (!node) {
        const projects = (await queue.listProjects({ includeClosed: true })).filter((p) => p.stats.totalTasks > 0 || p.status === 'active');
        const withTasks = projects.filter((p) => p.stats.totalTasks > 0);
        this.scheduleCountdown(projects.some((p) => p.stats.runningTasks > 0));
        return withTasks.map((project) => ({ kind: 'queueProject', project, expanded: withTasks.length === 1 || project.stats.runningTasks > 0 }));
      }
      if (node.kind === 'queueProject') {
        return STATUS_ORDER.map((status) => ({
          kind: 'status',
          projectId: node.project.id,
          status,
          count: countOf(node.project, status),
          closed: node.project.status === 'closed',
        }));
      }
      if (node.kind === 'status') {
        if (node.count === 0) return [];
        const limit = this.shown.get(`${node.projectId}:${node.status}`) ?? PAGE;
        const page = await queue.listTasks({ projectId: node.projectId, status: node.status, limit: Math.min(limit, 200), offset: Math.max(0, limit - 200) });
        const tasks = node.status === 'completed' || node.status === 'failed' || node.status === 'cancelled' ? [...page.tasks].reverse() : page.tasks;
        const nodes: TaskQueueNode[] = tasks.map((task) => ({ kind: 'task', task }));
        if (page.total > limit) nodes.push({ kind: 'moreTasks', projectId: node.projectId, status: node.status, shown: limit, total: page.total });
        return nodes;
      }
      return [];
    } catch (err) {
      return [{ kind: 'message', id: 'error', text: `Could not read the queue: ${err instanceof Error ? err.message : String(err)}`, icon: 'error' }];
    }
  }

  /** While a lease counts down, re-render every few seconds so "3m 20s left" stays true. */
  private scheduleCountdown(running: boolean): void {
    if (running && !this.countdown) {
      this.countdown = setInterval(() => this.refresh(), COUNTDOWN_MS);
    } else if (!running && this.countdown) {
      clearInterval(this.countdown);
      this.countdown = undefined;
    }
  }
}
