import { batchedEmbedder } from './batched-embedder.js';
import type { EmbedOptions, Embedder } from './embedder.port.js';

/** Options of {@link functionEmbedder}. */
export interface FunctionEmbedderOptions {
  /** The model's name, recorded on every Recall that used it. */
  readonly model: string;
  /** The length of every vector the function returns. */
  readonly dimensions: number;
  /** One vector per text, in order (number arrays or Float32Arrays). */
  readonly embed: (
    texts: readonly string[],
    options: EmbedOptions,
  ) => Promise<readonly ArrayLike<number>[]> | readonly ArrayLike<number>[];
  /** Texts per call. @defaultValue 64 */
  readonly batchSize?: number | undefined;
}

/**
 * An embedder over a plain function (an SDK already in the application, a test model): its
 * answers are checked like any provider's (count, dimensions, finite numbers).
 */
export function functionEmbedder(options: FunctionEmbedderOptions): Embedder {
  return batchedEmbedder({
    provider: 'function',
    model: options.model,
    dimensions: options.dimensions,
    batchSize: options.batchSize,
    embedBatch: async (texts, embedOptions) => options.embed(texts, embedOptions),
  });
}
