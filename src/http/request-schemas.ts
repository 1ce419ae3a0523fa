/**
 * Request bodies and query strings of the HTTP API, derived from the core zod schemas (one
 * schema, one source of truth): the validation pipe parses with them and the OpenAPI document
 * is generated from them, so the documented contract cannot drift from what is enforced.
 */
import { z } from 'zod';
import {
  Deletion,
  Document,
  Erasure,
  Message,
  MemoryId,
  Recall,
  RecallMode,
  RecordedBy,
  Timestamp,
} from '../core/index.js';
import { MAX_PAGE } from '../memory/index.js';

/**
 * The common fields a caller may leave out on a write: the server fills `id` (UUID v7) and
 * `timestamp` (now); `kind` is the route's, `seq` the store's and `recordedBy` the server's own
 * record of who authenticated, so a body names none of them (a body that does is refused).
 */
const omitted = { kind: true, seq: true, recordedBy: true } as const;
const filled = { id: true, timestamp: true } as const;

/** Body of `POST messages`: a message without kind and seq, id and timestamp optional. */
export const MessageBody = Message.omit(omitted).partial(filled);
/** Body of `POST documents`. */
export const DocumentBody = Document.omit(omitted).partial(filled);
/**
 * Body of `POST recalls`: a recall the caller computed with its own retrieval, which is what its
 * `retrieval` records (`external`): the caller cannot claim memledger's ranking for it.
 */
export const RecordRecallBody = Recall.omit({ ...omitted, retrieval: true }).partial(filled);
/**
 * Body of `POST deletions`; `erase: true` also erases the targets in the same atomic append
 * (the "erase too" of a deletion request: a Deletion then an Erasure, same reason and requester).
 */
export const DeletionBody = Deletion.omit(omitted)
  .partial(filled)
  .extend({
    erase: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .describe('Also erase the targets (an Erasure appended with the Deletion, atomically).'),
  });
/** Body of `POST erasures`: content already deleted, made unrecoverable. */
export const ErasureBody = Erasure.omit(omitted).partial(filled);

/** The most items one auditable recall may return (the facade's own bound). */
export const MAX_RECALL_LIMIT = 100;

/**
 * Body of `POST recall`, the auditable read: the query, a limit, the mode (lexical, semantic,
 * hybrid) and the caller's context.
 */
export const RecallBody = Recall.pick({ query: true, sessionId: true, source: true, actor: true })
  .partial({ sessionId: true, source: true, actor: true })
  .extend({
    limit: z
      .number()
      .int({ message: 'must be an integer' })
      .min(1, { message: 'must be 1 or more' })
      .max(MAX_RECALL_LIMIT, { message: `must be at most ${MAX_RECALL_LIMIT}` })
      .optional(),
    mode: RecallMode.optional(),
  });

/** Every request body schema, by the route that takes it (OpenAPI and tests read this). */
export const REQUEST_BODIES = {
  messages: MessageBody,
  documents: DocumentBody,
  recall: RecallBody,
  recalls: RecordRecallBody,
  deletions: DeletionBody,
  erasures: ErasureBody,
} as const;

/**
 * A query-string integer: decimal digits (a leading minus where `min` is negative). The output
 * side is an integer, which is how the OpenAPI document describes the parameter.
 */
const intParam = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: 'must be an integer' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int({ message: 'must be an integer' })
        .min(min, { message: `must be ${min} or more` })
        .max(max, { message: `must be at most ${max}` }),
    );

/** The `:memoryId` path parameter. */
export const MemoryIdParam = MemoryId;

/** The `:id` path parameter (an event id). */
export const EventIdParam = Recall.shape.id;

/** Query of `GET state`: the seq to stand at (-1: before the first event) and a page. */
export const StateQuery = z.strictObject({
  upToSeq: intParam(-1).optional(),
  offset: intParam(0).optional(),
  limit: intParam(1, MAX_PAGE).optional(),
});

/** Query of `GET search`: the text, the seq to search as of, how many hits, and the mode. */
export const SearchQuery = z.strictObject({
  q: Recall.shape.query,
  upToSeq: intParam(-1).optional(),
  limit: intParam(1, MAX_PAGE).optional(),
  mode: RecallMode.optional(),
});

/** The most events one `GET events` page returns. */
export const MAX_EVENTS_PAGE = 1000;

/** Query of `GET events`: a page of the log from a seq. */
export const EventsQuery = z.strictObject({
  fromSeq: intParam(0).optional(),
  limit: intParam(1, MAX_EVENTS_PAGE).optional(),
});

/** Query of `GET checkpoint`: the tree size (default: the head). */
export const CheckpointQuery = z.strictObject({ size: intParam(0).optional() });

/** Query of `GET proofs/inclusion`: the event's seq and the tree size (default: the head). */
export const InclusionQuery = z.strictObject({
  seq: intParam(0),
  size: intParam(0).optional(),
});

/** Query of `GET proofs/consistency`: the smaller and the larger size (default: the head). */
export const ConsistencyQuery = z.strictObject({
  from: intParam(0),
  to: intParam(0).optional(),
});

/** Query of `GET events/stream`: where to start, and the token for clients that cannot send headers. */
export const StreamQuery = z.strictObject({
  fromSeq: intParam(0).optional(),
  access_token: z.string().optional(),
});

/** Query of `GET recalls`: whose recalls, between which times, from which seq, how many. */
export const AuditQuery = z.strictObject({
  principal: RecordedBy.unwrap().shape.principal.optional(),
  from: Timestamp.optional(),
  to: Timestamp.optional(),
  fromSeq: intParam(0).optional(),
  limit: intParam(1, MAX_PAGE).optional(),
});
