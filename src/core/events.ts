/**
 * The event model (docs/architecture.md): zod schemas are the single source of the rules
 * and of the TypeScript types. A schema and its type share one name.
 */
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { normalizeTimestamp, timestampFromDate } from './timestamp.js';

/** The five kinds of event, as they appear in `kind`. */
export const EVENT_KINDS = ['message', 'document', 'recall', 'deletion', 'erasure'] as const;
/** An event kind. */
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * A lone surrogate is half of a UTF-16 pair: it is no Unicode character, cannot be encoded as
 * UTF-8 and would come back from a store or a UTF-8 client as U+FFFD, so it is refused. With the
 * `u` flag a well-formed pair is one code point, so this class matches only the lone halves.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Text that is valid Unicode: no lone surrogate. */
const wellFormed = <S extends z.ZodString>(schema: S) =>
  schema.refine((s) => !LONE_SURROGATE.test(s), {
    message: 'must be valid Unicode text (no lone surrogate U+D800 to U+DFFF)',
  });

/** A label of at most `max` characters (may be empty): session ids, actors, who asked. */
const label = (max: number) =>
  wellFormed(z.string().max(max, { message: `must be at most ${max} characters` }));

/**
 * At least one non-whitespace character that is not a control character either (a NUL-only
 * speaker names no one), at most `max` characters, valid Unicode.
 */
const nonEmpty = (max: number) =>
  wellFormed(z.string().max(max, { message: `must be at most ${max} characters` }))
    .refine((s) => s.trim().length > 0, {
      message: 'must contain at least one non-whitespace character',
    })
    .refine((s) => s.trim().length === 0 || /[^\s\p{Cc}]/u.test(s), {
      message:
        'must contain at least one character that is neither whitespace nor a control character',
    });

/** An event id: any RFC 9562 UUID, stored lowercase so equal ids compare equal. */
export const EventId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    message: 'must be a UUID (8-4-4-4-12 hex digits)',
  })
  .transform((id) => id.toLowerCase());
/** An event id. */
export type EventId = z.infer<typeof EventId>;

/** A point in time with an explicit offset (or a `Date`), normalized to canonical UTC `...Z`. */
export const Timestamp = z
  .union([
    z.string(),
    z.custom<Date>((v) => v instanceof Date, { message: 'must be a string or a Date' }),
  ])
  .transform((value, ctx) => {
    const result = typeof value === 'string' ? normalizeTimestamp(value) : timestampFromDate(value);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.reason });
    return z.NEVER;
  });
/** A canonical UTC timestamp string. */
export type Timestamp = z.infer<typeof Timestamp>;

/** A position in a memory's log: 0 for the first event. */
export const Seq = z.number().int({ message: 'must be an integer' }).min(0, {
  message: 'must be 0 or more',
});

/**
 * Memory ids: 1 to 128 of `A-Z a-z 0-9 . _ -`, but not `.` or `..`: those are path segments
 * (URLs resolve them away, file-backed stores would read them as folders), so they name nothing.
 */
export const MemoryId = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/, { message: 'must be 1 to 128 of A-Z a-z 0-9 . _ -' })
  .refine((id) => id !== '.' && id !== '..', { message: 'must not be "." or ".."' });
/** A memory id. */
export type MemoryId = z.infer<typeof MemoryId>;

/** The memory used when none is named. */
export const DEFAULT_MEMORY_ID = 'default';

/**
 * How a principal was authenticated: an access key (`key:<key id>`), a JWT from an identity
 * provider (`jwt:<issuer>`), the shared API token (`token`), or the host process itself
 * (`local`: a library or Nest host that authenticated its caller its own way).
 */
export const PrincipalVia = z
  .string()
  .regex(/^(key:[A-Za-z0-9_-]{1,64}|jwt:[^\s]{1,256}|token|local)$/, {
    message: 'must be key:<key id>, jwt:<issuer>, token or local',
  });

/**
 * Who appended an event, as the server (or the host application) authenticated them: never a
 * client's claim (that is `actor`). `null` on events written without an authenticated principal,
 * and on every event written before principals existed (schema versions before 3 / 2).
 */
export const RecordedBy = z
  .strictObject({
    principal: nonEmpty(LIMITS.label),
    via: PrincipalVia,
  })
  .nullable();
/** Who appended an event, as authenticated (or `null`). */
export type RecordedBy = z.infer<typeof RecordedBy>;

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

/**
 * How a Recall's ids were chosen, so an audit can reproduce the ranking: `lexical` (BM25 over the
 * search read model), `semantic` (vectors of `model` with `dimensions`), `hybrid` (both, fused),
 * or `external` (the caller's own retrieval, recorded with `RecordRecall`).
 */
export const Retrieval = z.strictObject({
  method: z.enum(['lexical', 'semantic', 'hybrid', 'external'], {
    message: 'must be lexical, semantic, hybrid or external',
  }),
  model: label(LIMITS.label).nullable().default(null),
  dimensions: z
    .number()
    .int({ message: 'must be an integer' })
    .min(1, { message: 'must be 1 or more' })
    .max(65_536, { message: 'must be at most 65536' })
    .nullable()
    .default(null),
  fusion: Fusion.nullable().default(null),
});
/** How a Recall's ids were chosen. */
export type Retrieval = z.infer<typeof Retrieval>;

/** The retrieval of a Recall that names none: the caller chose the ids itself. */
export const EXTERNAL_RETRIEVAL: Retrieval = {
  method: 'external',
  model: null,
  dimensions: null,
  fusion: null,
};

/** The retrieval every Recall written before retrieval was recorded reads as: BM25. */
export const LEXICAL_RETRIEVAL: Retrieval = {
  method: 'lexical',
  model: null,
  dimensions: null,
  fusion: null,
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
