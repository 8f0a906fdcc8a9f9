// Agent Progress: Refresh Review: reads the review runs again.

import type { CommandHandler } from '../../feature';
import type { ReviewDeps } from '../feature';

export function refreshReview(deps: ReviewDeps): CommandHandler {
  return () => deps.review.refresh();
}
