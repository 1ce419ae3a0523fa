/**
 * The steps the projection runtime is made of (projection-runtime.ts): applying what follows a
 * checkpoint, checking checkpoints against the log, dropping a projection's tables.
 */
import type Database from 'better-sqlite3';
import { MemoryError, type Sequenced } from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';
import {
  eventsAfter,
  type ProjectedEvent,
  type Projection,
  type ProjectionHandler,
} from '../store/projection.port.js';

/**
 * Events applied per transaction while catching up: enough that a rebuild commits rarely, few
 * enough that a chunk's events die young (held by the tens of thousands they outlived the young
 * generation, and the collector's copying cost more than the commits saved); between two chunks
 * other work gets the thread.
 */
export const CATCH_UP_CHUNK = 2048;

/** A projection registered on a runtime, open. */
export interface Registered {
  readonly projection: Projection;
  readonly handler: ProjectionHandler;
}

/** What one projection applied of a batch (for its `applied` listeners). */
export interface Applied {
  readonly name: string;
  readonly applied: readonly ProjectedEvent[];
}

/**
 * Applies `events` to each of `to` that they follow; what each applied. The checkpoints are all
 * read before any is applied: one projection's may be reported from another's rows (search's,
 * from the read models').
 */
export function applyEach(
  to: readonly Registered[],
  memoryId: string,
  events: readonly ProjectedEvent[],
): Applied[] {
  const checkpoints = to.map(({ handler }) => handler.checkpoint(memoryId));
  return to.map(({ projection, handler }, i) => ({
    name: projection.name,
    applied: applyFollowing(handler, memoryId, events, checkpoints[i]),
  }));
}

/**
 * Applies to `handler` the events of `events` that follow its checkpoint, when they do without a
 * gap, and returns those; a projection further behind is left to its catch-up. Without a
 * `checkpoint` read by the caller, a handler that finds its own place (`applyNext`) is left to.
 */
export function applyFollowing(
  handler: ProjectionHandler,
  memoryId: string,
  events: readonly ProjectedEvent[],
  checkpoint?: number,
): readonly ProjectedEvent[] {
  if (events.length === 0) return [];
  if (checkpoint === undefined) {
    if (handler.applyNext) return handler.applyNext(memoryId, events);
    checkpoint = handler.checkpoint(memoryId);
  }
  const applied = eventsAfter(events, checkpoint);
  if (applied.length > 0) handler.apply(memoryId, applied);
  return applied;
}

/** Whether an append of `events` can give `projection` work (its `handles`). */
export function givesWork(projection: Projection, events: readonly ProjectedEvent[]): boolean {
  const kinds = projection.handles;
  return kinds === undefined || events.some(({ event }) => kinds.includes(event.kind));
}

/** The lowest checkpoint of `of` in one memory (-1: one holds nothing of it). */
export function lowestCheckpoint(of: readonly Registered[], memoryId: string): number {
  return Math.min(...of.map(({ handler }) => handler.checkpoint(memoryId)));
}

/** An event a caller holds without its stored form, for projections that read none. */
export function withoutStored(event: Sequenced): ProjectedEvent {
  return {
    event,
    get stored(): never {
      throw new MemoryError(
        'LOG_INVARIANT_VIOLATED',
        `A projection that reads stored forms was handed event ${event.seq} without one: declare readsStoredForm.`,
      );
    },
  };
}

/** A catch-up that found the log shorter than its head said. */
export function shortOfHead(memoryId: string, checkpoint: number, head: number): MemoryError {
  return new MemoryError(
    'STORE_FAILED',
    `Projections of memory ${memoryId} reached seq ${checkpoint}, short of the log's head ${head}.`,
    { details: { memoryId, checkpoint, head } },
  );
}

/**
 * Resets each projection whose checkpoint event is not the one the log holds there (or that is
 * past the log's head): it was made from another log.
 */
export async function checkAgainstLog(
  db: Database.Database,
  projections: readonly Registered[],
  log: EventLog,
  head: number,
): Promise<void> {
  let known = head;
  // Projections usually stand at the same seq (the head): its event is read once for all.
  const read = new Map<number, ProjectedEvent | undefined>();
  for (const { handler } of projections) {
    const checkpoint = handler.checkpoint(log.memoryId);
    if (checkpoint < 0) continue;
    if (!read.has(checkpoint)) {
      // Another process on the file may have appended (and applied) since `head` was read.
      if (checkpoint > known) known = (await log.lastSeq()) ?? -1;
      read.set(checkpoint, checkpoint <= known ? await eventAt(log, checkpoint) : undefined);
    }
    const atCheckpoint = read.get(checkpoint);
    const agrees =
      atCheckpoint !== undefined && (handler.agrees?.(log.memoryId, atCheckpoint) ?? true);
    if (!agrees) db.transaction(() => handler.reset(log.memoryId)).immediate();
  }
}

/** The event at `seq` of `log` as projections receive it (undefined: the log holds none). */
async function eventAt(log: EventLog, seq: number): Promise<ProjectedEvent | undefined> {
  let found: ProjectedEvent | undefined;
  for await (const projected of log.readProjected({ fromSeq: seq, toSeq: seq, trusted: true }))
    found = projected;
  return found;
}

/**
 * Reads seqs `from..head` of `log` in chunks of `size` and hands each to `apply`, giving the
 * thread back between two chunks (queries and appends run on); `apply` returns the seq to read
 * from next, or undefined to stop.
 */
export async function eachChunk(
  log: EventLog,
  range: { readonly from: number; readonly head: number; readonly size: number },
  apply: (chunk: readonly ProjectedEvent[]) => number | undefined,
): Promise<void> {
  const { head, size } = range;
  for (let from: number | undefined = range.from; from !== undefined && from <= head;) {
    const chunk: ProjectedEvent[] = [];
    const toSeq = Math.min(head, from + size - 1);
    for await (const projected of log.readProjected({ fromSeq: from, toSeq, trusted: true }))
      chunk.push(projected);
    if (chunk.length === 0) return;
    from = apply(chunk);
    if (from !== undefined && from <= head) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Drops a table, view or index of the file, whatever it is. */
export function dropObject(db: Database.Database, name: string): void {
  const type = db
    .prepare<[string], string>('SELECT type FROM sqlite_schema WHERE name = ?')
    .pluck()
    .get(name);
  if (type === 'table' || type === 'view' || type === 'index' || type === 'trigger')
    db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name.replaceAll('"', '""')}"`);
}
