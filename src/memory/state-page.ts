/**
 * Pages of a memory's state, now or as of any seq. The replay slider asks for these on every
 * move, so the as-of path must not fold the log again: it answers from the current state and
 * the id index ("as-of indexes"), whose lists are in seq order, with binary searches. The
 * result equals `pageOfState(replay(prefix))` — a test holds the two paths together.
 */
import {
  MemoryError,
  type FoldView,
  type MemoryState,
  type RecallStat,
  type Sequenced,
} from '../core/index.js';
import type { ItemIndexProjection } from '../projections/index.js';
import type { StatePage } from './memory.types.js';

/** Which slice of the visible lists to return. */
export interface PageOptions {
  /** Items to skip in each visible list. @defaultValue 0 */
  readonly offset?: number;
  /** Items per visible list. @defaultValue 100 */
  readonly limit?: number;
}

/** The largest page a caller may ask for. */
export const MAX_PAGE = 1000;

function resolvePage(options: PageOptions): { offset: number; limit: number } {
  const offset = options.offset ?? 0;
  const limit = options.limit ?? 100;
  if (
    !Number.isSafeInteger(offset) ||
    offset < 0 ||
    !Number.isSafeInteger(limit) ||
    limit < 1 ||
    limit > MAX_PAGE
  ) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid page: offset must be 0 or more and limit 1 to ${MAX_PAGE}.`,
      {
        issues: [{ path: 'offset/limit', message: `offset >= 0, 1 <= limit <= ${MAX_PAGE}` }],
      },
    );
  }
  return { offset, limit };
}

/** Cuts a full state's visible lists to one page (the reference path). */
export function pageOfState(state: MemoryState, options: PageOptions = {}): StatePage {
  const page = resolvePage(options);
  const visibleMessages = state.visibleMessages.slice(page.offset, page.offset + page.limit);
  const visibleDocuments = state.visibleDocuments.slice(page.offset, page.offset + page.limit);
  const recallStats: Record<string, RecallStat> = {};
  for (const item of [...visibleMessages, ...visibleDocuments]) {
    const stat = state.recallStats[item.id];
    if (stat) recallStats[item.id] = stat;
  }
  return {
    lastSeq: state.lastSeq,
    visibleMessages,
    visibleDocuments,
    page,
    totals: {
      messages: state.messages.length,
      documents: state.documents.length,
      visibleMessages: state.visibleMessages.length,
      visibleDocuments: state.visibleDocuments.length,
      deleted: Object.keys(state.deleted).length,
    },
    deleted: state.deleted,
    recallStats,
  };
}

/** Number of items of a seq-ordered list whose `seqOf` is at most `n`. */
function countUpTo<T>(list: readonly T[], n: number, seqOf: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqOf(list[mid]!) <= n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A page of the state as it stood right after `upToSeq` (`-1`: before the first event),
 * computed from the fold's live structures and the id index: no fold of the log again, and no
 * copy of the whole state either (a live memory changes its state on every append).
 */
export function pageAsOf(
  current: FoldView,
  items: ItemIndexProjection,
  upToSeq: number,
  options: PageOptions = {},
): StatePage {
  const page = resolvePage(options);
  const n = Math.min(upToSeq, current.lastSeq ?? -1);
  const bySeq = (e: Sequenced) => e.seq;
  const deletedAt = (id: string) => current.deleted.get(id)?.seq ?? Infinity;
  const visiblePage = <T extends Sequenced>(list: readonly T[]): T[] => {
    const out: T[] = [];
    let skipped = 0;
    const end = countUpTo(list, n, bySeq);
    for (let i = 0; i < end && out.length < page.limit; i++) {
      if (deletedAt(list[i]!.id) <= n) continue;
      if (skipped++ < page.offset) continue;
      out.push(list[i]!);
    }
    return out;
  };
  const visibleMessages = visiblePage(current.messages);
  const visibleDocuments = visiblePage(current.documents);
  const messages = countUpTo(current.messages, n, bySeq);
  const documents = countUpTo(current.documents, n, bySeq);
  const deleted = Object.fromEntries([...current.deleted].filter(([, d]) => d.seq <= n));
  const recallStats: Record<string, RecallStat> = {};
  for (const item of [...visibleMessages, ...visibleDocuments]) {
    const recalls = items.get(item.id)?.recalls ?? [];
    const count = countUpTo(recalls, n, (r) => r.seq);
    const last = recalls[count - 1];
    if (last)
      recallStats[item.id] = { count, lastRecalledAt: last.timestamp, lastRecalledSeq: last.seq };
  }
  return {
    lastSeq: n < 0 ? null : n,
    visibleMessages,
    visibleDocuments,
    page,
    totals: {
      messages,
      documents,
      visibleMessages: messages - countUpTo(current.deletedMessageSeqs, n, (s) => s),
      visibleDocuments: documents - countUpTo(current.deletedDocumentSeqs, n, (s) => s),
      deleted: Object.keys(deleted).length,
    },
    deleted,
    recallStats,
  };
}
