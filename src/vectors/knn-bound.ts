/**
 * A distance bound for the quantized KNN. vec0 picks each chunk's top k by k passes over the
 * chunk, which costs more than the quantized distances themselves once k is in the hundreds;
 * with `distance <= bound` in the query, only the rows within the bound take part. The bound
 * is a guess learned from the k-th distances of recent searches: when fewer than k rows fall
 * within it the search runs again with wider ones, and at last with none, so the answer is
 * always the exact top k by the quantized distance whatever the guess.
 *
 * Where to start depends on what a search costs. With binary vectors the scan is cheap (48
 * bytes a row at 384 dimensions) and picking the top k among the rows within the bound is most
 * of it, so a bound too wide for the query costs far more than a second scan: start at the
 * median of the recent k-th distances and widen in small steps (one wide bound taught by a
 * query far from everything made the next near queries pick among tens of thousands of rows).
 * With int8 vectors the scan itself dominates (384 bytes a row), so start at their largest and
 * widen rarely.
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

/** Learned bounds of one table's KNN. */
export class KnnBound {
  private readonly recent = new Map<number, number[]>();

  /**
   * @param initial - the first guess, before any search taught one (a distance of the
   *   quantization's scale).
   * @param start - where attempts start among the recent k-th distances.
   */
  constructor(
    private readonly initial: number,
    private readonly start: BoundStart,
  ) {}

  /** The bounds to try for a top `k`, narrowest first; `undefined` is no bound. */
  attempts(k: number): (number | undefined)[] {
    const seen = this.recent.get(k);
    const first = seen ? this.startAmong(seen) : this.initial;
    return [...WIDENINGS[this.start].map((factor) => first * factor), undefined];
  }

  /** Records the k-th distance of a search that found `k` rows. */
  learn(k: number, kth: number): void {
    let seen = this.recent.get(k);
    if (!seen) this.recent.set(k, (seen = []));
    seen.push(kth);
    if (seen.length > KEPT) seen.shift();
  }

  private startAmong(seen: readonly number[]): number {
    if (this.start === 'widest') return Math.max(...seen);
    const sorted = [...seen].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }
}
