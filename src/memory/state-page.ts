/**
 * The reference state page: a page cut from a whole `MemoryState` (the fold's answer). The
 * read models answer the same page by index; tests hold the two paths together.
 */
import type { MemoryState, RecallStat } from '../core/index.js';
import {
  fillStatePage,
  resolvePage,
  type PageOptions,
  type StatePage,
} from '../read-models/index.js';

/** Cuts a whole state's lists to one page, under the same byte budget as the read models. */
export function pageOfState(state: MemoryState, options: PageOptions = {}): StatePage {
  const page = resolvePage(options);
  const window = <T>(list: readonly T[]) => list.slice(page.offset, page.offset + page.limit + 1);
  const seqOf = new Map<string, number>(
    [...state.messages, ...state.documents].map((item) => [item.id, item.seq]),
  );
  const byDeletion = Object.entries(state.deleted)
    .sort(([a, x], [b, y]) => x.seq - y.seq || seqOf.get(a)! - seqOf.get(b)!)
    .map(([id, deletion]) => [id, deletion, seqOf.get(id)!] as const);
  return fillStatePage(page, {
    lastSeq: state.lastSeq,
    totals: {
      messages: state.messages.length,
      documents: state.documents.length,
      visibleMessages: state.visibleMessages.length,
      visibleDocuments: state.visibleDocuments.length,
      deleted: Object.keys(state.deleted).length,
    },
    visibleMessages: window(state.visibleMessages),
    visibleDocuments: window(state.visibleDocuments),
    deleted: window(byDeletion),
    erasureOf: (id) => state.erased[id],
    recallStats: (onPage) => {
      const stats: Record<string, RecallStat> = {};
      for (const id of onPage.values()) {
        const stat = state.recallStats[id];
        if (stat) stats[id] = stat;
      }
      return stats;
    },
  });
}
