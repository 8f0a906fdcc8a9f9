// What the progress tools need, passed in explicitly: the service, opened on first use.

import type { ProgressService } from '../../../core/progress/progressService';

export interface ProgressToolDeps {
  progress: () => Promise<ProgressService>;
}
