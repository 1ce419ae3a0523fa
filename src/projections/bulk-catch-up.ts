/**
 * How a catch-up applies a range of the log. A long catch-up where the log is in the
 * projections' own file (the SQLite store): the log is
 * read synchronously inside the transaction that applies it, so a transaction can cover many
 * pages of events while each page's events still die young. Fewer commits matter most to
 * search: each one makes FTS5 flush its pending terms into a new small segment that merges
 * rewrite later, and writes the pages it touched to the WAL again.
 */
import type Database from 'better-sqlite3';
import type { ProjectedEvent } from '../store/projection.port.js';
import type { AppliedListeners } from './applied-listeners.js';
import type { LayoutBuilds } from './layout-builds.js';
import type { EventLog } from '../store/event-log.port.js';
import {
  CATCH_UP_CHUNK,
  applyEach,
  eachChunk,
  type Applied,
  type Registered,
} from './projection-steps.js';
import type { InlineSource, Progress } from './projection-runtime.types.js';

/**
 * Events applied per transaction by a bulk catch-up: enough that FTS5 flushes on its own
 * (a megabyte of pending terms) more often than at commits; few enough that a transaction gives
 * the thread and the write lock back within a fraction of a second.
 */
const BULK_CHUNK = 16384;

/** What a bulk catch-up works with: the runtime's file, log source, listeners and builds. */
export interface BulkParts {
  readonly db: Database.Database;
  readonly inline: InlineSource;
  readonly listeners: AppliedListeners;
  readonly builds: LayoutBuilds;
}

/** What {@link applyRange} works with: a bulk catch-up's parts, any store's log source. */
export interface RangeParts extends Omit<BulkParts, 'inline'> {
  readonly inline: InlineSource | undefined;
  /** Applies one chunk in a transaction of its own (the runtime's). */
  readonly applyTx: (
    to: readonly Registered[],
    memoryId: string,
    chunk: readonly ProjectedEvent[],
  ) => Applied[];
}

/**
 * Applies seqs `from..head` of `log` to `to`: in the store's own file, a long range in large
 * transactions ({@link catchUpInStore}); elsewhere, or a short range, a transaction a chunk of
 * {@link CATCH_UP_CHUNK} events read from the log.
 */
export async function applyRange(
  parts: RangeParts,
  log: EventLog,
  to: readonly Registered[],
  range: { readonly from: number; readonly head: number; readonly told?: Progress | undefined },
): Promise<void> {
  const { inline, listeners, applyTx } = parts;
  const { memoryId } = log;
  if (inline && range.head - range.from >= CATCH_UP_CHUNK)
    return catchUpInStore({ ...parts, inline }, memoryId, to, range);
  await eachChunk(log, { from: range.from, head: range.head, size: CATCH_UP_CHUNK }, (chunk) => {
    listeners.notifyAll(memoryId, applyTx(to, memoryId, chunk));
    const next = chunk.at(-1)!.event.seq + 1;
    range.told?.(next, range.head + 1);
    return next;
  });
}

/**
 * Applies seqs `from..head` of one memory's log to `to`, reading it inside the transactions that
 * apply it: pages of {@link CATCH_UP_CHUNK} events, up to {@link BULK_CHUNK} events a
 * transaction, the thread given back between two. Listeners are told after each commit, so a
 * page a listened projection applied ends its transaction: its events are not held for longer (a
 * rebuild of the read models, whose applied events the memory's live stream hears, commits
 * every page as before; search's build, which nobody listens to, every {@link BULK_CHUNK}).
 */
async function catchUpInStore(
  parts: BulkParts,
  memoryId: string,
  to: readonly Registered[],
  range: { readonly from: number; readonly head: number; readonly told?: Progress | undefined },
): Promise<void> {
  const { db, inline, listeners, builds } = parts;
  const { head } = range;
  let pending: Applied[] = [];
  // Returns the seq to read from next: `last + 1`, or less where the log ended early.
  const transaction = db.transaction((from: number, last: number): number => {
    let at = from;
    while (at <= last) {
      const page = inline.projectedRange(memoryId, at, Math.min(last, at + CATCH_UP_CHUNK - 1));
      if (page.length === 0) break;
      for (const one of applyEach(to, memoryId, page))
        if (one.applied.length > 0 && listeners.has(one.name, memoryId)) pending.push(one);
      builds.feedAll(memoryId, page);
      at = page.at(-1)!.event.seq + 1;
      if (pending.length > 0) break;
    }
    return at;
  });
  for (let from = range.from; from <= head;) {
    const next = transaction.immediate(from, Math.min(head, from + BULK_CHUNK - 1));
    if (next === from) return;
    const applied = pending;
    pending = [];
    listeners.notifyAll(memoryId, applied);
    range.told?.(next, head + 1);
    if (next <= head) await new Promise((resolve) => setImmediate(resolve));
    from = next;
  }
}
