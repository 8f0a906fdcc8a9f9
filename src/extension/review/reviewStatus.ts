// The status bar item of the current review: its phase, the running agent, how many agents are
// done and how many actions wait for approval. Hidden when there is no review.

import { ViewIds } from '../commandIds';
import { StatusItem } from '../statusItem';
import { reviewStatusText } from './reviewItems';
import type { ReviewModel } from './reviewModel';

export class ReviewStatus extends StatusItem {
  constructor(
    private readonly model: ReviewModel,
    private readonly now: () => Date = () => new Date(),
  ) {
    super('agentProgress.review', 49, 'Agent Progress: review', { command: `${ViewIds.review}.focus`, title: 'Show Review' });
    this.register(model.onDidChange(() => this.update()));
  }

  update(): void {
    const state = this.model.active;
    this.show(state && reviewStatusText(state, this.now()));
  }
}
