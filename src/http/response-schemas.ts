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
  EventId,
  Message,
  MemoryId,
  Recall,
  Seq,
  Timestamp,
} from '../core/index.js';
import { STATUS_OF_CODE, type ApiErrorCode } from './memory-error.filter.js';

/**
 * An event as the store returns it: `seq` assigned, and the common fields the server fills
 * (`sessionId`, `source`, `actor`: their defaults) always present.
 */
function stored<S extends typeof Message | typeof Document | typeof Recall | typeof Deletion>(
  event: S,
) {
  const { sessionId, source, actor } = event.shape;
  return event.extend({
    seq: Seq,
    sessionId: sessionId.unwrap(),
    source: source.unwrap(),
    actor: actor.unwrap(),
  });
}

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
/** A stored message or document: what a recall returns and a search finds. */
export const SequencedContent = z.discriminatedUnion('kind', [SequencedMessage, SequencedDocument]);
/** Any stored event, discriminated by `kind`. */
export const SequencedEvent = z.discriminatedUnion('kind', [
  SequencedMessage,
  SequencedDocument,
  SequencedRecall,
  SequencedDeletion,
]);

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
  visibleMessages: z.array(SequencedMessage),
  visibleDocuments: z.array(SequencedDocument),
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
  recallStats: RecallStats,
});

/** `POST recall`: the Recall now on record and the items it put in the context. */
export const RecallResult = z.strictObject({
  recall: SequencedRecall,
  items: z.array(SequencedContent),
});

/** One inspection-search hit with its content, best first. */
export const SearchResult = z.strictObject({
  id: EventId,
  kind: z.enum(['message', 'document']),
  seq: Seq,
  score: z.number(),
  item: SequencedContent,
});

/** `GET search`: hits, best first. */
export const SearchResults = z.array(SearchResult);

/** `GET events/:id`: one event, and whether (and by which Deletion) it was deleted. */
export const EventLookup = z.strictObject({
  event: SequencedEvent,
  deleted: z.boolean(),
  deletedBy: SequencedDeletion.nullable(),
});

/** One recall that used an item: which query, when, by whom. */
export const RecallUse = z.strictObject({
  recallId: EventId,
  query: Recall.shape.query,
  seq: Seq,
  timestamp: Timestamp,
  actor: Recall.shape.actor.unwrap(),
  sessionId: Recall.shape.sessionId.unwrap(),
});

/** `GET items/:id/history`: when an item was written, every recall of it, its Deletion. */
export const ItemHistory = z.strictObject({
  event: SequencedEvent,
  recalls: z.array(RecallUse),
  deletedBy: SequencedDeletion.nullable(),
});

/** One failing field of a refused request. */
export const ValidationIssue = z.strictObject({ path: z.string(), message: z.string() });

/** The statuses an error response can have, each with its own schema of codes. */
export const ERROR_STATUSES = [400, 401, 404, 409, 413, 415, 500, 503] as const;
/** A documented error status. */
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** The codes the error filter answers with `status`, from its one table. */
export function codesOf(status: ErrorStatus): [ApiErrorCode, ...ApiErrorCode[]] {
  const codes = (Object.keys(STATUS_OF_CODE) as ApiErrorCode[]).filter(
    (code) => STATUS_OF_CODE[code] === status,
  );
  const [first, ...rest] = codes;
  if (first === undefined) throw new Error(`No error code answers ${status}.`);
  return [first, ...rest];
}

/** The body of an error response with `status`: `{ code, message, issues? }`. */
export const errorBody = (status: ErrorStatus) =>
  z.strictObject({
    code: z.enum(codesOf(status)),
    message: z.string(),
    issues: z.array(ValidationIssue).optional(),
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
  ValidationIssue,
  Error400: errorBody(400),
  Error401: errorBody(401),
  Error404: errorBody(404),
  Error409: errorBody(409),
  Error413: errorBody(413),
  Error415: errorBody(415),
  Error500: errorBody(500),
  Error503: errorBody(503),
} as const satisfies Record<string, z.ZodType> & Record<`Error${ErrorStatus}`, z.ZodType>;

/** A response schema's component name. */
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;
