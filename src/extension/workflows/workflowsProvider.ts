// The Workflows tree view: a thin adapter from the ledger (through LedgerConnection) to TreeItems, with
// a progress bar on the view while any tracked task runs. Refreshes itself when any process
// writes the ledger; shows an error row rather than throwing.

import * as vscode from 'vscode';
import { TreeProvider } from '../views/treeProvider';
import { toTreeItem } from '../views/treeItem';
import type { WorkflowDetail } from '../../core/workflow/types';
import { ViewIds } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import { groupChildren, taskChildren, taskNode, toWorkflowTreeItem, type WorkflowNode } from './workflowItems';

const PAGE = 50;

export class WorkflowsProvider extends TreeProvider<WorkflowNode> {
  private readonly details = new Map<string, Promise<WorkflowDetail>>();
  private readonly shown = new Map<string, number>();
  private running: (() => void) | undefined;

  constructor(
    private readonly host: LedgerConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.register(host.onDidChange(() => this.refresh()));
    this.register(() => this.running?.());
  }

  refresh(): void {
    this.details.clear();
    this.redraw();
  }

  showMore(projectId: string | undefined): void {
    const key = projectId ?? '*';
    this.shown.set(key, (this.shown.get(key) ?? PAGE) + PAGE);
    this.refresh();
  }

  getTreeItem(node: WorkflowNode): vscode.TreeItem {
    return toTreeItem(toWorkflowTreeItem(node, this.now()));
  }

  private detail(workflowId: string): Promise<WorkflowDetail> {
    let pending = this.details.get(workflowId);
    if (!pending) {
      pending = this.host.workflow().then((s) => s.workflowDetail(workflowId));
      pending.catch(() => this.details.delete(workflowId));
      this.details.set(workflowId, pending);
    }
    return pending;
  }

  async getChildren(node?: WorkflowNode): Promise<WorkflowNode[]> {
    try {
      const service = await this.host.workflow();
      if (!node) {
        const projects = await service.listProjects();
        this.updateProgressBar((await service.runningTasks()).length > 0);
        this.didRefresh();
        if (projects.length > 1) return projects.map((project) => ({ kind: 'project', project }));
        return this.workflows(projects[0]?.projectId);
      }
      switch (node.kind) {
        case 'project':
          return this.workflows(node.project.projectId);
        case 'workflow': {
          const d = await this.detail(node.workflow.id);
          return d.tasks.filter((t) => t.parentTaskId === null).map((t) => taskNode(t, d.tasks, d.events));
        }
        case 'task': {
          const d = await this.detail(node.task.workflowId);
          const task = d.tasks.find((t) => t.id === node.task.id) ?? node.task;
          return taskChildren(task, d.tasks, d.events);
        }
        case 'group': {
          const d = await this.detail(node.task.workflowId);
          const task = d.tasks.find((t) => t.id === node.task.id) ?? node.task;
          return groupChildren(node.group, task, d.events);
        }
        default:
          return [];
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return [{ kind: 'message', id: 'error', text: `Could not read the ledger: ${message}`, icon: 'error' }];
    }
  }

  private async workflows(projectId: string | undefined): Promise<WorkflowNode[]> {
    if (projectId === undefined) return [];
    const service = await this.host.workflow();
    const limit = this.shown.get(projectId) ?? PAGE;
    const page = await service.listWorkflows({ projectId, limit });
    const nodes: WorkflowNode[] = page.workflows.map((workflow) => ({ kind: 'workflow', workflow }));
    if (page.total > page.workflows.length) nodes.push({ kind: 'more', projectId, shown: page.workflows.length, total: page.total });
    return nodes;
  }

  /** VS Code's own progress bar on the view while a task runs; it ends when none does. */
  private updateProgressBar(anyRunning: boolean): void {
    if (anyRunning && !this.running) {
      void vscode.window.withProgress({ location: { viewId: ViewIds.workflows } }, () => new Promise<void>((resolve) => (this.running = resolve)));
    } else if (!anyRunning && this.running) {
      this.running();
      this.running = undefined;
    }
  }

  /** True while the view shows its progress bar (tests read it). */
  get showsProgress(): boolean {
    return this.running !== undefined;
  }
}
