// How tool results and failures reach the model: one short text line plus structuredContent.
// Bad arguments and unknown ids are JSON-RPC errors -32602, unexpected failures -32603 (Agent
// Progress Tracker specification, README "Tools"); other failures (a conflict, a refused key, a busy ledger) are isError
// results carrying {code, message, details, retryable}. Never a stack trace, never a secret.

import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isLedgerError, type ErrorShape } from '../core/errors';
import type { Logger } from '../core/log';
import { capStrings, jsonBytes, longestFitting, longestString, RESPONSE_BUDGET, RESPONSE_CEILING } from '../core/responseBudget';

export { RESPONSE_BUDGET, RESPONSE_CEILING } from '../core/responseBudget';

/**
 * A JSON-RPC error whose message goes on the wire exactly as written (the SDK's McpError prefixes
 * "MCP error -32602: " to it, and the specification gives the bare message).
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
      // The caller's mistake, answered to the caller: the server's log keeps it at debug.
      logger.debug(`${tool}: ${err.code}: ${err.message}`);
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

/** Strings are never cut below this many characters; past it, an answer that still does not fit is refused. */
const MIN_STRING_CHARS = 64;

/**
 * Keeps a tool's answer within `budget` bytes (default 30 KB), and in any case within
 * RESPONSE_CEILING (100 KB): when it is larger, every string is cut to the longest length that
 * fits (found by bisection, so short fields stay whole), and a text line and
 * `_meta["agent-progress/truncated"]` say so and where the rest is. An answer that cannot fit the
 * budget even so (many short items: a large limit asked for) may use up to the ceiling; one that
 * cannot fit that either becomes a `response_too_large` tool error. Tools bound their own lists
 * first; this is the safety net.
 */
export function fitResult(result: CallToolResult, options: { tool: string; budget?: number; more?: string; readOnly?: boolean }): CallToolResult {
  const budget = Math.min(options.budget ?? RESPONSE_BUDGET, RESPONSE_CEILING);
  const size = jsonBytes(result);
  if (size <= budget) return result;
  const { _meta: _ignored, ...body } = result;
  const attempt = (max: number, limit: number): CallToolResult => {
    const cut = { count: 0 };
    const capped = capStrings(body, max, cut) as CallToolResult;
    const note = `[truncated: this answer was ${Math.ceil(size / 1024)} KB; text longer than ${max} characters was cut to keep it under ${Math.round(limit / 1024)} KB.${options.more ? ` ${options.more}` : ''}]`;
    return {
      ...capped,
      content: [...(capped.content ?? []), { type: 'text', text: note }],
      _meta: {
        ...(result._meta ?? {}),
        'agent-progress/truncated': { truncated: true, originalBytes: size, maxStringChars: max, strings: cut.count, ...(options.more ? { more: options.more } : {}) },
      },
    };
  };
  const fit = (limit: number): CallToolResult | undefined => {
    const longest = longestString(body);
    if (longest <= MIN_STRING_CHARS || jsonBytes(attempt(MIN_STRING_CHARS, limit)) > limit) return undefined;
    // The longest per-string length whose answer fits.
    return attempt(
      longestFitting(MIN_STRING_CHARS, longest, (max) => jsonBytes(attempt(max, limit)) <= limit),
      limit,
    );
  };
  const fitted = fit(budget) ?? (budget < RESPONSE_CEILING && size <= RESPONSE_CEILING ? result : fit(RESPONSE_CEILING));
  if (fitted) return fitted;
  const kb = Math.ceil(size / 1024);
  return toolFailure({
    code: 'response_too_large',
    message:
      options.readOnly === false
        ? `${options.tool} was done, but its answer (${kb} KB) is too large to send (the limit is 100 KB); do not repeat the call.${options.more ? ` ${options.more}` : ''}`
        : `${options.tool} would answer ${kb} KB, more than the 100 KB one answer may carry. Ask for less: a smaller limit, a narrower filter, or one item by id.${options.more ? ` ${options.more}` : ''}`,
    details: { bytes: size, limit: RESPONSE_CEILING },
    retryable: false,
  });
}
