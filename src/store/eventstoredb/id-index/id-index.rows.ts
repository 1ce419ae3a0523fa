/**
 * How events become rows of the EventStoreDB id index (id-index/id-index.ts): each event's
 * row, the marks a deletion or erasure leaves on its targets' rows, and the memory's checkpoint,
 * written in the caller's write transaction. Pure SQL over the prepared statements; when to write
 * and what the index knows meanwhile is the index's business.
 */
import { MemoryError, type EventKind, type Sequenced } from '../../../core/index.js';
import { idKey } from '../../../db/encodings.js';
import { KIND_CODES } from '../../../db/encodings.js';
import { RowBuffer } from '../../../db/multi-row-insert.js';
import type { IdKey, Statements } from './id-index.statements.js';

/**
 * What the index keeps of an event that marks nothing (no deletion or erasure): its row. The
 * index holds these for its unwritten appends, never the events, so content waiting to be indexed
 * costs no memory.
 */
export interface Row {
  readonly id: string;
  readonly kind: Exclude<EventKind, 'deletion' | 'erasure'>;
  readonly seq: number;
}

/** What the index writes of an event: its row, and the marks of a deletion or erasure. */
export type Indexed = Sequenced | Row;

/** The row of an event that marks nothing; undefined for a deletion or erasure. */
export function rowOf(event: Sequenced): Row | undefined {
  const { id, kind, seq } = event;
  return kind === 'deletion' || kind === 'erasure' ? undefined : { id, kind, seq };
}

/** Where rows go: one memory (`mem`, its key in the file) of an index file's statements. */
export interface RowTarget {
  readonly sql: Statements;
  readonly mem: number;
  /** Named in errors. */
  readonly memoryId: string;
}

/**
 * Writes the rows of `events` read after `base` (the checkpoint the caller started from) and
 * moves the memory's checkpoint; call it in a write transaction. Events the file already holds
 * (another process applied them meanwhile) are skipped. Returns the new checkpoint seq, or false,
 * writing nothing, when the file's checkpoint went back behind `base` (another process reset it).
 * Throws `LOG_INVARIANT_VIOLATED` for anything but the next seq after the checkpoint.
 */
export function writeEvents(
  to: RowTarget,
  base: number | null,
  events: readonly Indexed[],
): number | null | false {
  return moveFrom(to, base, events) ?? writeAfter(to, base, events);
}

/**
 * The usual case, in two statements for one event: the events follow each other and the
 * checkpoint is right before the first, which moving it conditionally proves. Returns the new
 * checkpoint seq, or undefined when the checkpoint is elsewhere.
 */
function moveFrom(
  to: RowTarget,
  base: number | null,
  events: readonly Indexed[],
): number | undefined {
  const { sql, mem } = to;
  const first = events[0];
  const last = events.at(-1);
  if (first === undefined || last === undefined || first.seq - 1 < (base ?? -1)) return undefined;
  if (last.seq - first.seq !== events.length - 1) return undefined; // a gap: writeAfter names it
  const from = first.seq === 0 ? null : first.seq - 1;
  const lastKey = idKey(last.id);
  if (sql.moveCheckpoint.run(last.seq, lastKey, mem, from).changes !== 1) return undefined;
  if (events.length > 1 && !events.some(marks)) {
    putRows(to, events, last, lastKey);
    return last.seq;
  }
  for (const event of events) put(to, event, event === last ? lastKey : idKey(event.id));
  return last.seq;
}

/**
 * The rows of events that mark nothing, many to a statement (src/db/multi-row-insert.ts): one
 * step instead of one per event. VALUES are inserted in order, so an id twice keeps its later
 * row, as `put`.
 */
function putRows(
  { sql, mem }: RowTarget,
  events: readonly Indexed[],
  last: Indexed,
  lastKey: IdKey,
): void {
  const rows = new RowBuffer(sql.putRows);
  for (const event of events) {
    rows.add(mem, event === last ? lastKey : idKey(event.id), KIND_CODES[event.kind], event.seq);
  }
  rows.flush();
}

/**
 * The general case: the file's checkpoint is read, events at or before it are skipped. Returns
 * the new checkpoint seq, or false when the checkpoint went back behind `base`.
 */
function writeAfter(
  to: RowTarget,
  base: number | null,
  events: readonly Indexed[],
): number | null | false {
  const { sql, mem } = to;
  const at = sql.checkpointSeq.get(mem) ?? null;
  let last = at ?? -1;
  if (last < (base ?? -1)) return false;
  let lastId: IdKey | null = null;
  for (const event of events) {
    if (event.seq <= last) continue;
    if (event.seq !== last + 1) throw gap(to.memoryId, last + 1, event.seq);
    lastId = put(to, event);
    last = event.seq;
  }
  if (lastId === null) return at;
  sql.setCheckpoint.run(last, lastId, mem);
  return last;
}

/** Writes an event's row and marks the content it deletes or erases; returns its id key. */
function put({ sql, mem }: RowTarget, event: Indexed, id: IdKey = idKey(event.id)): IdKey {
  sql.putRows(1).run(mem, id, KIND_CODES[event.kind], event.seq);
  if (event.kind === 'deletion') {
    for (const target of event.targets) sql.markDeleted.run(id, event.seq, mem, idKey(target));
  } else if (event.kind === 'erasure') {
    for (const target of event.targets) sql.markErased.run(id, event.seq, mem, idKey(target));
  }
  return id;
}

/** Deletions and erasures mark earlier rows, so their rows are put one by one, in order. */
const marks = (event: Indexed): boolean => event.kind === 'deletion' || event.kind === 'erasure';

function gap(memoryId: string, expected: number, actual: number): MemoryError {
  return new MemoryError(
    'LOG_INVARIANT_VIOLATED',
    `Memory ${memoryId} holds seq ${actual} where seq ${expected} was expected; its stream has a gap.`,
    { details: { memoryId, expected, actual } },
  );
}
