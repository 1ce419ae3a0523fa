import type {
  ContentEvent,
  EventDefaults,
  Deletion,
  MemoryEvent,
  MemoryState,
  RecallStat,
  SearchHit,
  Sequenced,
} from '../core/index.js';
import type { RecallUse } from '../projections/index.js';
import type { Retriever } from './retriever.js';

/** Fields every command may carry. */
export interface CommandContext {
  readonly sessionId?: string | null;
  readonly source?: string;
  readonly actor?: string | null;
}

/** Input of `recall`, the auditable read. */
export interface RecallRequest extends CommandContext {
  readonly query: string;
  /** At most this many items. @defaultValue the memledger's `recallLimit` (5) */
  readonly limit?: number;
}

/** What `recall` returns: the Recall event on record and the items it put in the context. */
export interface RecallResult {
  readonly recall: Sequenced<Extract<MemoryEvent, { kind: 'recall' }>>;
  readonly items: readonly Sequenced<ContentEvent>[];
}

/** One search hit with its content. */
export interface SearchResult extends SearchHit {
  readonly item: Sequenced<ContentEvent>;
}

/** One event by id, with whether (and by which Deletion) it was deleted. */
export interface EventLookup {
  readonly event: Sequenced;
  readonly deleted: boolean;
  readonly deletedBy: Sequenced<Deletion> | null;
}

/** The full history of one item. */
export interface ItemHistory {
  readonly event: Sequenced;
  /** Every recall that put this item in a context, in log order. */
  readonly recalls: readonly RecallUse[];
  /** The Deletion that removed it, with reason and requester; null while visible. */
  readonly deletedBy: Sequenced<Deletion> | null;
}

/** A page of a state's visible lists. */
export interface StatePage {
  readonly lastSeq: number | null;
  readonly visibleMessages: MemoryState['visibleMessages'];
  readonly visibleDocuments: MemoryState['visibleDocuments'];
  readonly page: { readonly offset: number; readonly limit: number };
  readonly totals: {
    readonly messages: number;
    readonly documents: number;
    readonly visibleMessages: number;
    readonly visibleDocuments: number;
    readonly deleted: number;
  };
  readonly deleted: MemoryState['deleted'];
  /** Recall statistics of the items on this page. */
  readonly recallStats: Readonly<Record<string, RecallStat>>;
}

/** Settings shared by every memory of a memledger. */
export interface MemorySettings {
  readonly defaults: EventDefaults;
  readonly retriever: Retriever;
  readonly recallLimit: number;
  readonly recallRetries: number;
}
