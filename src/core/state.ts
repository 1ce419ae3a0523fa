import type { Deletion, Document, Message, Sequenced } from './events.js';

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
  /** Every message ever written, in log order. */
  readonly messages: readonly Sequenced<Message>[];
  /** Every document ever written, in log order. */
  readonly documents: readonly Sequenced<Document>[];
  /** `messages` minus the deleted ones. */
  readonly visibleMessages: readonly Sequenced<Message>[];
  /** `documents` minus the deleted ones. */
  readonly visibleDocuments: readonly Sequenced<Document>[];
  /** Deleted id -> the (first) Deletion that deleted it. */
  readonly deleted: Readonly<Record<string, Sequenced<Deletion>>>;
  /** Item id -> its recall statistics; an item never recalled has no entry. */
  readonly recallStats: Readonly<Record<string, RecallStat>>;
  /** The seq this state corresponds to; `null` for an empty log. */
  readonly lastSeq: number | null;
}
