/**
 * Shared constants and helpers of the event factory specs (factories.*.unit.spec.ts).
 */
import { isMemoryError, type MemoryError } from '../../src/core/index.js';

/** A valid lowercase UUID v7. */
export const ID_A = '0193a4c2-0000-7000-8000-00000000000a';
/** Another valid lowercase UUID v7. */
export const ID_B = '0193a4c2-0000-7000-8000-00000000000b';
/** The instant the fixed clock reads. */
export const NOW = new Date(Date.UTC(2026, 2, 1, 12, 0, 0, 250));
/** Factory options with a clock fixed at {@link NOW}. */
export const fixed = { now: () => NOW };
/** A valid sha256: 64 lowercase hex digits. */
export const HEX64 = 'ab'.repeat(32);
/** Empty and whitespace-only strings, including non-ASCII spaces. */
export const WHITESPACE = ['', ' ', '   ', '\n\t', '\u00a0\u2003'];
/** The rule a blank non-empty field breaks. */
export const BLANK = 'must contain at least one non-whitespace character';
/** The rule a malformed id breaks. */
export const NOT_UUID = 'must be a UUID (8-4-4-4-12 hex digits)';

/** Runs `create` and returns the MemoryError it throws; fails when it does not throw one. */
export function validationErrorOf(create: () => unknown): MemoryError {
  try {
    create();
  } catch (error) {
    if (isMemoryError(error, 'VALIDATION_FAILED')) return error;
    throw error;
  }
  throw new Error('expected VALIDATION_FAILED, but the event was created');
}

/** Every `path: rule` the error lists, in its `issues` and in its message. */
export function expectFailures(
  error: MemoryError,
  what: string,
  failures: readonly string[],
): void {
  const listed = error.issues.map((issue) => `${issue.path}: ${issue.message}`);
  expect([...listed].sort()).toEqual([...failures].sort());
  expect(error.message.startsWith(`Invalid ${what}: `)).toBe(true);
  for (const failure of failures) expect(error.message).toContain(failure);
}
