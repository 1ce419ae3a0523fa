/**
 * The body of every error answer, one schema per status: `{ code, message, issues? }`, the codes
 * of each status taken from the error filter's one table.
 */
import { z } from 'zod';
import { STATUS_OF_CODE, type ApiErrorCode } from './memory-error.filter.js';

/** One failing field of a refused request. */
export const ValidationIssue = z.strictObject({ path: z.string(), message: z.string() });

/** The statuses an error response can have, each with its own schema of codes. */
export const ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 415, 500, 503, 504] as const;
/** A documented error status. */
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** The codes the error filter answers with `status`, from its one table. */
export function codesOf(status: ErrorStatus): [ApiErrorCode, ...ApiErrorCode[]] {
  const codes = (Object.keys(STATUS_OF_CODE) as ApiErrorCode[]).filter(
    (code) => STATUS_OF_CODE[code] === status,
  );
  const [first, ...rest] = codes;
  if (first === undefined) throw new Error(`No error code answers ${status}.`);
  return [first, ...rest];
}

/** The body of an error response with `status`: `{ code, message, issues? }`. */
export const errorBody = (status: ErrorStatus) =>
  z.strictObject({
    code: z.enum(codesOf(status)),
    message: z.string(),
    issues: z.array(ValidationIssue).optional(),
  });

/** The error schemas by component name. */
export const ERROR_RESPONSE_SCHEMAS = {
  ValidationIssue,
  Error400: errorBody(400),
  Error401: errorBody(401),
  Error403: errorBody(403),
  Error404: errorBody(404),
  Error409: errorBody(409),
  Error413: errorBody(413),
  Error415: errorBody(415),
  Error500: errorBody(500),
  Error503: errorBody(503),
  Error504: errorBody(504),
} as const;
