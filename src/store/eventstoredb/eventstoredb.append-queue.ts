/**
 * The appends of one memory, queued for its mutex: the appends that arrive while one holds it
 * are written together by the next turn, in one server append, each decided in turn on the view
 * its predecessors leave. One memory's concurrent writers then cost one round trip and are
 * answered together (so their next requests arrive together too, and the key store's group
 * commit of sealed content gathers them). A lone append is written as before
 * (eventstoredb.append.ts).
 */
import {
  decideAppend,
  indexStoredEvent,
  isMemoryError,
  LIMITS,
  type LogView,
  type MemoryEvent,
  type Sequenced,
} from '../../core/index.js';
import { appendSize } from '../append-input.js';
import { appendAlone, appendConflict, spreadRetry, viewOf, write } from './eventstoredb.append.js';
import { catchUp } from './eventstoredb.catch-up.js';
import type { IndexedMemory } from './eventstoredb.id-index.js';
import type { EsdbStream } from './eventstoredb.reads.js';

/** An append waiting for its memory's mutex. */
interface Waiting {
  readonly events: readonly MemoryEvent[];
  readonly expectedLastSeq: number | null | undefined;
  resolve(stored: readonly Sequenced[]): void;
  reject(error: unknown): void;
}

/** The appends of each memory waiting for its mutex, in the order they were asked for. */
const waitingOf = new WeakMap<IndexedMemory, Waiting[]>();

/**
 * Runs the guard and appends; returns the stored events in the caller's order. The memory's
 * mutex holds the whole attempt loop, so appends of one process never race each other and only
 * other processes cause retries. Appends that arrive while one holds the mutex wait, and the
 * next turn of the mutex writes all of them in one server append (`appendTogether`): one memory's
 * concurrent writers then cost one round trip, and their callers are answered together.
 */
export function guardedAppend(
  stream: EsdbStream,
  memory: IndexedMemory,
  events: readonly MemoryEvent[],
  expectedLastSeq: number | null | undefined,
): Promise<readonly Sequenced[]> {
  return new Promise((resolve, reject) => {
    let waiting = waitingOf.get(memory);
    if (waiting === undefined) waitingOf.set(memory, (waiting = []));
    waiting.push({ events, expectedLastSeq, resolve, reject });
    // One turn of the mutex per append; a turn that finds its append taken by an earlier one
    // (written together) has nothing left to do.
    void memory.mutex.run(() => appendWaiting(stream, memory, waiting));
  });
}

/** Takes what waits (as much as one server append holds) and settles each caller. */
async function appendWaiting(
  stream: EsdbStream,
  memory: IndexedMemory,
  waiting: Waiting[],
): Promise<void> {
  const batch = takeBatch(waiting, stream.context.limits.appendBytes);
  if (batch.length > 1) {
    try {
      const outcomes = await appendTogether(stream, memory, batch);
      if (outcomes !== undefined) {
        batch.forEach((one, i) => {
          const outcome = outcomes[i]!;
          if ('stored' in outcome) one.resolve(outcome.stored);
          else one.reject(outcome.error);
        });
        return;
      }
    } catch (error) {
      for (const one of batch) one.reject(error);
      return;
    }
  }
  // Alone, or a batch the server found too large together: one append at a time.
  for (const one of batch) {
    try {
      one.resolve(await appendAlone(stream, memory, one.events, one.expectedLastSeq));
    } catch (error) {
      one.reject(error);
    }
  }
}

/** The first waiting append, and those after it while they fit one server append together. */
function takeBatch(waiting: Waiting[], appendBytes: number): Waiting[] {
  if (waiting.length <= 1) return waiting.splice(0);
  let bytes = appendSize(waiting[0]!.events);
  let count = waiting[0]!.events.length;
  let take = 1;
  for (; take < waiting.length; take++) {
    const next = waiting[take]!.events;
    bytes += appendSize(next);
    count += next.length;
    if (bytes > appendBytes || count > LIMITS.batch) break;
  }
  return waiting.splice(0, take);
}

type Outcome = { readonly stored: readonly Sequenced[] } | { readonly error: unknown };

/**
 * Several appends in one server append: each is decided in turn on the view its predecessors
 * leave (`indexStoredEvent`, as the command line's import plans its batches), and what they
 * write goes to the server at once, at the revision the first was decided on. A refusal on an
 * optimistic view is decided again after a catch-up, as `decide` does for one append; a refusal
 * that stands is that append's answer alone. Returns undefined when the server refuses the
 * whole as too large (the caller then appends them one at a time).
 */
async function appendTogether(
  stream: EsdbStream,
  memory: IndexedMemory,
  batch: readonly Waiting[],
): Promise<Outcome[] | undefined> {
  const attempts = stream.context.maxAppendAttempts;
  const all = batch.flatMap((one) => one.events);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    stream.context.ensureOpen();
    const optimistic = attempt === 1 && memory.index.verified;
    if (!optimistic) await catchUp(stream, memory.index);
    let view: LogView;
    try {
      view = await viewOf(stream, memory.index, all);
    } catch (error) {
      if (optimistic) continue;
      throw error;
    }
    const entries = new Map(view.entries);
    let lastSeq = view.lastSeq;
    const outcomes: Outcome[] = [];
    const toWrite: Sequenced[] = [];
    for (const one of batch) {
      try {
        const decision = decideAppend(
          { memoryId: stream.memoryId, lastSeq, entries },
          one.events,
          one.expectedLastSeq,
        );
        for (const event of decision.toWrite) {
          indexStoredEvent(entries, event, true);
          lastSeq = event.seq;
        }
        toWrite.push(...decision.toWrite);
        outcomes.push({ stored: decision.stored });
      } catch (error) {
        outcomes.push({ error });
      }
    }
    // A refusal may come from a stale index: never reported before a catch-up and a second look.
    if (optimistic && outcomes.some((outcome) => 'error' in outcome)) continue;
    if (toWrite.length === 0) return outcomes;
    let written: boolean;
    try {
      written = await write(stream, toWrite, view.lastSeq);
    } catch (error) {
      if (isMemoryError(error, 'PAYLOAD_TOO_LARGE')) return undefined;
      throw error;
    }
    if (written) {
      if (!memory.index.apply(view.lastSeq, toWrite)) await catchUp(stream, memory.index);
      return outcomes;
    }
    await spreadRetry(attempt);
  }
  throw appendConflict(stream, attempts);
}
