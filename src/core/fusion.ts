/**
 * Recall modes and Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, SIGIR 2009): an item's
 * fused score is the sum over the ranked lists that hold it of `weight / (k + rank)`, ranks from
 * 1. Pure and deterministic: equal scores are ordered by the item's best rank, then by the order
 * of the lists, so the same lists always fuse to the same ranking (an audit can reproduce it).
 */
import { z } from 'zod';
import type { Fusion } from './events.js';

/** How a recall or a search retrieves: BM25, vectors, or both fused. */
export const RecallMode = z.enum(['lexical', 'semantic', 'hybrid'], {
  message: 'must be lexical, semantic or hybrid',
});
/** How a recall or a search retrieves. */
export type RecallMode = z.infer<typeof RecallMode>;

/** The `k` of Reciprocal Rank Fusion when none is configured (the paper's). */
export const DEFAULT_RRF_K = 60;

/** The fusion a hybrid recall records when nothing else is configured. */
export const DEFAULT_FUSION: Fusion = {
  method: 'rrf',
  k: DEFAULT_RRF_K,
  weights: { lexical: 1, semantic: 1 },
};

/** One ranked list to fuse: ids best first, and the weight of the list. */
export interface RankedList {
  readonly ids: readonly string[];
  readonly weight: number;
}

/** One fused item: its id and its RRF score (higher is better). */
export interface FusedItem {
  readonly id: string;
  readonly score: number;
}

/**
 * The lists fused by RRF with `k`, best first. An id repeated within one list counts at its
 * first (best) rank only.
 */
export function reciprocalRankFusion(lists: readonly RankedList[], k = DEFAULT_RRF_K): FusedItem[] {
  const fused = new Map<string, { score: number; bestRank: number; firstList: number }>();
  lists.forEach(({ ids, weight }, list) => {
    const seen = new Set<string>();
    ids.forEach((id, index) => {
      if (seen.has(id)) return;
      seen.add(id);
      const rank = index + 1;
      const entry = fused.get(id);
      if (entry === undefined) {
        fused.set(id, { score: weight / (k + rank), bestRank: rank, firstList: list });
        return;
      }
      entry.score += weight / (k + rank);
      entry.bestRank = Math.min(entry.bestRank, rank);
    });
  });
  return [...fused.entries()]
    .sort(
      ([, a], [, b]) => b.score - a.score || a.bestRank - b.bestRank || a.firstList - b.firstList,
    )
    .map(([id, { score }]) => ({ id, score }));
}
