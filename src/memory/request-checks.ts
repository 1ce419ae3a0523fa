/**
 * The checks a memory handle makes of what a caller passes (plain JavaScript or HTTP callers can
 * pass anything: a wrong type is a validation error, never a TypeError), and the error of an
 * unknown id.
 */
import { MemoryError } from '../core/index.js';

/** Throws `VALIDATION_FAILED` naming `name` unless `value` is a safe integer of `min` or more. */
export function checkSeq(value: number, name: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${name}: must be an integer of ${min} or more, got ${value}.`,
      {
        issues: [{ path: name, message: `must be an integer of ${min} or more` }],
      },
    );
  }
}

/** Throws `VALIDATION_FAILED` naming `name` unless `value` is a string. */
export function requireString(value: unknown, name: string): void {
  if (typeof value !== 'string') {
    throw new MemoryError('VALIDATION_FAILED', `Invalid ${name}: must be a string.`, {
      issues: [{ path: name, message: 'must be a string' }],
    });
  }
}

/** `EVENT_NOT_FOUND` for `id` in memory `memoryId`. */
export function notFound(id: string, memoryId: string): MemoryError {
  return new MemoryError('EVENT_NOT_FOUND', `Event ${id} does not exist in memory ${memoryId}.`, {
    details: { id, memoryId },
  });
}
