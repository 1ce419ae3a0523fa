/**
 * The one exception filter: every error leaving a route becomes `{ code, message, issues? }`
 * with the status of its code in {@link STATUS_OF_CODE}. Statuses live here and nowhere else.
 * A 5xx never carries details (they are logged instead) and no response ever carries a stack.
 */
import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  Logger,
  HttpException,
  NotFoundException,
} from '@nestjs/common';
import type { HttpRequest as Request, HttpResponse as Response } from './http-types.js';
import { isMemoryError, type MemoryErrorCode, type ValidationIssue } from '../core/index.js';
import { HttpApiError, type HttpErrorCode } from './http-error.js';
import { countRejected } from '../telemetry/index.js';
import { redactSecrets } from './redact.js';

/** Every code an API error body can carry. */
export type ApiErrorCode = MemoryErrorCode | HttpErrorCode;

/** The body of every error response. */
export interface ApiErrorBody {
  readonly code: ApiErrorCode;
  readonly message: string;
  readonly issues?: readonly ValidationIssue[];
}

/**
 * Error code -> HTTP status. Requests that contradict the log (the append guard's refusals,
 * including a deletion or recorded recall naming an unknown, non-content or deleted id) are
 * 409 Conflict: the body is well-formed, the log's current state is what refuses it.
 */
export const STATUS_OF_CODE: Readonly<Record<ApiErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  INVALID_MEMORY_ID: 400,
  MALFORMED_JSON: 400,
  MALFORMED_BODY: 400,
  MALFORMED_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  EVENT_NOT_FOUND: 404,
  TREE_SIZE_PAST_HEAD: 404,
  LOG_KEY_NOT_CONFIGURED: 404,
  ACCESS_KEY_UNKNOWN: 404,
  ROUTE_NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  ALREADY_SEQUENCED: 409,
  ID_CONFLICT: 409,
  DELETION_TARGET_UNKNOWN: 409,
  DELETION_TARGET_NOT_CONTENT: 409,
  ALREADY_DELETED: 409,
  RECALL_TARGET_UNKNOWN: 409,
  RECALL_TARGET_NOT_CONTENT: 409,
  RECALL_TARGET_DELETED: 409,
  ERASURE_TARGET_UNKNOWN: 409,
  ERASURE_TARGET_NOT_CONTENT: 409,
  ERASURE_TARGET_NOT_DELETED: 409,
  ALREADY_ERASED: 409,
  ERASURE_UNAVAILABLE: 409,
  EXPECTED_SEQ_MISMATCH: 409,
  APPEND_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  EVENT_TOO_LARGE: 413,
  UNSUPPORTED_ENCODING: 415,
  HEADERS_TOO_LARGE: 431,
  REPLAY_ORDER: 500,
  LOG_INVARIANT_VIOLATED: 500,
  EVENT_DECODE_FAILED: 500,
  EVENT_VERSION_UNSUPPORTED: 500,
  KEY_STORE_LOCKED: 500,
  KEY_STORE_MISSING: 500,
  KEY_MISSING: 500,
  STORE_FAILED: 500,
  TREE_NODE_MISSING: 500,
  CHECKPOINT_INCONSISTENT: 500,
  LOG_KEY_MISSING: 500,
  LOG_KEY_UNREADABLE: 500,
  LOG_KEY_INSECURE: 500,
  LOG_KEY_MALFORMED: 500,
  LOG_KEY_EXISTS: 500,
  TLOG_STATE_INVALID: 500,
  CHECKPOINT_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  // The embedding provider answered wrongly (shape, dimensions): the operator's to fix, logged.
  EMBEDDER_FAILED: 500,
  EMBEDDING_DIMENSIONS_MISMATCH: 500,
  STORE_UNAVAILABLE: 503,
  STORE_CLOSED: 503,
  EMBEDDER_UNAVAILABLE: 503,
  RETRIEVER_TIMEOUT: 504,
};

/** The request body encodings the server decodes (body-parser's; zstd too where Node has it). */
export const ACCEPTED_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;

/** What a failure to read a request says about itself. */
interface ReadFailure {
  readonly type: string;
  readonly message: string;
  readonly encoding?: string;
}

/**
 * Body-parser's errors carry a `type` naming what went wrong; the Express adapter hands them over
 * wrapped in an `HttpException` whose `cause` is the original. A body that does not decompress
 * arrives as zlib's own error (an `errno` and a `Z_...` or brotli `ERR__...` code), with no type.
 */
