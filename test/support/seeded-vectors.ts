/**
 * Deterministic dense unit vectors for the vector tests: each near one of a few centres, like a
 * model's vectors of a few topics, with a seeded spread around it.
 */
import { unitVector } from '../../src/vectors/index.js';

/** The shape of a family of seeded vectors. */
export interface SeededVectors {
  readonly dimensions: number;
  /** How far a vector lies from its centre (the noise's amplitude against the centre's 1). */
  readonly spread: number;
}

/** The unit vector of `seed`, near centre `centre` (any integer: centres differ by it). */
export function seededVector(
  { dimensions, spread }: SeededVectors,
  seed: number,
  centre: number,
): Float32Array {
  let state = seed * 7919 + 17;
  const next = () => ((state = (state * 48271) % 2147483647) / 2147483647) * 2 - 1;
  const base = (d: number) => Math.sin((centre + 1) * (d + 1) * 0.7);
  return unitVector(Float32Array.from({ length: dimensions }, (_, d) => base(d) + spread * next()));
}
