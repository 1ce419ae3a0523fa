/**
 * What the append guard needs of the ids an append names (its own ids, Deletion and Erasure
 * targets, recalled ids): each one's kind, seq, Deletion and Erasure, and for an id being
 * appended again the stored event, to compare.
 */
import type { Sequenced, StoredEntry } from '../../core/index.js';
import { kindOfType } from '../codec.js';
import { idOfKey, splitIdKeys } from '../../db/encodings.js';
import type { EntryRow, EventRow, Statements } from './sqlite.statements.js';

/** What the log of `memoryId` holds for `ids`; events decoded only for `own` (idempotency checks). */
export type EntriesOf = (
  ids: Iterable<string>,
  own: ReadonlySet<string>,
) => Map<string, StoredEntry>;

export function storedEntries(
  sql: Statements,
  memoryId: string,
  where: string,
  typeOf: (code: number) => string,
  decode: (row: EventRow) => Sequenced,
): EntriesOf {
  return (ids, own) => {
    const entries = new Map<string, StoredEntry>();
    const add = (id: string, found: EntryRow) => {
      // Payloads (possibly megabytes of document text) are read only for an id being appended
      // again, which needs a content comparison.
      const row = own.has(id) ? sql.entryWithPayload.get(memoryId, found.id)! : found;
      const deletedBy =
        row.deletion_id === null ? null : { id: idOfKey(row.deletion_id), seq: row.deletion_seq! };
      const erasedBy =
        row.erasure_id === null ? null : { id: idOfKey(row.erasure_id), seq: row.erasure_seq! };
      const kind = kindOfType(typeOf(row.type), row.seq, where);
      const event = row.payload === null ? undefined : decode({ ...row, payload: row.payload });
      const entry = { kind, seq: row.seq, deletedBy, erasedBy };
      entries.set(id, event ? { ...entry, event } : entry);
    };
    // One statement for every id stored as a 16-byte key (every validated id): a point lookup
    // per id cost more than the rest of the guard in an append of 100 events (bench/sqlite-append).
    const { hex, other } = splitIdKeys(ids);
    for (const id of other) {
      const row = sql.entry.get(memoryId, id);
      if (row) add(id, row);
    }
    if (hex.length === 1) {
      const row = sql.entry.get(memoryId, Buffer.from(hex[0]!, 'hex'));
      if (row) add(idOfKey(row.id), row);
    } else if (hex.length > 1) {
      for (const row of sql.entries.all(memoryId, JSON.stringify(hex))) add(idOfKey(row.id), row);
    }
    return entries;
  };
}
