// Agent Progress: Reopen Review Thread: from the comment UI or the Review view; written to the
// ledger, so agents see it through get_threads.

import { setThreadStatus } from './threadStatus';

export const reopenReviewThread = setThreadStatus('open', 'Could not reopen the thread');
