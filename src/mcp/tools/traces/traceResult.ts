// How the traces tools answer (AgTrace specification, README "Tools"): the data as structuredContent and, for clients that
// read only text, the same JSON as text; every failure as an isError result whose text is the
// specification's {"error": {code, message, details, retryable}}, bad arguments included (invalid_parameter),
// where the progress tools use JSON-RPC -32602. A failure carries no structuredContent: SDK clients
// validate any structuredContent against the tool's outputSchema, error results included, and
// would turn the specification's error into a schema mismatch. Never a stack trace.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';
import { isTraceError, type TraceErrorShape } from '../../../core/traces/errors';

export function traceSuccess(data: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data as Record<string, unknown> };
}

export function traceFailure(error: TraceErrorShape): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
}

/** Runs a tool body and maps what it throws to the specification's structured errors. */
export async function traced(tool: string, logger: Logger, run: () => Promise<object>): Promise<CallToolResult> {
  try {
    return traceSuccess(await run());
  } catch (err) {
    if (isTraceError(err)) {
      // A session or event the caller named that is not there, a bad prefix: the caller's mistake.
      if (err.code === 'internal_error') logger.error(`${tool}: ${err.message}`);
      else if (err.code === 'search_timeout') logger.warn(`${tool}: ${err.message}`);
      else logger.debug(`${tool}: ${err.code}: ${err.message}`);
      return traceFailure(err.toJSON());
    }
    if (isLedgerError(err)) {
      if (err.code === 'invalid_argument' || err.code === 'not_found') logger.debug(`${tool}: ${err.code}: ${err.message}`);
      if (err.code === 'invalid_argument') return traceFailure({ code: 'invalid_parameter', message: err.message, details: err.details ?? {}, retryable: false });
      if (err.code !== 'not_found') logger.warn(`${tool}: ${err.message}`);
      return traceFailure({ code: 'internal_error', message: err.message, details: err.details ?? {}, retryable: err.retryable });
    }
    logger.error(`${tool} failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return traceFailure({
      code: 'internal_error',
      message: `Internal error in ${tool}; the server log has the details. Retry, and report it if it persists.`,
      details: {},
      retryable: true,
    });
  }
}
