/** The quantized KNN's learned bound (src/vectors/knn-bound.ts): where its attempts start. */
import { binaryStart, KnnBound } from '../../src/vectors/knn-bound.js';

const taught = (bound: KnnBound, kths: readonly number[]) => {
  for (const kth of kths) bound.learn(100, kth);
  return bound;
};

describe('the bound of a quantized KNN', () => {
  it('starts from the initial guess before any search taught one, and ends with no bound', () => {
    for (const start of ['median', 'widest'] as const) {
      const attempts = new KnnBound(144).attempts(100, start);
      expect(attempts[0]).toBe(144);
      expect(attempts.at(-1)).toBeUndefined();
    }
  });

  it('starts a binary search for many neighbours at the median of recent k-th distances, so one far query does not widen the next', () => {
    expect(binaryStart(400)).toBe('median');
    const bound = taught(new KnnBound(144), [130, 132, 171, 131, 129]);
    const attempts = bound.attempts(100, 'median');
    expect(attempts[0]).toBe(131);
    const widths = attempts.slice(0, -1) as number[];
    expect(widths.every((width, i) => i === 0 || width > widths[i - 1]!)).toBe(true);
    expect(widths.at(-1)).toBeGreaterThan(171);
  });

  it('starts other searches at the largest recent k-th distance, so a second scan is rare', () => {
    expect(binaryStart(100)).toBe('widest');
    const bound = taught(new KnnBound(127.5), [90, 95, 120, 92]);
    expect(bound.attempts(100, 'widest')[0]).toBe(120);
  });

  it('learns per k and forgets all but the latest sixteen', () => {
    const bound = taught(new KnnBound(144), [500, ...Array<number>(16).fill(100)]);
    expect(bound.attempts(100, 'widest')[0]).toBe(100);
    expect(bound.attempts(10, 'widest')[0]).toBe(144);
  });
});
