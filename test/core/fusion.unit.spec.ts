import { DEFAULT_RRF_K, reciprocalRankFusion } from '../../src/core/index.js';

describe('Reciprocal Rank Fusion', () => {
  it('scores each id by the sum of weight / (k + rank) over the lists that hold it', () => {
    const fused = reciprocalRankFusion(
      [
        { ids: ['a', 'b', 'c'], weight: 1 },
        { ids: ['c', 'a'], weight: 1 },
      ],
      60,
    );
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12);
  });

  it('lets a weight tip the balance between lists', () => {
    const lists = (semantic: number) => [
      { ids: ['lexical-best', 'lexical-second'], weight: 1 },
      { ids: ['semantic-best'], weight: semantic },
    ];
    const order = (semantic: number) => reciprocalRankFusion(lists(semantic)).map((f) => f.id);
    expect(order(1)).toEqual(['lexical-best', 'semantic-best', 'lexical-second']);
    expect(order(2)).toEqual(['semantic-best', 'lexical-best', 'lexical-second']);
    expect(order(0)).toEqual(['lexical-best', 'lexical-second', 'semantic-best']);
  });

  it('orders equal scores by best rank, then by list order, the same on every call', () => {
    const lists = [
      { ids: ['x', 'y'], weight: 1 },
      { ids: ['y2', 'x2'], weight: 1 },
    ];
    expect(reciprocalRankFusion(lists).map((f) => f.id)).toEqual(['x', 'y2', 'y', 'x2']);
    expect(reciprocalRankFusion(lists)).toEqual(reciprocalRankFusion(lists));
  });

  it('counts an id repeated within one list once, at its best rank, and uses k = 60 by default', () => {
    const fused = reciprocalRankFusion([{ ids: ['a', 'a', 'b'], weight: 1 }]);
    expect(fused).toEqual([
      { id: 'a', score: 1 / (DEFAULT_RRF_K + 1) },
      { id: 'b', score: 1 / (DEFAULT_RRF_K + 3) },
    ]);
  });
});
