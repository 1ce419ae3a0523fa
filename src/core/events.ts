/**
 * The event model (docs/architecture.md): zod schemas are the single source of the rules
 * and of the TypeScript types. A schema and its type share one name.
 */
import { z } from 'zod';
import { EventId, RecordedBy, Seq, Timestamp } from './event-fields.js';
import { LIMITS } from './limits.js';
import { label, nonEmpty } from './text-rules.js';

/** The five kinds of event, as they appear in `kind`. */
export const EVENT_KINDS = ['message', 'document', 'recall', 'deletion', 'erasure'] as const;
/** An event kind. */
export type EventKind = (typeof EVENT_KINDS)[number];

const commonFields = {
  id: EventId,
  timestamp: Timestamp,
  seq: Seq.nullable().default(null),
  sessionId: label(LIMITS.label).nullable().default(null),
  source: nonEmpty(LIMITS.label).default('unknown'),
  actor: label(LIMITS.label).nullable().default(null),
  recordedBy: RecordedBy.default(null),
};

const idList = (min: number) =>
  z
    .array(EventId)
    .min(min, { message: `must hold at least ${min} id` })
    .max(LIMITS.ids, { message: `must hold at most ${LIMITS.ids} ids` });

/** Something said in a conversation. */
export const Message = z.strictObject({
  kind: z.literal('message'),
  ...commonFields,
  speaker: nonEmpty(LIMITS.label),
  content: nonEmpty(LIMITS.text),
  retainUntil: Timestamp.optional(),
});
/** Something said in a conversation. */
export type Message = Readonly<z.infer<typeof Message>>;

/** A document's extracted plain text. */
export const Document = z.strictObject({
  kind: z.literal('document'),
  ...commonFields,
  name: nonEmpty(LIMITS.label),
  text: nonEmpty(LIMITS.text),
  mediaType: nonEmpty(LIMITS.label).default('text/plain'),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, { message: 'must be 64 lowercase hex digits' })
    .optional(),
  retainUntil: Timestamp.optional(),
});
/** A document's extracted plain text. */
export type Document = Readonly<z.infer<typeof Document>>;

/** How retrieval methods are combined: Reciprocal Rank Fusion with its `k` and weights. */
export const Fusion = z.strictObject({
  method: z.literal('rrf'),
  k: z.number().positive({ message: 'must be more than 0' }).max(10_000),
  weights: z.strictObject({
    lexical: z.number().min(0, { message: 'must be 0 or more' }).max(1000),
    semantic: z.number().min(0, { message: 'must be 0 or more' }).max(1000),
  }),
});
/** How retrieval methods are combined. */
export type Fusion = z.infer<typeof Fusion>;

/** An integer from `min` to `max`. */
const integer = (min: number, max: number) =>
  z
    .number()
    .int({ message: 'must be an integer' })
    .min(min, { message: `must be ${min} or more` })
    .max(max, { message: `must be at most ${max}` });

/**
 * How the vectors of a semantic or hybrid recall were searched. The ranking is the exact top k of
 * the model's float vectors when `quantization` is `none` and `cells` is 0; otherwise it is
 * approximate: a quantized copy searched for `oversample` candidates per hit, re-scored with the
 * floats, and with cells only the `probes` cells nearest the query read.
 */
export const VectorSearchRecord = z.strictObject({
  quantization: z.enum(['none', 'int8', 'binary'], { message: 'must be none, int8 or binary' }),
  oversample: integer(1, 1024).nullable(),
  cells: integer(0, 4096),
  probes: integer(1, 4096).nullable(),
});
/** How the vectors of a semantic or hybrid recall were searched. */
export type VectorSearchRecord = z.infer<typeof VectorSearchRecord>;

/**
 * How a Recall's ids were chosen, so an audit can reproduce the ranking: `lexical` (BM25 over the
 * search read model), `semantic` (vectors of `model` with `dimensions`, searched as `vectors`
 * says), `hybrid` (both, fused), or `external` (the caller's own retrieval, recorded with
 * `RecordRecall`). `vectors` is null when no vectors were searched, and on Recalls written before
 * it was recorded (recall version 2).
 */
export const Retrieval = z.strictObject({
  method: z.enum(['lexical', 'semantic', 'hybrid', 'external'], {
    message: 'must be lexical, semantic, hybrid or external',
  }),
  model: label(LIMITS.label).nullable().default(null),
  dimensions: integer(1, 65_536).nullable().default(null),
  fusion: Fusion.nullable().default(null),
  vectors: VectorSearchRecord.nullable().default(null),
});
/** How a Recall's ids were chosen. */
export type Retrieval = z.infer<typeof Retrieval>;

/** The retrieval of a Recall that names none: the caller chose the ids itself. */
export const EXTERNAL_RETRIEVAL: Retrieval = {
  method: 'external',
  model: null,
  dimensions: null,
  fusion: null,
  vectors: null,
};

/** The retrieval every Recall written before retrieval was recorded reads as: BM25. */
export const LEXICAL_RETRIEVAL: Retrieval = {
  method: 'lexical',
  model: null,
  dimensions: null,
  fusion: null,
  vectors: null,
};

/** A read: which ids entered a model's context, for which query, retrieved how. */
export const Recall = z.strictObject({
  kind: z.literal('recall'),
  ...commonFields,
  query: nonEmpty(LIMITS.query),
  recalled: idList(0).readonly(),
  retrieval: Retrieval.default(EXTERNAL_RETRIEVAL),
});
/** A read: which ids entered a model's context, for which query. */
export type Recall = Readonly<z.infer<typeof Recall>>;

