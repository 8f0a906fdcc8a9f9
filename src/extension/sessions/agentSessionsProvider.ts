// The Agent Sessions tree view: a thin adapter from the trace index (through TraceHost) to
// TreeItems. Rescans while visible and refreshes itself when sessions change; shows an error row
// rather than throwing; an empty index shows the view's welcome text.

import type * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { TreeProvider } from '../views/treeProvider';
import { toTreeItem } from '../views/treeItem';
import type { TraceHost } from '../traceHost';
import { groupSessions, SESSIONS_PAGE, toTreeItemData, type AgentSessionsNode } from './agentSessionsItems';

export class AgentSessionsProvider extends TreeProvider<AgentSessionsNode> {
  private readonly shown = new Map<string, number>();

  constructor(
    private readonly traces: TraceHost,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.register(traces.onDidChange(() => this.refresh()));
  }

  refresh(): void {
    this.redraw();
  }

  showMore(key: string): void {
    this.shown.set(key, (this.shown.get(key) ?? SESSIONS_PAGE) + SESSIONS_PAGE);
    this.refresh();
  }

  getTreeItem(node: AgentSessionsNode): vscode.TreeItem {
    return toTreeItem(toTreeItemData(node, this.now()));
  }

  async getChildren(node?: AgentSessionsNode): Promise<AgentSessionsNode[]> {
    try {
      if (!node) {
        const sessions = await this.traces.service.overview();
        const providers = groupSessions(sessions);
        this.didRefresh();
        return providers;
      }
      if (node.kind === 'provider') return node.projects.map((group) => ({ kind: 'project', group }));
      if (node.kind === 'project') {
        const limit = this.shown.get(node.group.key) ?? SESSIONS_PAGE;
        const nodes: AgentSessionsNode[] = node.group.sessions.slice(0, limit).map((session) => ({ kind: 'session', session }));
        if (node.group.sessions.length > limit) nodes.push({ kind: 'more', key: node.group.key, shown: limit, total: node.group.sessions.length });
        return nodes;
      }
      return [];
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return [{ kind: 'message', id: 'error', text: `Could not read agent transcripts: ${message}`, icon: 'error' }];
    }
  }
}

/** Keeps the transcripts watched while the view is visible; disposing it stops watching. */
export function watchWhileVisible(view: vscode.TreeView<AgentSessionsNode>, traces: TraceHost): Disposable {
  let watching: vscode.Disposable | undefined = view.visible ? traces.watch() : undefined;
  const watcher = Disposable.from(() => watching?.dispose());
  watcher.register(
    view.onDidChangeVisibility((e) => {
      if (e.visible && !watching) watching = traces.watch();
      else if (!e.visible && watching) {
        watching.dispose();
        watching = undefined;
      }
    }),
  );
  return watcher;
}
