// The one error type core throws: a stable code, a message that says what to do, and whether a
// retry can help. Transports (MCP, CLI, extension) map it; core never formats for a transport.

export type ErrorCode =
  | 'invalid_argument'
  | 'not_found'
  | 'conflict'
  | 'permission_denied'
  | 'unavailable'
  /** An answer too large to send (over the MCP server's 100 KB ceiling): ask for less. */
  | 'response_too_large'
  | 'internal';

export interface ErrorShape {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  retryable: boolean;
}

export class LedgerError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: { details?: Record<string, unknown>; retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LedgerError';
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? code === 'unavailable';
  }

  toJSON(): ErrorShape {
    const shape: ErrorShape = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details) shape.details = this.details;
    return shape;
  }
}

export function invalidArgument(message: string, details?: Record<string, unknown>): LedgerError {
  return new LedgerError('invalid_argument', message, details ? { details } : {});
}

export function notFound(message: string, details?: Record<string, unknown>): LedgerError {
  return new LedgerError('not_found', message, details ? { details } : {});
}

/** True for a LedgerError, also one made by another bundle of core (the extension loads core apart). */
export function isLedgerError(value: unknown): value is LedgerError {
  return value instanceof LedgerError || (value instanceof Error && value.name === 'LedgerError' && typeof (value as { code?: unknown }).code === 'string');
}