/** What an act of forgetting (a Deletion, an Erasure) records: which items, why, asked by whom. */
const forgettingFields = {
  targets: idList(1)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'must not repeat an id' })
    .readonly(),
  reason: nonEmpty(LIMITS.query),
  requestedBy: label(LIMITS.label).optional(),
};

/** A tombstone: content made unreachable by a visible act. */
export const Deletion = z.strictObject({
  kind: z.literal('deletion'),
  ...commonFields,
  ...forgettingFields,
});
/** A tombstone: content made unreachable by a visible act. */
export type Deletion = Readonly<z.infer<typeof Deletion>>;

/**
 * The second tier of forgetting: the content of items already deleted made unrecoverable (their
 * per-item keys destroyed). The act stays on record; the words do not (invariant 7, docs/architecture.md).
 */
export const Erasure = z.strictObject({
  kind: z.literal('erasure'),
  ...commonFields,
  ...forgettingFields,
});
/** The second tier of forgetting: deleted content made unrecoverable, the act kept. */
export type Erasure = Readonly<z.infer<typeof Erasure>>;

/**
 * Any memledger event as it is created and appended, discriminated by `kind`. Content is always
 * in plain text here: sealing (encryption at rest) and erasure happen below, in the store.
 */
export const MemoryEvent = z.discriminatedUnion('kind', [
  Message,
  Document,
  Recall,
  Deletion,
  Erasure,
]);

/**
 * Sealed content as a store keeps it: `v1.` and the base64url of AES-256-GCM's iv, ciphertext
 * and tag (see src/keys/content-seal.ts). The fields it replaces are named per kind below.
 */
export const SealedText = z
  .string()
  .regex(/^v1\.[A-Za-z0-9_-]+$/, { message: 'must be sealed content (v1.<base64url>)' });

/** The fields of each content kind that are sealed at rest and destroyed by an erasure. */
export const SEALED_FIELDS = {
  message: ['content'],
  document: ['name', 'text', 'sha256'],
} as const satisfies Record<ContentEvent['kind'], readonly string[]>;

/** A message as stored with its content sealed (event schema version 2). */
export const SealedMessage = Message.omit({ content: true }).extend({ sealed: SealedText });
/** A document as stored with its name, text and sha256 sealed (event schema version 2). */
export const SealedDocument = Document.omit({ name: true, text: true, sha256: true }).extend({
  sealed: SealedText,
});

/**
 * A message whose content an Erasure made unrecoverable: the act is on record, the words are
 * not. Every read shows it so — states as of any seq included (history keeps the act, not the
 * words).
 */
export type ErasedMessage = Readonly<
  Omit<Message, 'content'> & { readonly content: null; readonly erased: true }
>;
/** A document whose name, text and sha256 an Erasure made unrecoverable (mediaType stays). */
export type ErasedDocument = Readonly<
  Omit<Document, 'name' | 'text' | 'sha256'> & {
    readonly name: null;
    readonly text: null;
    readonly erased: true;
  }
>;

/** A message as reads return it: its content, or the erasure marker. */
export type StoredMessage = Message | ErasedMessage;
/** A document as reads return it: its text, or the erasure marker. */
export type StoredDocument = Document | ErasedDocument;

/** Any memledger event, as appended (plain content) or as read (content may be erased). */
export type MemoryEvent = StoredMessage | StoredDocument | Recall | Deletion | Erasure;
/** What may enter a model's context: a message or a document (erased ones hold no words). */
export type ContentEvent = StoredMessage | StoredDocument;
/** An event whose `seq` the store has assigned. */
export type Sequenced<E extends MemoryEvent = MemoryEvent> = E & { readonly seq: number };

/** The wire's event type for each kind (EventStoreDB event type, JSON Lines `type`). */
export const EVENT_TYPES = {
  message: 'Message',
  document: 'Document',
  recall: 'Recall',
  deletion: 'Deletion',
  erasure: 'Erasure',
} as const satisfies Record<EventKind, string>;

/** True for messages and documents: the events a deletion may target and a recall may return. */
export function isContent(event: MemoryEvent): event is ContentEvent {
  return isContentKind(event.kind);
}

/** True for the kinds of content: `message` and `document`. */
export function isContentKind(kind: EventKind): kind is ContentEvent['kind'] {
  return kind === 'message' || kind === 'document';
}

/** True for content whose words an Erasure destroyed. */
export function isErased(event: MemoryEvent): event is ErasedMessage | ErasedDocument {
  return (event as { erased?: unknown }).erased === true;
}

/** True for content that still holds its words. */
export function hasWords(event: MemoryEvent): event is Message | Document {
  return isContent(event) && !isErased(event);
}

/**
 * The erasure marker of a content event (or of its stored fields, `kind` included): the words
 * of {@link SEALED_FIELDS} and any sealed copy of them gone, `erased: true`; everything else
 * (ids, kinds, times, speaker, media type) kept.
 */
export function erasedForm<T extends object>(fields: T): T {
  const out: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
  delete out.sealed;
  const words: readonly string[] = SEALED_FIELDS[out.kind as ContentEvent['kind']] ?? [];
  // The words become null; a digest of them (sha256) is dropped, as it could confirm a guess.
  for (const field of words) {
    if (field === 'sha256') delete out[field];
    else out[field] = null;
  }
  out.erased = true;
  return out as T;
}
