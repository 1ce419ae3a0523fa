import type {
  Deletion,
  Erasure,
  RecallStat,
  Retrieval,
  Sequenced,
  StoredDocument,
  StoredMessage,
} from '../core/index.js';

/** Which slice of a state's lists to return. */
export interface PageOptions {
  /** Items to skip in each list (visible messages, visible documents, deleted). @defaultValue 0 */
  readonly offset?: number;
  /** Items per list. @defaultValue 100 */
  readonly limit?: number;
  /**
   * Stop filling the lists once their events add up to about this many bytes of JSON; the
   * cursor in `page.next` says where each cut list continues. At least one item is returned.
   * @defaultValue {@link STATE_PAGE_BYTES}
   */
  readonly byteBudget?: number;
}

/** The largest page a caller may ask for. */
export const MAX_PAGE = 1000;

/** The default byte budget of one state page (4 MiB). */
export const STATE_PAGE_BYTES = 4 * 1024 * 1024;

/** A page of a state's lists, now or as of a seq. */
export interface StatePage {
  readonly lastSeq: number | null;
  readonly visibleMessages: readonly Sequenced<StoredMessage>[];
  readonly visibleDocuments: readonly Sequenced<StoredDocument>[];
  readonly page: {
    readonly offset: number;
    readonly limit: number;
    /** Where each list continues (the offset to ask for), `null` when it is complete. */
    readonly next: {
      readonly visibleMessages: number | null;
      readonly visibleDocuments: number | null;
      readonly deleted: number | null;
    };
  };
  readonly totals: {
    readonly messages: number;
    readonly documents: number;
    readonly visibleMessages: number;
    readonly visibleDocuments: number;
    readonly deleted: number;
  };
  /** A page of deleted id -> the Deletion that removed it, in the order of the deletions. */
  readonly deleted: Readonly<Record<string, Sequenced<Deletion>>>;
  /** Of the deleted ids on this page, those erased by then -> the Erasure that did it. */
  readonly erased: Readonly<Record<string, Sequenced<Erasure>>>;
  /**
   * Recall statistics (as of the page's seq) of the items on this page, deleted ones included:
   * per item, derived from the Recall events, as `replay()` and `recall-stats` give them.
   */
  readonly recallStats: Readonly<Record<string, RecallStat>>;
}

/** One recall that used an item: which query, when, by whom, retrieved how. */
export interface RecallUse {
  readonly recallId: string;
  readonly query: string;
  readonly seq: number;
  readonly timestamp: string;
  readonly actor: string | null;
  readonly sessionId: string | null;
  /** How the recall chose its items (method, model, dimensions, fusion). */
  readonly retrieval: Retrieval;
}

/** What the read models know of one id. */
export interface ItemEntry {
  readonly kind: Sequenced['kind'];
  readonly seq: number;
  /** The seq of the Deletion that removed this content, if any. */
  readonly deletedSeq: number | null;
  /** The seq of the Erasure that destroyed its words, if any. */
  readonly erasedSeq: number | null;
}

/** About how many bytes an event takes as JSON (string lengths plus a fixed allowance). */
export function estimatedJsonBytes(event: Sequenced): number {
  let bytes = 256;
  // for...in, not Object.values: no array per event (a page sizes hundreds of them).
  for (const key in event) {
    const value: unknown = event[key as keyof Sequenced];
    if (typeof value === 'string') bytes += value.length;
    else if (Array.isArray(value)) bytes += value.length * 40;
  }
  return bytes;
}

/** A checked page request. */
export interface ResolvedPage {
  readonly offset: number;
  readonly limit: number;
  readonly byteBudget: number;
}

/**
 * Fills a page's lists in order under one byte budget: each list takes items until the budget
 * is spent, except that the very first item of a page is always taken (so a page always moves).
 */
export class PageFill {
  private spent = 0;
  private taken = 0;

  constructor(private readonly page: ResolvedPage) {}

  /** Takes from `candidates` (up to `limit + 1` of them); `next` is where the list continues. */
  take<T extends Sequenced>(candidates: readonly T[]): { items: T[]; next: number | null } {
    const items: T[] = [];
    for (const item of candidates.slice(0, this.page.limit)) {
      const bytes = estimatedJsonBytes(item);
      if (this.taken > 0 && this.spent + bytes > this.page.byteBudget) break;
      this.spent += bytes;
      this.taken++;
      items.push(item);
    }
    const more = items.length < candidates.length;
    return { items, next: more ? this.page.offset + items.length : null };
  }
}

/** What a state page is cut from: each list's candidates (up to `limit + 1` from the offset). */
export interface PageCandidates {
  readonly lastSeq: number | null;
  readonly totals: StatePage['totals'];
  readonly visibleMessages: readonly Sequenced<StoredMessage>[];
  readonly visibleDocuments: readonly Sequenced<StoredDocument>[];
  /** Deleted id, the Deletion that removed it and the item's seq, in the order of the deletions. */
  readonly deleted: readonly (readonly [id: string, deletion: Sequenced<Deletion>, seq: number])[];
  /** The Erasure (by then) of a deleted id, when there is one. */
  erasureOf(id: string): Sequenced<Erasure> | undefined;
  /**
   * The recall statistics of the items that made it onto the page (their ids by seq), by id:
   * visible content and deleted content alike (an audit wants to know that a deleted item was
   * read).
   */
  recallStats(items: ReadonlyMap<number, string>): Readonly<Record<string, RecallStat>>;
}

/** Cuts the lists to the page's limit and byte budget, in order, and assembles the page. */
export function fillStatePage(page: ResolvedPage, from: PageCandidates): StatePage {
  const fill = new PageFill(page);
  const messages = fill.take(from.visibleMessages);
  const documents = fill.take(from.visibleDocuments);
  const deletedPage = fill.take(from.deleted.map(([, deletion]) => deletion));
  const deleted: Record<string, Sequenced<Deletion>> = {};
  const erased: Record<string, Sequenced<Erasure>> = {};
  const onPage = new Map<number, string>();
  for (const item of messages.items) onPage.set(item.seq, item.id);
  for (const item of documents.items) onPage.set(item.seq, item.id);
  deletedPage.items.forEach((deletion, i) => {
    const [id, , seq] = from.deleted[i]!;
    deleted[id] = deletion;
    onPage.set(seq, id);
    const erasure = from.erasureOf(id);
    if (erasure) erased[id] = erasure;
  });
  return {
    lastSeq: from.lastSeq,
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
    totals: from.totals,
    deleted,
    erased,
    recallStats: from.recallStats(onPage),
  };
}

/** Totals as the running-totals row of a seq holds them (none yet: all zero). */
export function totalsOf(
  row:
    | {
        readonly messages: number;
        readonly documents: number;
        readonly deleted_messages: number;
        readonly deleted_documents: number;
      }
    | undefined,
): StatePage['totals'] {
  const messages = row?.messages ?? 0;
  const documents = row?.documents ?? 0;
  const deletedMessages = row?.deleted_messages ?? 0;
  const deletedDocuments = row?.deleted_documents ?? 0;
  return {
    messages,
    documents,
    visibleMessages: messages - deletedMessages,
    visibleDocuments: documents - deletedDocuments,
    deleted: deletedMessages + deletedDocuments,
  };
}
