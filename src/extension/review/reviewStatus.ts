// The status bar item of the current review: its phase, the running agent, how many agents are
// done and how many actions wait for approval. Hidden when there is no review.

import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { ViewIds } from '../commandIds';
import { reviewStatusText } from './reviewItems';
import type { ReviewModel } from './reviewModel';

export class ReviewStatus extends Disposable {
  readonly item: vscode.StatusBarItem;
  /** Whether the item is shown now (tests read it). */
  visible = false;

  constructor(
    private readonly model: ReviewModel,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
    this.item = this.register(vscode.window.createStatusBarItem('agentProgress.review', vscode.StatusBarAlignment.Left, 49));
    this.item.name = 'Agent Progress: review';
    this.item.command = { command: `${ViewIds.review}.focus`, title: 'Show Review' };
    this.register(model.onDidChange(() => this.update()));
  }

  update(): void {
    const state = this.model.active;
    if (!state) {
      this.item.hide();
      this.visible = false;
      return;
    }
    const { text, tooltip } = reviewStatusText(state, this.now());
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.show();
    this.visible = true;
  }
}
