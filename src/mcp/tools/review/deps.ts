// What the review tools need, passed in explicitly: the service, opened on first use.

import type { ReviewService } from '../../../core/review/reviewService';

export interface ReviewToolDeps {
  review: () => Promise<ReviewService>;
}
