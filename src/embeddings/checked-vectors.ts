/**
 * What every provider's answer must be before anything stores it: as many vectors as texts,
 * each of the configured length, every component a finite number. A wrong length is an error
 * naming both numbers: a vector is never truncated or padded to fit.
 */
import { MemoryError } from '../core/index.js';

/** The largest vector memledger stores (the Recall's `dimensions` field allows no more). */
export const MAX_DIMENSIONS = 65_536;

/** Who answered, for the messages. */
export interface VectorSource {
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
}

/** Throws `VALIDATION_FAILED` unless `dimensions` is an integer from 1 to {@link MAX_DIMENSIONS}. */
export function checkDimensions(dimensions: unknown, path = 'dimensions'): number {
  if (
    typeof dimensions !== 'number' ||
    !Number.isSafeInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > MAX_DIMENSIONS
  ) {
    const rule = `must be an integer from 1 to ${MAX_DIMENSIONS}`;
    throw new MemoryError('VALIDATION_FAILED', `Invalid ${path} ${String(dimensions)}: ${rule}.`, {
      issues: [{ path, message: rule }],
    });
  }
  return dimensions;
}

/**
 * The provider's vectors as `Float32Array`s, checked: `count` of them, each `dimensions` long,
 * every value finite. `EMBEDDING_DIMENSIONS_MISMATCH` names the expected and the actual length.
 */
export function checkedVectors(
  source: VectorSource,
  vectors: unknown,
  count: number,
): Float32Array[] {
  const { provider, model, dimensions } = source;
  if (!Array.isArray(vectors) || vectors.length !== count) {
    const got = Array.isArray(vectors) ? `${vectors.length} vectors` : 'no list of vectors';
    throw new MemoryError(
      'EMBEDDER_FAILED',
      `Embedder ${provider} (${model}) answered ${got} for ${count} texts.`,
      { details: { provider, model, expected: count } },
    );
  }
  return vectors.map((vector: unknown, i) => {
    const length = isVectorLike(vector) ? vector.length : undefined;
    if (length !== undefined && length !== dimensions) {
      throw new MemoryError(
        'EMBEDDING_DIMENSIONS_MISMATCH',
        `Embedder ${provider} (${model}) returned a vector of ${length} dimensions where ${dimensions} are configured: set the dimensions to the model's (vectors are never truncated).`,
        { details: { provider, model, expected: dimensions, actual: length, index: i } },
      );
    }
    const out = length === undefined ? undefined : finiteCopy(vector as ArrayLike<unknown>);
    if (out === undefined) {
      throw new MemoryError(
        'EMBEDDER_FAILED',
        `Embedder ${provider} (${model}) returned vector ${i} that is not a list of finite numbers.`,
        { details: { provider, model, index: i } },
      );
    }
    return out;
  });
}

/** A float32 copy of `vector`, or undefined when a component is not a finite number. */
function finiteCopy(vector: ArrayLike<unknown>): Float32Array | undefined {
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i];
    if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    out[i] = value;
  }
  // A float64 beyond float32's range becomes infinite here.
  for (let i = 0; i < out.length; i++) if (!Number.isFinite(out[i])) return undefined;
  return out;
}

function isVectorLike(value: unknown): value is ArrayLike<unknown> {
  return Array.isArray(value) || value instanceof Float32Array || value instanceof Float64Array;
}
