/**
 * `memledger/testing`: deterministic clocks and ids for tests of code that uses memledger,
 * so events built in a test have exact, repeatable timestamps and ids.
 */
import type { EventDefaults } from './core/index.js';

/** A clock starting at `start` that moves `stepMs` on every call. */
export function steppingClock(start = new Date('2026-01-01T00:00:00Z'), stepMs = 1000): () => Date {
  let calls = 0;
  return () => new Date(start.getTime() + calls++ * stepMs);
}

/** Ids `00000000-0000-7000-8000-000000000001`, `...002`, ...: valid UUIDs, in creation order. */
export function sequentialIds(): () => string {
  let n = 0;
  return () => `00000000-0000-7000-8000-${(++n).toString(16).padStart(12, '0')}`;
}

/** Factory defaults with a stepping clock and sequential ids. */
export function deterministicDefaults(): Required<EventDefaults> {
  return { now: steppingClock(), newId: sequentialIds() };
}
