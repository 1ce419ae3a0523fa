import type { Deletion, Erasure, Sequenced, StoredDocument, StoredMessage } from './events.js';

/** How often an item entered a model's context, and when it last did. */
export interface RecallStat {
  readonly count: number;
  readonly lastRecalledAt: string;
  readonly lastRecalledSeq: number;
}

/**
 * A memory as it stood right after event `lastSeq`: a pure fold of the log, never stored.
 * Keyed collections are plain frozen objects so a state serializes to JSON as it is.
 */
export interface MemoryState {
  /** Every message ever written, in log order (an erased one as its marker, never absent). */
  readonly messages: readonly Sequenced<StoredMessage>[];
  /** Every document ever written, in log order (an erased one as its marker). */
  readonly documents: readonly Sequenced<StoredDocument>[];
  /** `messages` minus the deleted ones. */
  readonly visibleMessages: readonly Sequenced<StoredMessage>[];
  /** `documents` minus the deleted ones. */
  readonly visibleDocuments: readonly Sequenced<StoredDocument>[];
  /** Deleted id -> the (first) Deletion that deleted it. */
  readonly deleted: Readonly<Record<string, Sequenced<Deletion>>>;
  /**
   * Erased id -> the Erasure that destroyed its words, for erasures up to `lastSeq`. (The
   * item's own content shows the erasure marker in every state, as of any seq: the log holds
   * no words for it any more.)
   */
  readonly erased: Readonly<Record<string, Sequenced<Erasure>>>;
  /** Item id -> its recall statistics; an item never recalled has no entry. */
  readonly recallStats: Readonly<Record<string, RecallStat>>;
  /** The seq this state corresponds to; `null` for an empty log. */
  readonly lastSeq: number | null;
}
