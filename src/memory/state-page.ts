/**
 * The reference state page: a page cut from a whole `MemoryState` (the fold's answer). The
 * read models answer the same page by index; tests hold the two paths together.
 */
import type { Deletion, MemoryState, RecallStat, Sequenced } from '../core/index.js';
import { PageFill, resolvePage, type PageOptions, type StatePage } from '../read-models/index.js';

/** Cuts a whole state's lists to one page, under the same byte budget as the read models. */
export function pageOfState(state: MemoryState, options: PageOptions = {}): StatePage {
  const page = resolvePage(options);
  const fill = new PageFill(page);
  const window = <T>(list: readonly T[]) => list.slice(page.offset, page.offset + page.limit + 1);
  const messages = fill.take(window(state.visibleMessages));
  const documents = fill.take(window(state.visibleDocuments));
  const seqOf = new Map<string, number>(
    [...state.messages, ...state.documents].map((item) => [item.id, item.seq]),
  );
  const byDeletion = Object.entries(state.deleted).sort(
    ([a, x], [b, y]) => x.seq - y.seq || seqOf.get(a)! - seqOf.get(b)!,
  );
  const deletedWindow = window(byDeletion);
  const deletedPage = fill.take(deletedWindow.map(([, deletion]) => deletion));
  const deleted: Record<string, Sequenced<Deletion>> = {};
  deletedPage.items.forEach((deletion, i) => (deleted[deletedWindow[i]![0]] = deletion));
  const recallStats: Record<string, RecallStat> = {};
  for (const item of [...messages.items, ...documents.items]) {
    const stat = state.recallStats[item.id];
    if (stat) recallStats[item.id] = stat;
  }
  return {
    lastSeq: state.lastSeq,
    visibleMessages: messages.items,
    visibleDocuments: documents.items,
    page: {
      offset: page.offset,
      limit: page.limit,
      next: {
        visibleMessages: messages.next,
        visibleDocuments: documents.next,
        deleted: deletedPage.next,
      },
    },
    totals: {
      messages: state.messages.length,
      documents: state.documents.length,
      visibleMessages: state.visibleMessages.length,
      visibleDocuments: state.visibleDocuments.length,
      deleted: Object.keys(state.deleted).length,
    },
    deleted,
    recallStats,
  };
}
