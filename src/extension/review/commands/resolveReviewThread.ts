// Agent Progress: Resolve Review Thread: from the comment UI or the Review view; written to the
// ledger, so agents see it through get_threads.

import { setThreadStatus } from './threadStatus';

export const resolveReviewThread = setThreadStatus('resolved', 'Could not resolve the thread');
