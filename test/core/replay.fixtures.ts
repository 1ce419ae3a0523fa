/**
 * Shared helpers of the replay specs (replay.*.unit.spec.ts).
 */
import { isMemoryError, type MemoryError, type MemoryErrorCode } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, doc, message, recallOf } from '../support/events.js';

/** Runs `fn` and returns the MemoryError of `code` it throws; fails otherwise. */
export function errorOf(code: MemoryErrorCode, fn: () => unknown): MemoryError {
  try {
    fn();
  } catch (error) {
    if (isMemoryError(error, code)) return error;
    throw error;
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

/** The ids of `items`, in order. */
export const ids = (items: readonly { id: string }[]) => items.map((item) => item.id);

/**
 * A small story used by several tests:
 * 0 m1, 1 d1, 2 m2, 3 recall [m1, d1], 4 delete [m1], 5 recall [d1], 6 m3
 */
export function story() {
  const m1 = message('first');
  const d1 = doc('runbook text');
  const m2 = message('second');
  const r1 = recallOf([m1.id, d1.id]);
  const del = deletionOf([m1.id]);
  const r2 = recallOf([d1.id]);
  const m3 = message('third');
  const events = [m1, d1, m2, r1, del, r2, m3];
  return { m1, d1, m2, r1, del, r2, m3, events, log: sequenced(events) };
}
