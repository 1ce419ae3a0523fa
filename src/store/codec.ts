/**
 * The stored form of an event, shared by every durable adapter: the wire type (`Message`, ...)
 * and the event's JSON without seq (the store's position is the seq). Decoding goes through the
 * core schemas, so an unknown type or an invalid payload is an error, never skipped.
 */
import {
  EVENT_TYPES,
  EVENT_VERSIONS,
  MemoryError,
  MemoryEvent,
  SealedDocument,
  SealedMessage,
  UNVERSIONED,
  deepFreeze,
  markValidated,
  toValidationIssues,
  upcast,
  type EventKind,
  type Sequenced,
  type StoredFields,
} from '../core/index.js';
import type { ProjectedEvent, StoredForm } from './projection.port.js';

/** Fields a stored form leaves out: the position and the two the leaf binds apart. */
const NOT_IN_BODY = new Set(['seq', 'id', 'kind']);

/**
 * The stored form of an event (src/store/projection.port.ts) from what a store holds: its wire
 * type, the schema version it was written in and its stored fields (any `seq`, `id` and `kind`
 * among them left out). Nothing is upcast and nothing sealed is opened.
 */
export function storedFormOf(type: string, version: number, fields: unknown): StoredForm {
  const body: Record<string, unknown> = {};
  if (typeof fields === 'object' && fields !== null && !Array.isArray(fields))
    for (const [name, value] of Object.entries(fields))
      if (!NOT_IN_BODY.has(name)) body[name] = value;
  return { type, version, body };
}

/**
 * An event as projections receive it from a store's read or append, its stored form made only
 * when a projection reads it (the read models and search never do). A class, so that making one
 * per event stays cheap (an object literal with a getter is not).
 */
export class LazyProjected implements ProjectedEvent {
  private form: StoredForm | undefined;

  constructor(
    readonly event: Sequenced,
    private readonly type: string,
    private readonly version: number,
    private readonly fields: unknown,
  ) {}

  get stored(): StoredForm {
    this.form ??= storedFormOf(this.type, this.version, this.fields);
    return this.form;
  }
}

/** The stored form of an event this code writes now (current version). */
export function storedFormOfEvent(event: MemoryEvent): StoredForm {
  const { type, version, data } = encodeEvent(event);
  return storedFormOf(type, version, data);
}

/** The wire type of an event kind. */
export type EventType = (typeof EVENT_TYPES)[EventKind];

/** An event as stores keep it. */
export interface EncodedEvent {
  readonly id: string;
  readonly type: EventType;
  /** The schema version of `data` (core/versions.ts). */
  readonly version: number;
  /** The event without `seq`. */
  readonly data: Readonly<Record<string, unknown>>;
}

const KIND_OF_TYPE = new Map<string, EventKind>(
  Object.entries(EVENT_TYPES).map(([kind, type]) => [type, kind as EventKind]),
);

/** Encodes an event for storage. */
export function encodeEvent(event: MemoryEvent): EncodedEvent {
  const { seq: _seq, ...data } = event;
  return { id: event.id, type: EVENT_TYPES[event.kind], version: EVENT_VERSIONS[event.kind], data };
}

/**
 * One line of a JSON Lines export (CLI `export`, HTTP `GET .../export`): the event as reads
 * return it, with its seq and the schema `version` of its kind, so a later release upcasts it.
 */
export function exportLine(event: Sequenced): string {
  return JSON.stringify({ ...event, version: EVENT_VERSIONS[event.kind] });
}

/**
 * The schema that validates stored fields: the current shape of the kind, or its sealed form
 * when the content was stored encrypted (`sealed`: message and document, version 2).
 */
function storedSchema(kind: EventKind, fields: StoredFields) {
  if (fields.sealed === undefined) return MemoryEvent;
  if (kind === 'message') return SealedMessage;
  if (kind === 'document') return SealedDocument;
  return MemoryEvent; // a sealed recall or deletion is refused by the strict schema
}

/** The kind of a stored wire type, or `EVENT_DECODE_FAILED` for a type memledger never writes. */
export function kindOfType(type: string, seq: number, where: string): EventKind {
  const kind = KIND_OF_TYPE.get(type);
  if (kind === undefined) {
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `Stored event at ${where} seq ${seq} has unknown type ${JSON.stringify(type)}.`,
      { details: { where, seq, type } },
    );
  }
  return kind;
}

