// What the review tools are written with: each is the ReviewService method of its name
// (methodTools), opened on first use.

import type { ReviewService } from '../../../core/review/reviewService';
import { methodTools } from '../../serviceTool';

export const reviewTool = methodTools<ReviewService>();
