/**
 * Response bodies of the HTTP API as zod schemas, built from the core event schemas: the OpenAPI
 * document's `components.schemas` are generated from {@link RESPONSE_SCHEMAS} with
 * `z.toJSONSchema`, and the e2e specs parse real responses with the same schemas, so the
 * documented answers cannot drift from what the routes send.
 */
import { z } from 'zod';
import {
  Deletion,
  Document,
  Erasure,
  EventId,
  Message,
  MemoryId,
  Recall,
  RecallMode,
  Seq,
  Timestamp,
} from '../core/index.js';
import { ACCESS_RESPONSE_SCHEMAS } from './access.schemas.js';
import { ERROR_RESPONSE_SCHEMAS, type ErrorStatus } from './error.schemas.js';
import { PROOF_RESPONSE_SCHEMAS } from './proof.schemas.js';

/**
 * An event as the store returns it: `seq` assigned, and the common fields the server fills
 * (`sessionId`, `source`, `actor`: their defaults) always present.
 */
function stored<
  S extends typeof Message | typeof Document | typeof Recall | typeof Deletion | typeof Erasure,
>(event: S) {
  const { sessionId, source, actor, recordedBy } = event.shape;
  return event.extend({
    seq: Seq,
    sessionId: sessionId.unwrap(),
    source: source.unwrap(),
    actor: actor.unwrap(),
    recordedBy: recordedBy.unwrap(),
  });
}

/** The common fields as every stored event has them (the same for every kind). */
const storedCommon = {
  seq: Seq,
  sessionId: Message.shape.sessionId.unwrap(),
  source: Message.shape.source.unwrap(),
  actor: Message.shape.actor.unwrap(),
  recordedBy: Message.shape.recordedBy.unwrap(),
};

/** A stored message. */
export const SequencedMessage = stored(Message);
/** A stored document (`mediaType` filled). */
export const SequencedDocument = stored(Document).extend({
  mediaType: Document.shape.mediaType.unwrap(),
});
/** A stored recall. */
export const SequencedRecall = stored(Recall);
/** A stored deletion. */
export const SequencedDeletion = stored(Deletion);
/** A stored erasure: deleted content made unrecoverable, the act (who, why, when) kept. */
export const SequencedErasure = stored(Erasure);
/**
 * A message an Erasure made unrecoverable, as every read shows it: `content` null and
 * `erased: true`; id, seq, times, speaker and the common fields kept.
 */
export const ErasedMessage = Message.omit({ content: true }).extend({
  ...storedCommon,
  content: z.null(),
  erased: z.literal(true),
});
/** A document an Erasure made unrecoverable: `name` and `text` null, no `sha256`, `erased: true`. */
export const ErasedDocument = Document.omit({ name: true, text: true, sha256: true }).extend({
  ...storedCommon,
  mediaType: Document.shape.mediaType.unwrap(),
  name: z.null(),
  text: z.null(),
  erased: z.literal(true),
});
/** A message as reads return it: its content, or the erasure marker. */
export const StoredMessage = z.union([SequencedMessage, ErasedMessage]);
/** A document as reads return it: its text, or the erasure marker. */
export const StoredDocument = z.union([SequencedDocument, ErasedDocument]);
/**
 * A stored message or document with its words: what a recall returns and a search finds (both
 * see visible content only, and erased content is always deleted).
 */
export const SequencedContent = z.discriminatedUnion('kind', [SequencedMessage, SequencedDocument]);
/** Any stored event as reads return it (content possibly erased), by `kind`. */
export const SequencedEvent = z.union([
  SequencedMessage,
  ErasedMessage,
  SequencedDocument,
  ErasedDocument,
  SequencedRecall,
  SequencedDeletion,
  SequencedErasure,
]);

/**
 * Whether an erasure's words are gone from disk (`done`), or the scrub of old page images is
 * pending (`pending`: retried until it completes, across restarts), with why and since when.
 */
export const ErasureCleanup = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('done') }),
  z.strictObject({ state: z.literal('pending'), reason: z.string(), since: z.string() }),
]);

/** `POST erasures`: the stored Erasure, and whether its words are gone from disk yet. */
export const ErasureResult = z.strictObject({
  erasure: SequencedErasure,
  cleanup: ErasureCleanup,
});

/** `POST deletions` with `erase: true`: the Deletion and the Erasure, appended atomically. */
export const DeletionAndErasure = z.strictObject({
  deletion: SequencedDeletion,
  erasure: SequencedErasure,
  cleanup: ErasureCleanup,
});
/** `POST deletions`: the Deletion, or with `erase: true` the Deletion and the Erasure. */
export const DeletionResult = z.union([SequencedDeletion, DeletionAndErasure]);

/** `GET /api/memories`: the ids of the memories that hold events. */
export const MemoryIds = z.array(MemoryId);

/** `GET events`: a page of the log in seq order. */
export const EventPage = z.array(SequencedEvent);

/** How often an item entered a model's context, and when it last did. */
export const RecallStat = z.strictObject({
  count: z.number().int().min(1),
  lastRecalledAt: Timestamp,
  lastRecalledSeq: Seq,
});

