/**
 * How one event is laid out in a row of `event_log`: the id as 16 bytes, the wire type as a
 * small integer code, the schema version, and a JSON payload holding everything else (the
 * columns are not repeated in it). Decoding puts the columns back and validates through the
 * shared codec, so it rebuilds exactly the event that was appended.
 */
import {
  EVENT_TYPES,
  EVENT_VERSIONS,
  MemoryError,
  type MemoryEvent,
  type Sequenced,
  type StoredFields,
} from '../../core/index.js';
import { idKey, idOfHex, idOfKey } from '../../db/encodings.js';
import {
  decodeEvent,
  decodeTrustedFields,
  decodeTrustedJson,
  kindOfType,
  type EventType,
} from '../codec.js';

/**
 * The code of each wire type in `event_log.type`. Codes are part of the file format: never
 * renumber one; a new kind takes the next free code below {@link FOREIGN_TYPE_CODES}.
 */
export const EVENT_TYPE_CODES = {
  Message: 1,
  Document: 2,
  Recall: 3,
  Deletion: 4,
  Erasure: 5,
} as const satisfies Record<EventType, number>;

/**
 * First code given to a type this code does not write, found in a file (a 0.1.0 row written
 * behind the store's back): kept so that nothing is lost, rejected when read.
 */
export const FOREIGN_TYPE_CODES = 1000;

const TYPE_OF_CODE = new Map<number, string>(
  Object.entries(EVENT_TYPE_CODES).map(([type, code]) => [code, type]),
);

/** The wire type of a stored code; `lookup` names the codes the file holds beyond memledger's. */
export function typeOfCode(code: number, lookup: (code: number) => string | undefined): string {
  return TYPE_OF_CODE.get(code) ?? lookup(code) ?? `#${code}`;
}

/** The columns an event is written in. */
export interface EncodedRow {
  readonly id: Buffer | string;
  readonly type: number;
  readonly version: number;
  /** The event's JSON without `seq`, `id` and `kind` (the columns hold them). */
  readonly payload: string;
}

/** Encodes a validated event for `event_log`. */
export function encodeRow(event: MemoryEvent): EncodedRow {
  const { seq: _seq, id, kind: _kind, ...rest } = event;
  return {
    id: idKey(id),
    type: EVENT_TYPE_CODES[EVENT_TYPES[event.kind]],
    version: EVENT_VERSIONS[event.kind],
    payload: JSON.stringify(rest),
  };
}

/** A stored row of `event_log`, as read. */
export interface StoredRow {
  readonly seq: number;
  readonly id: Uint8Array | string;
  readonly type: number;
  /** The event schema version the payload was written in (core/versions.ts). */
  readonly version: number;
  readonly payload: string;
}

/**
 * A row as the read models' page loads select it, as an array: seq, the id's bytes in lower-case
 * hex (an id stored as 16 bytes) or its text (any other), type code, version, payload.
 * better-sqlite3 gives a blob as a new Buffer and a row as an object set column by column; both
 * cost more than the rest of a page load of ~300 events (bench/open-memory).
 */
export type PageRow = readonly [
  seq: number,
  hexId: string | null,
  textId: string | null,
  type: number,
  version: number,
  payload: string,
];

/** The columns of a {@link PageRow}. */
export const PAGE_ROW_COLUMNS = `seq, CASE WHEN typeof(id) = 'blob' THEN lower(hex(id)) END,
  CASE WHEN typeof(id) = 'blob' THEN NULL ELSE id END, type, version, payload`;

/**
 * Decodes a row for the read models' page loads without validating it again: every event was
 * validated on its way in (the append guard, or catch-up through {@link decodeRow}), and the
 * read models only name rows they applied. `memledger verify` and every log read still validate
 * each row. An unknown type is still refused.
 */
export function decodeTrustedRow(row: PageRow, type: string, where: string): Sequenced {
  const [seq, hexId, textId, , version, payload] = row;
  const id = hexId === null ? textId! : idOfHex(hexId);
  return decodeTrustedJson(type, payload, seq, where, { id }, version);
}

/**
 * {@link decodeTrustedRow} from `fields`, the row's payload its caller parsed already (for the
 * event's stored form too).
 */
export function decodeTrustedPageRow(
  row: PageRow,
  type: string,
  where: string,
  fields: StoredFields,
): Sequenced {
  const [seq, hexId, textId, , version] = row;
  const id = hexId === null ? textId! : idOfHex(hexId);
  return decodeTrustedFields(type, fields, seq, where, version, { id });
}

/**
 * Decodes a stored row for a catch-up without validating it again (see {@link decodeTrustedRow});
 * `fields` is its payload, when the caller parsed it already for the row's stored form.
 */
export function decodeTrustedStoredRow(
  row: StoredRow,
  type: string,
  where: string,
  fields = JSON.parse(row.payload) as StoredFields,
): Sequenced {
  return decodeTrustedFields(type, fields, row.seq, where, row.version, { id: idOfKey(row.id) });
}

/**
 * Decodes a stored row at `where`. Fields the payload holds win over the columns' (a 0.1.0 row
 * whose payload disagreed with its columns keeps its payload), so a mismatch between type and
 * kind is still reported as the shared codec reports it.
 */
export function decodeRow(row: StoredRow, type: string, where: string): Sequenced {
  let data: unknown;
  try {
    data = JSON.parse(row.payload);
  } catch (cause) {
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `Stored event at ${where} seq ${row.seq} is not valid JSON.`,
      { details: { where, seq: row.seq }, cause },
    );
  }
  const kind = kindOfType(type, row.seq, where);
  return decodeEvent(
    type,
    { kind, id: idOfKey(row.id), ...(data as object) },
    row.seq,
    where,
    row.version,
  );
}
