// What the traces tools need, passed in explicitly: the trace service, built on first use, and
// the server's logger (for failures the model is only told about in general terms).

import type { Logger } from '../../../core/log';
import type { TraceService } from '../../../core/traces/traceService';

export interface TraceToolDeps {
  traces: () => Promise<TraceService>;
  logger: Logger;
}
