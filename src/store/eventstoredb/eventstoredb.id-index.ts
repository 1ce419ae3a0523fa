/**
 * The per-memory id index of the EventStoreDB store: what the append guard and `get(id)` need
 * to know about every id in a memory, without scanning the stream.
 *
 * Kept in process memory and brought up to date by reading the stream forwards from its
 * checkpoint (only the events this process has not seen) right before each guard decision and
 * each `get`. A read rather than a live subscription, because the guard must decide on the log
 * as it is *now*: a subscription is at best "recent", and the extra read is one small RPC that
 * usually returns nothing.
 *
 * Per id it holds kind, seq and deletedBy, not the event: an index of a million events then
 * costs tens of megabytes, not the whole log. The one decision that needs an event's content
 * (invariant 9: the same id appended again) reads that single revision, which happens only on
 * retries.
 */
import {
  indexStoredEvent,
  MemoryError,
  type Sequenced,
  type StoredEntry,
} from '../../core/index.js';
import { readFrom, type EsdbStream } from './eventstoredb.reads.js';

/** Serializes async work: one catch-up or guarded append of a memory at a time in this process. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after every earlier `run` has settled. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** What the index knows of one memory, up to {@link IdIndex.lastSeq}. */
export class IdIndex {
  private readonly byId = new Map<string, StoredEntry>();
  private last: number | null = null;

  constructor(private readonly memoryId: string) {}

  /** The seq of the last event applied: the checkpoint of the next catch-up. */
  get lastSeq(): number | null {
    return this.last;
  }

  /** The entry of an id (lowercase), without its event. */
  entry(id: string): StoredEntry | undefined {
    return this.byId.get(id);
  }

  /**
   * Adds the next event of the log. Refuses anything but the next seq: a gap means the stream
   * is not a memledger log (truncated, soft-deleted and rewritten), and the guard must not
   * decide on it.
   */
  apply(event: Sequenced): void {
    const expected = this.last === null ? 0 : this.last + 1;
    if (event.seq !== expected) {
      throw new MemoryError(
        'LOG_INVARIANT_VIOLATED',
        `Memory ${this.memoryId} holds seq ${event.seq} where seq ${expected} was expected; its stream has a gap.`,
        { details: { memoryId: this.memoryId, expected, actual: event.seq } },
      );
    }
    // The first deletion counts, as in replay(); an unknown target is left for replay to reject.
    indexStoredEvent(this.byId, event, false);
    this.last = event.seq;
  }
}

/** An index with the lock that keeps its catch-ups and the guarded appends in order. */
export interface IndexedMemory {
  readonly index: IdIndex;
  readonly mutex: Mutex;
}

/** Creates the index state of one memory. */
export function indexedMemory(memoryId: string): IndexedMemory {
  return { index: new IdIndex(memoryId), mutex: new Mutex() };
}

/**
 * Reads the events after the index's checkpoint and applies them. Returns those with seq >=
 * `keepFromSeq` (the guard checks its own writes among them; a cold start keeps none).
 * Call it under the memory's mutex.
 */
export async function catchUp(
  stream: EsdbStream,
  index: IdIndex,
  keepFromSeq = Number.POSITIVE_INFINITY,
): Promise<Sequenced[]> {
  const kept: Sequenced[] = [];
  const from = index.lastSeq === null ? 0 : index.lastSeq + 1;
  for await (const event of readFrom(stream, from)) {
    index.apply(event);
    if (event.seq >= keepFromSeq) kept.push(event);
  }
  return kept;
}
