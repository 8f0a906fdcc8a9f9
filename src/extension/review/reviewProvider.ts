// The Review tree view: a thin adapter from the ReviewModel to TreeItems (runs, phase, agents with
// a live duration, the approval queue, threads). Refreshes when any process writes the ledger and
// once a second while an agent runs; shows an error row rather than throwing.

import type * as vscode from 'vscode';
import { TreeProvider } from '../views/treeProvider';
import type { ReviewModel } from './reviewModel';
import { toTreeItem } from '../views/treeItem';
import { reviewChildren, toReviewItemData, type ReviewNode } from './reviewItems';

const TICK_MS = 1_000;

export class ReviewProvider extends TreeProvider<ReviewNode> {
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly model: ReviewModel,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.register(
      model.onDidChange(() => {
        this.redraw();
        this.updateTicker();
      }),
    );
    this.register(() => {
      if (this.ticker) clearInterval(this.ticker);
    });
  }

  /** Reads the ledger again and redraws. */
  refresh(): Promise<void> {
    return this.model.load().then(
      () => undefined,
      () => this.redraw(),
    );
  }

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    return toTreeItem(toReviewItemData(node, this.now()));
  }

  async getChildren(node?: ReviewNode): Promise<ReviewNode[]> {
    if (node) return reviewChildren(node);
    try {
      if (!this.model.loaded) await this.model.load();
      const states = this.model.states;
      this.didRefresh();
      if (states.length === 0) return [];
      const active = this.model.active;
      return states.map((state) => ({ kind: 'run', state, expanded: state === active }));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return [{ kind: 'message', id: 'error', text: `Could not read the ledger: ${message}`, icon: 'error' }];
    }
  }

  /** Redraws once a second while an agent runs, so its duration counts up. */
  private updateTicker(): void {
    const running = this.model.states.some((s) => s.agents.some((a) => a.state === 'running'));
    if (running && !this.ticker) this.ticker = setInterval(() => this.redraw(), TICK_MS);
    else if (!running && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** True while durations are counting (tests read it). */
  get ticking(): boolean {
    return this.ticker !== undefined;
  }
}
