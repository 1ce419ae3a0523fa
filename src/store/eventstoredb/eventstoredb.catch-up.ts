/**
 * Catching a memory's id index up with its stream: one forwards read from the checkpoint, applied
 * in chunks, each chunk in one transaction with its checkpoint (so a rebuild of a long stream
 * neither holds the stream in memory nor loses its progress when interrupted).
 *
 * The read starts *at* the checkpoint, not after it: the event there must be the one the
 * checkpoint names. When the stream holds another event at that revision, or none (a stream
 * deleted and written again, an index file made against another server), the index is never
 * trusted: the memory's rows are dropped and rebuilt from the start of the stream.
 */
import { MemoryError, type Sequenced } from '../../core/index.js';
import type { IdIndex } from './id-index/id-index.js';
import { readFrom, type EsdbStream } from './eventstoredb.reads.js';

/** Events applied per write transaction while catching up. */
const CHUNK = 1000;
/** Reads started again when other processes keep resetting the memory's index under this one. */
const MAX_PASSES = 5;

/** How many of the events it applied a catch-up hands back (the latest). */
const RECENT = CHUNK;

/**
 * Reads the events after the index's checkpoint and applies them. Call it under the memory's
 * mutex. `recent`, when given, receives the events applied (the latest {@link RECENT}, in seq
 * order, contiguous), so a caller can bring other state to the same head without reading again.
 */
export async function catchUp(
  stream: EsdbStream,
  index: IdIndex,
  recent?: Sequenced[],
): Promise<void> {
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    if (recent) recent.length = 0;
    if (await catchUpOnce(stream, index, recent)) {
      index.verified = true;
      return;
    }
  }
  throw new MemoryError(
    'APPEND_CONFLICT',
    `The id index of memory ${stream.memoryId} was reset by other processes ${MAX_PASSES} times while this one caught up; try again.`,
    { details: { memoryId: stream.memoryId, passes: MAX_PASSES } },
  );
}

/** One pass; false when the index was (or must be) reset, and the pass must start again. */
async function catchUpOnce(
  stream: EsdbStream,
  index: IdIndex,
  recent: Sequenced[] | undefined,
): Promise<boolean> {
  const applied = (events: Sequenced[]) => {
    if (!recent) return true;
    recent.push(...events);
    if (recent.length > RECENT) recent.splice(0, recent.length - RECENT);
    return true;
  };
  const base = index.checkpoint();
  let pending: Sequenced[] = [];
  // An empty index has no checkpoint to check.
  let verified = base.seq === null;
  for await (const event of readFrom(stream, base.seq ?? 0)) {
    if (!verified) {
      if (event.seq < base.seq!) continue;
      if (event.seq !== base.seq || event.id !== base.id) break;
      verified = true;
      continue;
    }
    pending.push(event);
    if (pending.length >= CHUNK) {
      if (!index.apply(base.seq, pending)) return false;
      applied(pending);
      pending = [];
    }
  }
  if (!verified) {
    // Leaving the loop early cancelled the read; the next pass reads the stream from seq 0.
    index.reset(base);
    return false;
  }
  return pending.length === 0 || (index.apply(base.seq, pending) && applied(pending));
}
