/**
 * Option objects of the Nest queries and commands as they may arrive from HTTP: explicit
 * `undefined` values dropped for the facade's exact types, and the ReadEvents page checked.
 * Event inputs, queries and ids are validated by the core and the facade, not here.
 */
import { z } from 'zod';
import { parseOrThrow, requireObject, Seq } from '../core/index.js';

/** The largest page of events `ReadEventsQuery` returns. */
export const MAX_READ_LIMIT = 1000;
/** Events `ReadEventsQuery` returns when it names no limit. */
export const DEFAULT_READ_LIMIT = 100;

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
  const { fromSeq, limit } = parseOrThrow(ReadRange, requireObject(options, 'read'), 'read');
  return { ...(fromSeq === undefined ? {} : { fromSeq }), limit: limit ?? DEFAULT_READ_LIMIT };
}

/** The same options without the keys whose value is `undefined` (for the facade's exact types). */
export function definedOptions<T extends object>(
  options: T,
  what: string,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(
    Object.entries(requireObject(options, what)).filter(([, value]) => value !== undefined),
  ) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
