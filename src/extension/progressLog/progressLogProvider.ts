// The Progress Log tree view: a thin adapter from the ledger (through LedgerConnection) to TreeItems.
// Refreshes itself when any process writes the ledger; shows an error row rather than throwing.

import * as vscode from 'vscode';
import { TreeProvider } from '../views/treeProvider';
import { toTreeItem, tooltipMarkdown } from '../views/treeItem';
import { ContextKeys } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import { entryTooltip, toTreeItemData, type ProgressLogNode } from './progressLogItems';

const PAGE = 50;

export class ProgressLogProvider extends TreeProvider<ProgressLogNode> {
  private tag: string | undefined;
  private readonly shown = new Map<string, number>();

  constructor(
    private readonly host: LedgerConnection,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.register(host.onDidChange(() => this.refresh()));
  }

  get tagFilter(): string | undefined {
    return this.tag;
  }

  async setTagFilter(tag: string | undefined): Promise<void> {
    this.tag = tag;
    this.shown.clear();
    await vscode.commands.executeCommand('setContext', ContextKeys.progressLogFiltered, tag !== undefined);
    this.refresh();
  }

  showMore(projectId: string): void {
    this.shown.set(projectId, (this.shown.get(projectId) ?? PAGE) + PAGE);
    this.refresh();
  }

  refresh(): void {
    this.redraw();
  }

  getTreeItem(node: ProgressLogNode): vscode.TreeItem {
    return toTreeItem(toTreeItemData(node, this.now(), this.tag));
  }

  async getChildren(node?: ProgressLogNode): Promise<ProgressLogNode[]> {
    try {
      const progress = await this.host.progress();
      if (!node) {
        // Projects are shared by every toolset: one with no entry yet (a queue's, a workflow's) is not shown here.
        const projects = (await progress.listProjects()).filter((p) => p.entryCount > 0);
        const nodes: ProgressLogNode[] = projects.map((project) => ({ kind: 'project', project, expanded: projects.length === 1 }));
        this.didRefresh();
        return nodes;
      }
      if (node.kind !== 'project') return [];
      const projectId = node.project.projectId;
      const limit = this.shown.get(projectId) ?? PAGE;
      const page = await progress.listEntries(projectId, { ...(this.tag ? { tags: [this.tag] } : {}), limit });
      const nodes: ProgressLogNode[] = page.entries.map((entry) => ({ kind: 'entry', entry }));
      if (page.total > page.entries.length) nodes.push({ kind: 'more', projectId, shown: page.entries.length, total: page.total });
      if (page.total === 0 && this.tag) nodes.push({ kind: 'message', id: `none:${projectId}`, text: `No entries tagged #${this.tag}`, icon: 'info' });
      return nodes;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return [{ kind: 'message', id: 'error', text: `Could not read the ledger: ${message}`, icon: 'error' }];
    }
  }

  async resolveTreeItem(item: vscode.TreeItem, node: ProgressLogNode): Promise<vscode.TreeItem> {
    if (node.kind !== 'entry' || !node.entry.hasSummary) return item;
    try {
      const entry = await (await this.host.progress()).showEntry(node.entry.id, node.entry.projectId);
      item.tooltip = tooltipMarkdown(entryTooltip(node.entry, entry.summary));
    } catch {
      // keep the tooltip without a summary
    }
    return item;
  }
}