function readFailure(error: unknown): ReadFailure | undefined {
  const original = error instanceof HttpException ? error.cause : error;
  if (original instanceof URIError) return { type: 'uri', message: original.message };
  if (typeof original !== 'object' || original === null) return undefined;
  const { type, message, encoding, errno, code } = original as Record<string, unknown>;
  if (typeof type === 'string') {
    return {
      type,
      message: String(message),
      ...(typeof encoding === 'string' ? { encoding } : {}),
    };
  }
  if (typeof errno === 'number' && typeof code === 'string' && /^(Z_|ERR__)/.test(code)) {
    return { type: 'encoding.undecodable', message: String(message) };
  }
  return undefined;
}

/** What the client said about the request, for messages that quote it. */
export interface RequestContext {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A failure to read the request (path, encoding, JSON, size) as a code and a message. */
function readErrorBody(failure: ReadFailure, request: RequestContext | undefined): ApiErrorBody {
  switch (failure.type) {
    case 'entity.too.large':
      return {
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The request body is larger than the server accepts.',
      };
    case 'uri':
      return {
        code: 'VALIDATION_FAILED',
        message: `The request path is not valid: ${failure.message}.`,
      };
    case 'entity.parse.failed':
      return {
        code: 'MALFORMED_JSON',
        message: `The request body is not valid JSON: ${failure.message}.`,
      };
    case 'encoding.unsupported':
      return {
        code: 'UNSUPPORTED_ENCODING',
        message: `The request body is encoded as ${JSON.stringify(failure.encoding ?? 'unknown')}; send it as ${ACCEPTED_ENCODINGS.slice(0, -1).join(', ')} or ${ACCEPTED_ENCODINGS.at(-1)}.`,
      };
    case 'encoding.undecodable': {
      const encoding = String(request?.headers['content-encoding'] ?? 'compressed').toLowerCase();
      return {
        code: 'MALFORMED_BODY',
        message: `The request body is not valid ${encoding} data, as its Content-Encoding says.`,
      };
    }
    default:
      return {
        code: 'MALFORMED_JSON',
        message: `The request body could not be read: ${failure.message}.`,
      };
  }
}

/** Translates anything thrown into a code, a message and the failing fields. */
export function toApiError(error: unknown, request?: RequestContext): ApiErrorBody {
  if (isMemoryError(error)) {
    return error.issues.length > 0
      ? { code: error.code, message: error.message, issues: error.issues }
      : { code: error.code, message: error.message };
  }
  if (error instanceof HttpApiError) return { code: error.code, message: error.message };
  const failure = readFailure(error);
  if (failure) return readErrorBody(failure, request);
  if (error instanceof NotFoundException) {
    return { code: 'ROUTE_NOT_FOUND', message: 'No route matches this method and path.' };
  }
  return { code: 'INTERNAL_ERROR', message: 'The server failed to handle the request.' };
}

/** The body with every secret it quotes (a connection string's password, a token) redacted. */
function redacted(body: ApiErrorBody): ApiErrorBody {
  const message = redactSecrets(body.message);
  return body.issues === undefined
    ? { code: body.code, message }
    : {
        code: body.code,
        message,
        issues: body.issues.map((i) => ({ path: i.path, message: redactSecrets(i.message) })),
      };
}

/** The status of an error and the body a client may see: a 5xx carries no details. */
export function publicError(
  error: unknown,
  request?: RequestContext,
): { status: number; body: ApiErrorBody } {
  const body = redacted(toApiError(error, request));
  const status = STATUS_OF_CODE[body.code];
  return status >= 500 && status !== 503
    ? { status, body: { code: body.code, message: 'The server failed to handle the request.' } }
    : { status, body };
}

/** The one exception filter of the application. */
@Catch()
export class MemoryErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('memledger-http');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const { status, body } = publicError(error, request);
    if (request.method === 'POST' && status >= 400 && status < 500) {
      // A write refused before its command ran (validation) is a rejected command too.
      const route = (request as { route?: { path?: unknown } }).route?.path;
      const operation = typeof route === 'string' ? `POST ${route}` : 'POST (no route)';
      countRejected(isMemoryError(error) ? error : body, operation);
    }
    if (status >= 500) {
      // The URL may carry `?access_token=`, the error a connection string: neither is logged.
      this.logger.error(
        redactSecrets(`${request.method} ${request.originalUrl} failed: ${String(error)}`),
        error instanceof Error && error.stack !== undefined
          ? redactSecrets(error.stack)
          : undefined,
      );
    }
    // A streamed response (SSE, export) that fails midway can only be ended, not answered.
    if (response.headersSent) {
      response.end();
      return;
    }
    if (body.code === 'UNAUTHORIZED') response.setHeader('WWW-Authenticate', 'Bearer');
    const retryAfterMs = isMemoryError(error, 'EMBEDDER_UNAVAILABLE') && error.details.retryAfterMs;
    if (typeof retryAfterMs === 'number')
      response.setHeader('Retry-After', String(Math.ceil(retryAfterMs / 1000)));
    response.status(status).json(body);
  }
}
