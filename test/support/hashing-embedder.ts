/**
 * A deterministic test embedder: every lower-cased word and every character trigram of a text
 * (with word boundaries) is hashed (FNV-1a) into one of `dimensions` buckets with a sign, and the
 * sum is normalized. Texts that share words or spellings come out close; it knows nothing of
 * meaning ("daughter" is no closer to "kid" than to "kettle"). Test code only: it drives the
 * vector projection where no model can be downloaded.
 */
import { functionEmbedder, type Embedder } from '../../src/embeddings/index.js';

/** The model name the hashing embedder records. */
export const HASHING_MODEL = 'test-hashing-ngrams';

/** The vector of one text. */
export function hashingVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    const sign = hash & 1 ? 1 : -1;
    vector[(hash >>> 1) % dimensions]! += sign * weight;
  };
  for (const word of words) {
    add(`w:${word}`, 2);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 1);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Options of {@link hashingEmbedder}. */
export interface HashingEmbedderOptions {
  /** @defaultValue 64 */
  readonly dimensions?: number;
  /** @defaultValue {@link HASHING_MODEL} */
  readonly model?: string;
  /** Called with every batch it embeds (to count calls and texts). */
  readonly onEmbed?: (texts: readonly string[]) => void;
  /** When it returns an error, the call fails with it (a provider that is down). */
  readonly fail?: () => Error | undefined;
}

/** The hashing embedder behind the real embedder port (its answers checked like a provider's). */
export function hashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 64;
  return functionEmbedder({
    model: options.model ?? HASHING_MODEL,
    dimensions,
    embed: (texts) => {
      const failure = options.fail?.();
      if (failure) throw failure;
      options.onEmbed?.(texts);
      return texts.map((text) => hashingVector(text, dimensions));
    },
  });
}
