import type { z } from 'zod';
import { MemoryError, type MemoryErrorCode, type ValidationIssue } from './errors.js';

/** Turns zod issues into `path: message` pairs; the root is called `(root)`. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Parses `input` with `schema`, or throws `VALIDATION_FAILED` (or `code`) listing every failing
 * field as `path: rule`, e.g. `Invalid message: content: must contain at least one
 * non-whitespace character.`
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  code: MemoryErrorCode = 'VALIDATION_FAILED',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const list = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new MemoryError(code, `Invalid ${what}: ${list}.`, { issues, cause: result.error });
}

/**
 * Returns `input` when it is a plain object; otherwise throws `VALIDATION_FAILED` for `(root)`.
 * Callers from JavaScript or HTTP can pass anything; spreading a string or null into an event
 * would give misleading field errors, so the wrong shape is named as such.
 */
export function requireObject<T>(input: T, what: string): T {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input;
  const received = input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input;
  throw new MemoryError(
    'VALIDATION_FAILED',
    `Invalid ${what}: (root): must be an object, received ${received}.`,
    {
      issues: [{ path: '(root)', message: 'must be an object' }],
    },
  );
}

/** Freezes a value and everything reachable from it, so events cannot change once created. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Only objects recurse: an event's many string fields cost no call each.
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key];
      if (typeof field === 'object' && field !== null) deepFreeze(field);
    }
  }
  return value;
}

/**
 * Events this module validated and froze. A frozen event cannot change after validation, so a
 * store may skip validating it again (the hot path of every append); anything else — a
 * hand-built object, a spread copy — is validated in full.
 */
const validated = new WeakSet<object>();

/** Marks a frozen, schema-checked event as validated. */
export function markValidated<T extends object>(event: T): T {
  validated.add(event);
  return event;
}

/** True for an event this module validated and froze (and so cannot have changed since). */
export function isValidated(event: unknown): boolean {
  return typeof event === 'object' && event !== null && validated.has(event);
}
