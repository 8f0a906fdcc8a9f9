// The traces toolset's structured errors, with the codes the AgTrace specification gives
// (session_not_found, ambiguous_session_prefix, ...) and whether a retry can help.

export type TraceErrorCode =
  | 'session_not_found'
  | 'ambiguous_session_prefix'
  | 'invalid_event_index'
  | 'invalid_cursor'
  | 'invalid_parameter'
  | 'search_timeout'
  | 'internal_error';

export interface TraceErrorShape {
  code: TraceErrorCode;
  message: string;
  details: Record<string, unknown>;
  retryable: boolean;
}

export class TraceError extends Error {
  readonly code: TraceErrorCode;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: TraceErrorCode, message: string, details: Record<string, unknown> = {}, retryable = false) {
    super(message);
    this.name = 'TraceError';
    this.code = code;
    this.details = details;
    this.retryable = retryable;
  }

  toJSON(): TraceErrorShape {
    return { code: this.code, message: this.message, details: this.details, retryable: this.retryable };
  }
}

/** True for a TraceError, also one made by another bundle of core. */
export function isTraceError(value: unknown): value is TraceError {
  return value instanceof TraceError || (value instanceof Error && value.name === 'TraceError' && typeof (value as { code?: unknown }).code === 'string');
}
