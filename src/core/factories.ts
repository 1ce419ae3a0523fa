/**
 * Event factories: validate, fill defaults (UUID v7 id, timestamp now, source "unknown",
 * seq null, mediaType text/plain), normalize the timestamp and return a deeply frozen event.
 * Clock and id generator are arguments so callers (and tests) control them.
 */
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import {
  Deletion,
  Document,
  Erasure,
  Message,
  MemoryEvent,
  Recall,
  erasedForm,
  isContent,
  type ErasedDocument,
  type ErasedMessage,
  type EventKind,
  type MemoryEvent as MemoryEventType,
} from './events.js';
import type { z } from 'zod';
import { MemoryError } from './errors.js';
import { deepFreeze, markValidated, parseOrThrow, requireObject } from './validate.js';

/** Where new ids and timestamps come from. */
export interface EventDefaults {
  /** @defaultValue the wall clock */
  readonly now?: () => Date;
  /** @defaultValue UUID v7 */
  readonly newId?: () => string;
}

type Optional<T, K extends PropertyKey> = Omit<T, K | 'kind'> & {
  [P in K & keyof T]?: T[P] | undefined;
};
type Common = 'id' | 'timestamp' | 'seq' | 'sessionId' | 'source' | 'actor';
/** Input of {@link createMessage}: the message fields, common fields optional. */
export type MessageInput = Optional<z.input<typeof Message>, Common>;
/** Input of {@link createDocument}. */
export type DocumentInput = Optional<z.input<typeof Document>, Common | 'mediaType'>;
/** Input of {@link createRecall}. */
export type RecallInput = Optional<z.input<typeof Recall>, Common>;
/** Input of {@link createDeletion}. */
export type DeletionInput = Optional<z.input<typeof Deletion>, Common>;
/** Input of {@link createErasure}. */
export type ErasureInput = Optional<z.input<typeof Erasure>, Common>;

function create<E extends MemoryEventType>(
  kind: EventKind,
  schema: z.ZodType<E, unknown>,
  input: object,
  defaults: EventDefaults,
): E {
  const withDefaults: Record<string, unknown> = { ...requireObject(input, kind), kind };
  // Only fill what the caller left out: an explicit invalid value must still be rejected.
  if (withDefaults.id === undefined) withDefaults.id = (defaults.newId ?? uuidv7)();
  if (withDefaults.timestamp === undefined)
    withDefaults.timestamp = (defaults.now ?? (() => new Date()))();
  for (const key of Object.keys(withDefaults)) {
    if (withDefaults[key] === undefined) delete withDefaults[key];
  }
  return markValidated(deepFreeze(parseOrThrow(schema, withDefaults, kind)));
}

/** Creates a validated, frozen `message` event. */
export function createMessage(input: MessageInput, defaults: EventDefaults = {}) {
  return create('message', Message, input, defaults);
}
/** Creates a validated, frozen `document` event. */
export function createDocument(input: DocumentInput, defaults: EventDefaults = {}) {
  return create('document', Document, input, defaults);
}
/** Creates a validated, frozen `recall` event. */
export function createRecall(input: RecallInput, defaults: EventDefaults = {}) {
  return create('recall', Recall, input, defaults);
}
/** Creates a validated, frozen `deletion` event. */
export function createDeletion(input: DeletionInput, defaults: EventDefaults = {}) {
  return create('deletion', Deletion, input, defaults);
}

/** Creates a validated, frozen `erasure` event. */
export function createErasure(input: ErasureInput, defaults: EventDefaults = {}) {
  return create('erasure', Erasure, input, defaults);
}

/** The namespace of the Erasure ids derived from Deletion ids (RFC 9562 name-based, v5). */
const ERASURE_OF_DELETION = '6f1d2a54-8a3e-4c1b-9f0e-2d7b5c9e4a11';

/** The id of the Erasure that a delete-and-erase appends with the Deletion `deletionId`. */
export function erasureIdOf(deletionId: string): string {
  return uuidv5(deletionId, ERASURE_OF_DELETION);
}

/**
 * A Deletion and the Erasure of the same targets, for the same reason and requester, to append
 * together (delete and erase at once). The Erasure is derived from the Deletion — its id from
 * the Deletion's id, its time the Deletion's — so a retry of the same Deletion makes the same
 * pair, and the append is idempotent like any other.
 */
export function createDeletionAndErasure(
  input: DeletionInput,
  defaults: EventDefaults = {},
): [Deletion, Erasure] {
  const deletion = createDeletion(input, defaults);
  const { kind: _kind, seq: _seq, id, ...act } = deletion;
  return [deletion, createErasure({ ...act, id: erasureIdOf(id) }, defaults)];
}

/**
 * Parses an erased item as an export shows it (words `null`, `erased: true`), for an import into
 * a store that can seal it: every other field is checked as the schema checks it (the words are
 * stood in for by placeholders, then dropped again), and the erasure marker comes back.
 */
export function parseErasedItem(input: unknown): ErasedMessage | ErasedDocument {
  const fields = requireObject(input as Record<string, unknown>, 'event');
  const { erased: _erased, content: _c, name: _n, text: _t, ...rest } = fields;
  const words = fields.kind === 'message' ? { content: '-' } : { name: '-', text: '-' };
  const parsed = parseEvent({ ...rest, ...words });
  if (!isContent(parsed)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid event: erased: only a message or a document can be erased, not a ${parsed.kind}.`,
      { issues: [{ path: 'erased', message: 'only a message or a document can be erased' }] },
    );
  }
  return markValidated(deepFreeze(erasedForm(parsed))) as ErasedMessage | ErasedDocument;
}

/**
 * Parses an event as an import or a sealed store reads one: an erased item's marker
 * (`erased: true`) as the marker, anything else as {@link parseEvent}. Request bodies use
 * `parseEvent` alone, so no caller can write a marker.
 */
export function parseEventOrErased(
  input: unknown,
): MemoryEventType | ErasedMessage | ErasedDocument {
  return claimsErased(input) ? parseErasedItem(input) : parseEvent(input);
}

/** True for input that claims to be an erased item (`erased: true`). */
export function claimsErased(input: unknown): boolean {
  return (
    typeof input === 'object' && input !== null && (input as { erased?: unknown }).erased === true
  );
}

/**
 * Parses any event (e.g. one line of an import, one request body with `kind`) without filling
 * an id or a timestamp: imported events keep their own.
 */
export function parseEvent(input: unknown): MemoryEventType {
  return markValidated(deepFreeze(parseOrThrow(MemoryEvent, input, 'event') as MemoryEventType));
}
