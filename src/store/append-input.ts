import { isValidated, LIMITS, MemoryError, parseEvent, type MemoryEvent } from '../core/index.js';

/**
 * Re-validates what a caller hands to `append`: a hand-built object must meet the same schema as
 * one from the factories, and the batch must fit the limits. Returns canonical frozen events.
 */
export function validateAppendInput(input: readonly MemoryEvent[]): MemoryEvent[] {
  // Callers from plain JavaScript or JSON can pass anything; TypeScript's type is a promise, not a check.
  const events: unknown = input;
  if (!Array.isArray(events)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      'Invalid append: events must be an array of events.',
    );
  }
  if (events.length > LIMITS.batch) {
    throw new MemoryError(
      'PAYLOAD_TOO_LARGE',
      `An append holds ${events.length} events; at most ${LIMITS.batch} are allowed.`,
      { details: { count: events.length, max: LIMITS.batch } },
    );
  }
  return input.map((event) => (isValidated(event) ? event : parseEvent(event)));
}