/**
 * Decodes a stored event at `seq`, written in schema `version` (1, 0.1.0's shapes, when the
 * store recorded none): upcast to the current shape, then validated. Throws
 * `EVENT_VERSION_UNSUPPORTED` for a version this code does not read, `EVENT_DECODE_FAILED`
 * naming where it was read and why for anything else (unknown type, type and kind disagree, or
 * a schema rule broken). A sealed event comes back sealed: the store's key holder opens it.
 */
export function decodeEvent(
  type: string,
  data: unknown,
  seq: number,
  where: string,
  version: unknown = UNVERSIONED,
): Sequenced {
  const kind = kindOfType(type, seq, where);
  const stored = typeof data === 'object' && data !== null ? (data as StoredFields) : {};
  const fields = upcast(kind, version, stored, { where, seq });
  const parsed = storedSchema(kind, fields).safeParse({
    ...fields,
    kind: fields.kind ?? kind,
    seq,
  });
  if (!parsed.success) {
    const issues = toValidationIssues(parsed.error);
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `Stored event at ${where} seq ${seq} is not a valid ${type}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}.`,
      { details: { where, seq, type }, issues, cause: parsed.error },
    );
  }
  if (parsed.data.kind !== kind) {
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `Stored event at ${where} seq ${seq} has type ${type} but kind ${parsed.data.kind}.`,
      {
        details: { where, seq, type, kind: parsed.data.kind },
      },
    );
  }
  return markValidated(deepFreeze(parsed.data as Sequenced));
}

/**
 * Decodes JSON a memledger store wrote itself from a validated event (a read-model copy), without
 * validating it again; an unknown type is still refused. `columns` are fields a store keeps
 * beside the JSON (the payload's own fields win). Logs, imports and `verify` use
 * {@link decodeJsonEvent}.
 */
export function decodeTrustedJson(
  type: string,
  json: string,
  seq: number,
  where: string,
  columns: Readonly<Record<string, unknown>> = {},
  version: number = EVENT_VERSIONS[kindOfType(type, seq, where)],
): Sequenced {
  return decodeTrustedFields(type, JSON.parse(json) as StoredFields, seq, where, version, columns);
}

/**
 * Decodes stored fields a memledger store wrote itself from a validated event, without validating
 * them again: upcast from `version`, the kind checked against the type, `columns` (fields a
 * store keeps beside them) merged in, frozen. For catch-ups, rebuilds and read-model copies.
 */
export function decodeTrustedFields(
  type: string,
  fields: StoredFields,
  seq: number,
  where: string,
  version: unknown = UNVERSIONED,
  columns: Readonly<Record<string, unknown>> = {},
): Sequenced {
  const kind = kindOfType(type, seq, where);
  // The current version needs no upcast (the common case: a page loads hundreds of events).
  const data =
    version === EVENT_VERSIONS[kind] ? fields : upcast(kind, version, fields, { where, seq });
  // One object, filled in place (a spread of the stored fields into a literal copies them
  // slowly), keys in the same order: kind, the columns, the stored fields, seq. The fields were
  // written from a strict schema's output, so they hold no `__proto__` key to assign.
  const event: Record<string, unknown> = Object.assign({ kind }, columns, data);
  event.kind = kind;
  event.seq = seq;
  // Frozen but not marked validated (markValidated): nothing validated it here, and a WeakSet
  // entry per event doubled the young-generation GC pause of a state page. Appending such an
  // event again validates it in full, as any unmarked event.
  return deepFreeze(event as unknown as Sequenced);
}

/** Decodes a JSON text (SQLite payload, JSON Lines) at `seq`, written in schema `version`. */
export function decodeJsonEvent(
  type: string,
  json: string,
  seq: number,
  where: string,
  version: unknown = UNVERSIONED,
): Sequenced {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (cause) {
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `Stored event at ${where} seq ${seq} is not valid JSON.`,
      {
        details: { where, seq },
        cause,
      },
    );
  }
  return decodeEvent(type, data, seq, where, version);
}
