/**
 * Guards for inputs that may arrive untyped (HTTP bodies and query strings): anything the core
 * factories cannot judge themselves (a body that is not an object, a query that is not a
 * string) becomes `VALIDATION_FAILED` naming the field, never a TypeError.
 */
import { z } from 'zod';
import { MemoryError, parseOrThrow, Recall, Seq } from '../core/index.js';
import type { RecallRequest } from '../memory/index.js';
import type { RecallCommandRequest } from './commands/recall.command.js';

/** The largest page of events `ReadEventsQuery` returns. */
export const MAX_READ_LIMIT = 1000;
/** Events `ReadEventsQuery` returns when it names no limit. */
export const DEFAULT_READ_LIMIT = 100;

/** Returns `input` if it is a plain object; otherwise throws `VALIDATION_FAILED` for `(root)`. */
export function objectInput<T>(input: T, what: string): T {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input;
  throw invalid(what, '(root)', `expected an object, received ${typeName(input)}`);
}

/** Returns `value` if it is a string; otherwise throws `VALIDATION_FAILED` for `path`. */
export function stringInput(value: string, path: string, what: string): string {
  if (typeof value === 'string') return value;
  throw invalid(what, path, `expected a string, received ${typeName(value)}`);
}

function invalid(what: string, path: string, message: string): MemoryError {
  return new MemoryError('VALIDATION_FAILED', `Invalid ${what}: ${path}: ${message}.`, {
    issues: [{ path, message }],
  });
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

const RecallQuery = Recall.pick({ query: true });

/** A recall request whose query is checked with the Recall event's own rule before retrieval. */
export function recallRequest(request: RecallCommandRequest): RecallRequest {
  const checked = definedOptions(objectInput(request, 'recall'), 'recall');
  const { query } = parseOrThrow(RecallQuery, { query: checked.query }, 'recall');
  return { ...checked, query };
}

const limitRule = { message: `must be an integer from 1 to ${MAX_READ_LIMIT}` };
const ReadRange = z.object({
  fromSeq: Seq.optional(),
  limit: z
    .number(limitRule)
    .int(limitRule)
    .min(1, limitRule)
    .max(MAX_READ_LIMIT, limitRule)
    .optional(),
});

/** A checked range of events: `fromSeq` 0 or more, `limit` 1 to 1000 (default 100). */
export function readRange(options: {
  readonly fromSeq?: number | undefined;
  readonly limit?: number | undefined;
}): {
  fromSeq?: number;
  limit: number;
} {
  const { fromSeq, limit } = parseOrThrow(ReadRange, objectInput(options, 'read'), 'read');
  return { ...(fromSeq === undefined ? {} : { fromSeq }), limit: limit ?? DEFAULT_READ_LIMIT };
}

/** The same options without the keys whose value is `undefined` (for the facade's exact types). */
export function definedOptions<T extends object>(
  options: T,
  what: string,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(
    Object.entries(objectInput(options, what)).filter(([, value]) => value !== undefined),
  ) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
