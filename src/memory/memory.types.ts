import type {
  ContentEvent,
  EventDefaults,
  Deletion,
  Erasure,
  MemoryEvent,
  SearchHit,
  Sequenced,
} from '../core/index.js';
import type { RecallUse } from '../read-models/index.js';
import type { ErasureCleanup, ErasureCleanupStatus } from '../store/sealed/erasure-cleanup.js';
import type { Retriever } from './retriever.js';
import type { VerifiableLog } from './verifiable-log.js';

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

/** One event by id, with whether (and by which Deletion) it was deleted, and erased. */
export interface EventLookup {
  readonly event: Sequenced;
  readonly deleted: boolean;
  readonly deletedBy: Sequenced<Deletion> | null;
  /** The Erasure that destroyed its words (the event then shows the erasure marker). */
  readonly erasedBy: Sequenced<Erasure> | null;
}

/** The full history of one item. */
export interface ItemHistory {
  readonly event: Sequenced;
  /** Every recall that put this item in a context, in log order. */
  readonly recalls: readonly RecallUse[];
  /** The Deletion that removed it, with reason and requester; null while visible. */
  readonly deletedBy: Sequenced<Deletion> | null;
  /** The Erasure that destroyed its words, with reason and requester; null when not erased. */
  readonly erasedBy: Sequenced<Erasure> | null;
}

/**
 * What an erasure appended, and whether its words are gone from disk already or the scrub of
 * old page images is pending (a reader holds an older snapshot of a file): it is retried until
 * it completes, across restarts.
 */
export interface ErasureOutcome {
  readonly erasure: Sequenced<Erasure>;
  readonly cleanup: ErasureCleanupStatus;
}

/** What a deletion that also erases appended, atomically: the Deletion, then the Erasure. */
export interface DeletionAndErasure extends ErasureOutcome {
  readonly deletion: Sequenced<Deletion>;
}

export type { StatePage } from '../read-models/index.js';

/** Settings shared by every memory of a memledger. */
export interface MemorySettings {
  readonly defaults: EventDefaults;
  readonly retriever: Retriever;
  readonly recallLimit: number;
  readonly recallRetries: number;
  readonly retrieverTimeoutMs: number;
  /** The erasures' clean-up, on a store whose content is sealed (the only one that erases). */
  readonly cleanup: ErasureCleanup | undefined;
  /** Checkpoints and proofs of the store's memories. */
  readonly verifiableLog: VerifiableLog;
}
