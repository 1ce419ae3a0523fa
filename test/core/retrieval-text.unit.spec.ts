import { retrievalText, type Retrieval } from '../../src/core/index.js';

const semantic: Retrieval = {
  method: 'semantic',
  model: 'all-minilm',
  dimensions: 384,
  fusion: null,
  vectors: { quantization: 'none', oversample: null, cells: 0, probes: null },
};

describe('a Recall retrieval in words', () => {
  it.each([
    [{ ...semantic, method: 'lexical', model: null, dimensions: null, vectors: null }, 'lexical'],
    [{ ...semantic, method: 'external', model: null, dimensions: null, vectors: null }, 'external'],
    [semantic, 'semantic (all-minilm, 384 dimensions, exact vectors)'],
    [
      { ...semantic, vectors: { quantization: 'binary', oversample: 4, cells: 256, probes: 86 } },
      'semantic (all-minilm, 384 dimensions, binary vectors, 4x candidates re-scored, 86 of 256 cells read)',
    ],
    [
      { ...semantic, vectors: { quantization: 'none', oversample: null, cells: 64, probes: 22 } },
      'semantic (all-minilm, 384 dimensions, float vectors, 22 of 64 cells read)',
    ],
    [
      {
        ...semantic,
        method: 'hybrid',
        fusion: { method: 'rrf', k: 60, weights: { lexical: 1, semantic: 1 } },
        vectors: null,
      },
      'hybrid (all-minilm, 384 dimensions, RRF k 60)',
    ],
  ] as [Retrieval, string][])(
    'says whether the ranking was exact, and what made it approximate: %#',
    (retrieval, words) => {
      expect(retrievalText(retrieval)).toBe(words);
    },
  );
});
