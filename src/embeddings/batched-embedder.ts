/**
 * The part every provider shares: texts are sent `batchSize` at a time, one batch after the
 * other, and every batch's answer is checked ({@link checkedVectors}) before it is used.
 */
import { MemoryError } from '../core/index.js';
import { checkDimensions, checkedVectors } from './checked-vectors.js';
import type { EmbedOptions, Embedder } from './embedder.port.js';

/** Texts one request carries at most when the options name no batch size. */
export const DEFAULT_BATCH_SIZE = 64;

/** What a provider is: its name, model, dimensions, batch size, and one batch's raw answer. */
export interface BatchProvider {
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  /** @defaultValue {@link DEFAULT_BATCH_SIZE} */
  readonly batchSize?: number | undefined;
  /** The provider's vectors for one batch, unchecked (any list of number lists). */
  embedBatch(texts: readonly string[], options: EmbedOptions): Promise<unknown>;
}

/** An {@link Embedder} over a provider's batch call. */
export function batchedEmbedder(provider: BatchProvider): Embedder {
  const { model } = provider;
  if (typeof model !== 'string' || model.trim() === '') {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid embedding model ${JSON.stringify(model)}: must be a non-empty name.`,
      { issues: [{ path: 'model', message: 'must be a non-empty name' }] },
    );
  }
  const dimensions = checkDimensions(provider.dimensions);
  const batchSize = provider.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid embedding batchSize ${String(batchSize)}: must be an integer of 1 or more.`,
      { issues: [{ path: 'batchSize', message: 'must be an integer of 1 or more' }] },
    );
  }
  const source = { provider: provider.provider, model, dimensions };
  return {
    model,
    dimensions,
    async embed(texts, options = {}) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        const answer = await provider.embedBatch(batch, options);
        out.push(...checkedVectors(source, answer, batch.length));
      }
      return out;
    },
  };
}
