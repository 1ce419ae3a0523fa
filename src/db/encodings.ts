/**
 * How memledger's SQLite files encode ids and kinds, in one place: the log, the EventStoreDB id
 * index and the projections agree on every id and kind because they share these functions.
 */
import { EVENT_KINDS, MemoryError, type EventKind } from '../core/index.js';

/** A canonical event id: lowercase 8-4-4-4-12 hex, as the core schemas normalize every id. */
const CANONICAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An id as a file keys it: 16 bytes for a canonical id; any other text (only a row written
 * behind memledger's back can carry one) stays text, so it is kept exactly and never mistaken for
 * a UUID.
 */
export function idKey(id: string): Buffer | string {
  return CANONICAL_ID.test(id) ? Buffer.from(id.replaceAll('-', ''), 'hex') : id;
}

/**
 * The hex of a canonical id's {@link idKey} (SQL's `unhex` makes it the key), or undefined for
 * any other text, whose key is the text itself.
 */
export function idKeyHex(id: string): string | undefined {
  return CANONICAL_ID.test(id) ? id.replaceAll('-', '') : undefined;
}

/**
 * Ids split by how they are keyed: the {@link idKeyHex} of every canonical id (looked up together,
 * `unhex` of a JSON array) and every other id, whose key is its own text (looked up one by one).
 */
export function splitIdKeys(ids: Iterable<string>): { hex: string[]; other: string[] } {
  const hex: string[] = [];
  const other: string[] = [];
  for (const id of ids) {
    const key = idKeyHex(id);
    if (key !== undefined) hex.push(key);
    else other.push(id);
  }
  return { hex, other };
}

/** The id text of a stored {@link idKey}. */
export function idOfKey(key: Uint8Array | string): string {
  if (typeof key === 'string') return key;
  return idOfHex(Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex'));
}

/** The canonical id text (8-4-4-4-12) of 16 bytes in lower-case hex. */
export function idOfHex(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The code of each kind in derived data (the EventStoreDB id index, the projections): its
 * position in {@link EVENT_KINDS}, so content (message 0, document 1) is `kind < 2`. Part of
 * those layouts: never renumber one. (The log's own `type` column has codes of its own, part of
 * the record's file format: src/store/sqlite/sqlite.codec.ts.)
 */
export const KIND_CODES = Object.fromEntries(EVENT_KINDS.map((kind, code) => [kind, code])) as {
  readonly [K in EventKind]: number;
};

/** The kind of a stored code, or `STORE_FAILED` naming where the unknown code was found. */
export function kindOfCode(code: number, where: string): EventKind {
  const kind = EVENT_KINDS[code];
  if (kind === undefined || !Number.isInteger(code)) {
    throw new MemoryError(
      'STORE_FAILED',
      `The ${where} holds kind code ${code}, which is not one of 0 to ${EVENT_KINDS.length - 1}.`,
      { details: { where, code } },
    );
  }
  return kind;
}
