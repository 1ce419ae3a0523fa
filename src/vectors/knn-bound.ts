/**
 * A distance bound for the quantized KNN. vec0 picks each chunk's top k by k passes over the
 * chunk, which costs more than the quantized distances themselves once k is in the hundreds;
 * with `distance <= bound` in the query, only the rows within the bound take part. The bound
 * is a guess learned from the k-th distances of recent searches: when fewer than k rows fall
 * within it the search runs again with wider ones, and at last with none, so the answer is
 * always the exact top k by the quantized distance whatever the guess.
 *
 * Where to start depends on what a search costs. With binary vectors and a large k the scan is
 * cheap (48 bytes a row at 384 dimensions) and picking the top k among the rows within the bound
 * is most of it, so a bound too wide for the query costs far more than a second scan: start at
 * the median of the recent k-th distances and widen in small steps (one wide bound taught by a
 * query far from everything made the next near queries pick their top 400 among tens of
 * thousands of rows). With a small k the picking is cheap and a second scan is not; with int8
 * vectors the scan itself dominates (384 bytes a row): start at their largest and widen rarely.
 */

/** Recent k-th distances kept per k. */
const KEPT = 16;

/** Where the first attempt starts: the median of the recent k-th distances, or the largest. */
export type BoundStart = 'median' | 'widest';

/** How much wider each attempt is than the start, before the last one has none. */
const WIDENINGS: Record<BoundStart, readonly number[]> = {
  median: [1, 1.08, 1.17, 1.27, 1.4, 1.6],
  widest: [1, 1.15, 1.35, 1.6],
};

/**
 * Where a binary KNN starts: from the median for hundreds of neighbours (a top 100's 400
 * candidates), from the largest for a recall's 100, where that measured faster (BENCHMARKS.md).
 */
export function binaryStart(k: number): BoundStart {
  return k >= 256 ? 'median' : 'widest';
}

/** Learned bounds of one table's KNN. */
export class KnnBound {
  private readonly recent = new Map<number, number[]>();

  /**
   * @param initial - the first guess, before any search taught one (a distance of the
   *   quantization's scale).
   */
  constructor(private readonly initial: number) {}

  /**
   * The bounds to try for a top `k`, narrowest first, starting at `start` among the recent k-th
   * distances; `undefined` is no bound.
   */
  attempts(k: number, start: BoundStart): (number | undefined)[] {
    const seen = this.recent.get(k);
    const first = seen ? startAmong(seen, start) : this.initial;
    return [...WIDENINGS[start].map((factor) => first * factor), undefined];
  }

  /** Records the k-th distance of a search that found `k` rows. */
  learn(k: number, kth: number): void {
    let seen = this.recent.get(k);
    if (!seen) this.recent.set(k, (seen = []));
    seen.push(kth);
    if (seen.length > KEPT) seen.shift();
  }
}

function startAmong(seen: readonly number[], start: BoundStart): number {
  if (start === 'widest') return Math.max(...seen);
  const sorted = [...seen].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