/** `GET recall-stats`: item id -> its recall statistics (an item never recalled has none). */
export const RecallStats = z.record(z.string(), RecallStat);

/** The offset at which a list continues, or `null` when it is complete. */
const nextOffset = z.number().int().min(0).nullable();

/** `GET state`: a page of the state's lists, now or as of a seq. */
export const StatePage = z.strictObject({
  lastSeq: Seq.nullable(),
  visibleMessages: z.array(StoredMessage),
  visibleDocuments: z.array(StoredDocument),
  page: z.strictObject({
    offset: z.number().int().min(0),
    limit: z.number().int().min(1),
    next: z.strictObject({
      visibleMessages: nextOffset,
      visibleDocuments: nextOffset,
      deleted: nextOffset,
    }),
  }),
  totals: z.strictObject({
    messages: z.number().int().min(0),
    documents: z.number().int().min(0),
    visibleMessages: z.number().int().min(0),
    visibleDocuments: z.number().int().min(0),
    deleted: z.number().int().min(0),
  }),
  deleted: z.record(z.string(), SequencedDeletion),
  /** Of the deleted ids on this page, those erased by then -> the Erasure that did it. */
  erased: z.record(z.string(), SequencedErasure),
  recallStats: RecallStats,
});

/** How the vectors stood for a recall that asked for them: their lag, or why lexical ran. */
export const VectorStatus = z.strictObject({
  requested: RecallMode,
  state: z.enum(['current', 'lagging', 'building', 'unavailable']),
  model: z.string(),
  dimensions: z.number().int(),
  indexedThroughSeq: Seq.nullable(),
  behind: z.number().int().min(0),
  reason: z.string().optional(),
});

/** `POST recall`: the Recall now on record, the items it put in the context, the vectors' lag. */
export const RecallResult = z.strictObject({
  recall: SequencedRecall,
  items: z.array(SequencedContent),
  vectors: VectorStatus.optional(),
});

/** One inspection-search hit with its content, best first. */
export const SearchResult = z.strictObject({
  id: EventId,
  kind: z.enum(['message', 'document']),
  seq: Seq,
  score: z.number().describe('BM25 relevance relative to the best hit of the answer (1).'),
  item: SequencedContent,
});

/** `GET search`: hits, best first. */
export const SearchResults = z.array(SearchResult);

/**
 * `GET events/:id`: one event, whether (and by which Deletion) it was deleted, and the Erasure
 * that destroyed its words (the event then shows the erasure marker).
 */
export const EventLookup = z.strictObject({
  event: SequencedEvent,
  deleted: z.boolean(),
  deletedBy: SequencedDeletion.nullable(),
  erasedBy: SequencedErasure.nullable(),
});

/**
 * One recall that used an item: which query, when, by whom (`actor`, the caller's claim, and
 * `recordedBy`, the principal the server authenticated), retrieved how.
 */
export const RecallUse = z.strictObject({
  recallId: EventId,
  query: Recall.shape.query,
  seq: Seq,
  timestamp: Timestamp,
  actor: Recall.shape.actor.unwrap(),
  recordedBy: Recall.shape.recordedBy.unwrap(),
  sessionId: Recall.shape.sessionId.unwrap(),
  retrieval: Recall.shape.retrieval.unwrap(),
});

/** `GET items/:id/history`: when an item was written, every recall of it, its Deletion, its Erasure. */
export const ItemHistory = z.strictObject({
  event: SequencedEvent,
  recalls: z.array(RecallUse),
  deletedBy: SequencedDeletion.nullable(),
  erasedBy: SequencedErasure.nullable(),
});

/** One recall of the audit, with the items it put in the context as the log holds them now. */
export const AuditedRecall = z.strictObject({
  recall: SequencedRecall,
  items: z.array(EventLookup),
});

/** `GET recalls`: a page of the recall audit and where the next page starts (null: done). */
export const RecallAuditPage = z.strictObject({
  recalls: z.array(AuditedRecall),
  next: Seq.nullable(),
});

/**
 * Every response schema of the document by its component name (`#/components/schemas/<name>`).
 * A schema used inside another one is a component too, so generated clients name it once.
 */
export const RESPONSE_SCHEMAS = {
  Message: SequencedMessage,
  Document: SequencedDocument,
  Recall: SequencedRecall,
  Deletion: SequencedDeletion,
  Erasure: SequencedErasure,
  ErasedMessage,
  ErasedDocument,
  StoredMessage,
  StoredDocument,
  ErasureCleanup,
  ErasureResult,
  DeletionAndErasure,
  DeletionResult,
  Content: SequencedContent,
  Event: SequencedEvent,
  MemoryIds,
  EventPage,
  RecallStat,
  RecallStats,
  StatePage,
  RecallResult,
  SearchResult,
  SearchResults,
  EventLookup,
  RecallUse,
  ItemHistory,
  ...PROOF_RESPONSE_SCHEMAS,
  AuditedRecall,
  RecallAuditPage,
  ...ACCESS_RESPONSE_SCHEMAS,
  ...ERROR_RESPONSE_SCHEMAS,
} as const satisfies Record<string, z.ZodType> & Record<`Error${ErrorStatus}`, z.ZodType>;

/** A response schema's component name. */
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;
