/**
 * Refused commands, counted once by error code: the memory handle counts what it refuses, and
 * the HTTP layer counts what it refuses before a command runs (a body that fails validation);
 * an error both see is counted by whichever sees it first.
 */
import { memledgerInstruments } from './instruments.js';
import { MemledgerAttr } from './semconv.js';
import { errorCodeOf } from './tracing.js';

const counted = new WeakSet<object>();

/** Counts `error` as a refused `operation` if it carries a code and was not counted yet. */
export function countRejected(error: unknown, operation: string): void {
  const code = errorCodeOf(error);
  if (!code || typeof error !== 'object' || error === null || counted.has(error)) return;
  counted.add(error);
  memledgerInstruments().rejected.add(1, {
    [MemledgerAttr.errorCode]: code,
    [MemledgerAttr.operation]: operation,
  });
}
