/**
 * Writes an append's events into the log tables: a row of `event_log` each, and for a Deletion
 * or Erasure the rows that record which content it marks. Runs inside the append's transaction,
 * after the guard decided.
 */
import { EVENT_TYPES, EVENT_VERSIONS, MemoryError, type Sequenced } from '../../core/index.js';
import { LazyProjected } from '../codec.js';
import type { ProjectedEvent } from '../projection.port.js';
import { idKey } from '../../db/encodings.js';
import { encodeRow } from './sqlite.codec.js';
import { RowBuffer } from '../../db/multi-row-insert.js';
import type { Statements } from './sqlite.statements.js';

/** The caller's plain event for a stored one of the append (the content codec's `plainOf`). */
export type PlainOf = (stored: Sequenced) => Sequenced;

/**
 * Inserts the rows of `events` (in order, as the store keeps them) into the log of the memory
 * keyed `key`; returns them as the append's projections receive them
 * (src/store/projection.port.ts): the plain event beside the stored form. Events that mark
 * nothing go many to a statement (src/db/multi-row-insert.ts). A Deletion or Erasure is inserted
 * alone, its target rows recorded from its row's position.
 */
export function insertLogRows(
  sql: Statements,
  key: number,
  events: readonly Sequenced[],
  append: { readonly where: string; readonly plainOf: PlainOf },
): ProjectedEvent[] {
  const { where, plainOf } = append;
  const rows = new RowBuffer(sql.insertEvents);
  const written: ProjectedEvent[] = [];
  for (const event of events) {
    const { id, type, version, payload } = encodeRow(event);
    const { kind } = event;
    const plain = plainOf(event);
    written.push(new LazyProjected(plain, EVENT_TYPES[kind], EVENT_VERSIONS[kind], event));
    if (event.kind !== 'deletion' && event.kind !== 'erasure') {
      rows.add(key, event.seq, id, type, version, payload);
      continue;
    }
    rows.flush();
    const { lastInsertRowid } = sql.insertEvents(1).run(key, event.seq, id, type, version, payload);
    const mark = event.kind === 'deletion' ? sql.insertDeletion : sql.insertErasure;
    for (const target of event.targets) {
      // The guard checked every target exists; a miss here would leave deleted content readable.
      if (mark.run(lastInsertRowid, key, idKey(target)).changes !== 1)
        throw new MemoryError(
          'STORE_FAILED',
          `${event.kind === 'deletion' ? 'Deletion' : 'Erasure'} target ${target} has no row in ${where}.`,
        );
    }
  }
  rows.flush();
  return written;
}
