/**
 * Errors the HTTP layer raises itself (unknown routes, unreadable bodies). Like
 * `MemoryError` they carry a code and no status: the error filter's table owns statuses.
 */

/** The codes only the HTTP layer produces. */
export const HTTP_ERROR_CODES = [
  'ROUTE_NOT_FOUND',
  'MALFORMED_JSON',
  'MALFORMED_BODY',
  'MALFORMED_REQUEST',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'UNSUPPORTED_ENCODING',
  'INTERNAL_ERROR',
] as const;

/** A code only the HTTP layer produces. */
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/** An error of the HTTP layer: a stable code and a one-sentence message. */
export class HttpApiError extends Error {
  override readonly name = 'HttpApiError';

  constructor(
    /** The stable code the error filter maps to a status. */
    readonly code: HttpErrorCode,
    message: string,
  ) {
    super(message);
  }
}
