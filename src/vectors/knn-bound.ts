/**
 * A distance bound for the quantized KNN. vec0 picks each chunk's top k by k passes over the
 * chunk, which costs more than the quantized distances themselves once k is in the hundreds;
 * with `distance <= bound` in the query, only the rows within the bound take part. The bound
 * is a guess learned from the k-th distances of recent searches: when fewer than k rows fall
 * within it the search runs again with wider ones, and at last with none, so the answer is
 * always the exact top k by the quantized distance whatever the guess.
 */

/** Recent k-th distances kept per k. */
const KEPT = 16;

/** How much wider each attempt is than the learned bound, before the last one has none. */
const WIDENINGS = [1, 1.15, 1.35, 1.6];

/** Learned bounds of one table's KNN. */
export class KnnBound {
  private readonly recent = new Map<number, number[]>();

  /**
   * @param initial - the first guess, before any search taught one (a distance of the
   *   quantization's scale).
   */
  constructor(private readonly initial: number) {}

  /** The bounds to try for a top `k`, narrowest first; `undefined` is no bound. */
  attempts(k: number): (number | undefined)[] {
    const seen = this.recent.get(k);
    const first = seen ? Math.max(...seen) : this.initial;
    return [...WIDENINGS.map((factor) => first * factor), undefined];
  }

  /** Records the k-th distance of a search that found `k` rows. */
  learn(k: number, kth: number): void {
    let seen = this.recent.get(k);
    if (!seen) this.recent.set(k, (seen = []));
    seen.push(kth);
    if (seen.length > KEPT) seen.shift();
  }
}
