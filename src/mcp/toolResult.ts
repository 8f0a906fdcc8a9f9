// How tool results and failures reach the model: one short text line plus structuredContent.
// Bad arguments and unknown ids are JSON-RPC errors -32602, unexpected failures -32603 (seed
// progress-tracker §9); other failures (a conflict, a refused key, a busy ledger) are isError
// results carrying {code, message, details, retryable}. Never a stack trace, never a secret.

import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isLedgerError, type ErrorShape } from '../core/errors';
import type { Logger } from '../core/log';

/**
 * A JSON-RPC error whose message goes on the wire exactly as written (the SDK's McpError prefixes
 * "MCP error -32602: " to it, and the seed gives the bare message).
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export function toolSuccess(text: string, structured: object): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

/**
 * A tool failure the model can act on: the message, then the structured error as JSON text (and
 * in _meta). Not as structuredContent: clients validate that against the tool's output schema,
 * which describes success.
 */
export function toolFailure(error: ErrorShape): CallToolResult {
  return {
    content: [
      { type: 'text', text: error.message },
      { type: 'text', text: JSON.stringify({ error }) },
    ],
    _meta: { 'agent-progress/error': { ...error } },
    isError: true,
  };
}

/** Maps anything a handler threw to a protocol error (thrown) or an isError result (returned). */
export function errorToResult(err: unknown, tool: string, logger: Logger): CallToolResult {
  if (err instanceof McpError || err instanceof ProtocolError) throw err;
  if (isLedgerError(err)) {
    if (err.code === 'invalid_argument' || err.code === 'not_found') {
      throw new ProtocolError(ErrorCode.InvalidParams, err.message, err.toJSON());
    }
    if (err.code === 'internal') {
      logger.error(`${tool}: ${err.message}`);
      throw new ProtocolError(ErrorCode.InternalError, err.message, err.toJSON());
    }
    logger.warn(`${tool}: ${err.message}`);
    return toolFailure(err.toJSON());
  }
  const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
  logger.error(`${tool} failed unexpectedly: ${stack}`);
  throw new ProtocolError(ErrorCode.InternalError, `Internal error in ${tool}; the server log has the details. Retry, and report it if it persists.`, {
    code: 'internal',
    retryable: true,
  });
}
