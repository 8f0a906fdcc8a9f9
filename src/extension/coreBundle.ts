// Entry of dist/core.js: what the extension needs from core, bundled apart from dist/extension.js
// and loaded on first use (through loadCore), so that activation does not parse zod, sql.js or the
// openai client. Only this file may import core and shared values for the extension.

export { Services } from '../core/services';
export { copyLedger } from '../core/storage/copyLedger';
export { createOpenAiProvider } from '../core/progress/openAiSummary';
export { ProviderUnavailable } from '../core/progress/summariser';
export { entryToHost } from '../shared/entryProtocol';
export { workflowToHost } from '../shared/workflowProtocol';
export { taskToHost } from '../shared/taskProtocol';
export { parseTaskFile } from '../core/queue/importFile';
export { TraceService } from '../core/traces/traceService';
export { resolveTraceHomes, TRACE_ENV } from '../core/traces/homes';
export { progressActivitySource, queueActivitySource, workflowActivitySource } from '../core/traces/ledgerLink';
export { isTraceError } from '../core/traces/errors';
export { sessionToHost } from '../shared/sessionProtocol';
export { statusDocument } from '../core/review/reviewService';
export { recoveryLines, recoverySummary } from '../core/storage/recoveryText';
export { LEAN_NODE_ARGS, LEAN_NODE_ENV } from '../core/leanNode';
