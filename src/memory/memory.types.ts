import type {
  ContentEvent,
  EventDefaults,
  RecallMode,
  Deletion,
  Erasure,
  MemoryEvent,
  Recall,
  RecordedBy,
  SearchHit,
  Sequenced,
} from '../core/index.js';
import type { RecallUse } from '../read-models/index.js';
import type { ErasureCleanup, ErasureCleanupStatus } from '../store/sealed/erasure-cleanup.js';
import type { ProjectionRuntime } from '../projections/index.js';
import type { Retriever } from './retriever.js';
import type { SemanticSettings, VectorStatus } from './semantic-retrieval.js';
import type { VerifiableLog } from './verifiable-log.js';

/** Fields every command may carry. */
export interface CommandContext {
  readonly sessionId?: string | null;
  readonly source?: string;
  /** Which agent or component asks: the caller's claim, recorded as it is given. */
  readonly actor?: string | null;
  /**
   * Who asks, as the host authenticated them (its own login, an access key, a JWT): recorded as
   * the event's `recordedBy`. Set it from the host's authentication, never from what a client
   * sent. @defaultValue null (nobody authenticated)
   */
  readonly recordedBy?: RecordedBy;
}

/** Input of `recall`, the auditable read. */
export interface RecallRequest extends CommandContext {
  readonly query: string;
  /** At most this many items. @defaultValue the memledger's `recallLimit` (5) */
  readonly limit?: number;
  /**
   * BM25 (`lexical`), vectors (`semantic`) or both fused (`hybrid`).
   * @defaultValue `hybrid` when an embedder is configured, else `lexical`
   */
  readonly mode?: RecallMode;
}

/** What `recall` returns: the Recall event on record and the items it put in the context. */
export interface RecallResult {
  readonly recall: Sequenced<Extract<MemoryEvent, { kind: 'recall' }>>;
  readonly items: readonly Sequenced<ContentEvent>[];
  /** How the vectors stood, when the mode asked for them (lag, or why lexical ran instead). */
  readonly vectors?: VectorStatus;
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

/** One recall that put an item in a context, with who was authenticated asking for it. */
export interface ItemRecall extends RecallUse {
  /** The authenticated principal of the Recall (beside `actor`, the caller's claim). */
  readonly recordedBy: RecordedBy;
}

/** The full history of one item. */
export interface ItemHistory {
  readonly event: Sequenced;
  /** Every recall that put this item in a context, in log order. */
  readonly recalls: readonly ItemRecall[];
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

/** Which recalls an audit lists: by whom, when, and from where in the log it goes on. */
export interface RecallAuditQuery {
  /** Only recalls recorded by this authenticated principal (`recordedBy.principal`). */
  readonly principal?: string;
  /** Only recalls whose timestamp is at or after this time. */
  readonly from?: string | Date;
  /** Only recalls whose timestamp is before this time. */
  readonly to?: string | Date;
  /** The seq the scan starts at (a page's `next`). @defaultValue 0 */
  readonly fromSeq?: number;
  /** At most this many recalls. @defaultValue 100 */
  readonly limit?: number;
}

/** A recall on record and what it put in the context, each item as the log holds it now. */
export interface AuditedRecall {
  readonly recall: Sequenced<Recall>;
  /**
   * The items it returned (their words are immutable, so they are what it contained then),
   * each with its Deletion and Erasure if any: an erased item shows the erasure marker, never
   * its words.
   */
  readonly items: readonly EventLookup[];
}

/** A page of the recall audit. */
export interface RecallAuditPage {
  readonly recalls: readonly AuditedRecall[];
  /** The seq the next page starts at; null when the scan reached the head of the log. */
  readonly next: number | null;
}

/** Settings shared by every memory of a memledger. */
export interface MemorySettings {
  readonly defaults: EventDefaults;
  readonly retriever: Retriever;
  readonly recallLimit: number;
  readonly recallRetries: number;
  readonly retrieverTimeoutMs: number;
  /** The erasures' clean-up, on a store whose content is sealed (the only one that erases). */
  readonly cleanup: ErasureCleanup | undefined;
  /** Semantic and hybrid recall, when an embedder is configured. */
  readonly semantic: SemanticSettings | undefined;
  /** Checkpoints and proofs of the store's memories. */
  readonly verifiableLog: VerifiableLog;
  /** The projection runtime: every derived datum of the memories (src/projections). */
  readonly projections: ProjectionRuntime;
}
