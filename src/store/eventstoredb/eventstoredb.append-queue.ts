/**
 * The appends of one memory, queued for its mutex: the appends that arrive while one holds it
 * are written together by the next turn, in one server append, each decided in turn on the view
 * its predecessors leave (eventstoredb.append.ts, `appendInTurn`). One memory's concurrent
 * writers then cost one round trip and are answered together, so their next requests arrive
 * together too and the key store's group commit of sealed content gathers them.
 */
import { isMemoryError, LIMITS, type MemoryEvent, type Sequenced } from '../../core/index.js';
import { appendSize } from '../append-input.js';
import { appendInTurn, type AppendOutcome, type AppendRequest } from './eventstoredb.append.js';
import type { IndexedMemory } from './id-index/id-index.js';
import type { EsdbStream } from './eventstoredb.reads.js';

/** An append waiting for its memory's mutex. */
interface Waiting extends AppendRequest {
  resolve(stored: readonly Sequenced[]): void;
  reject(error: unknown): void;
}

/** The appends of each memory waiting for its mutex, in the order they were asked for. */
const waitingOf = new WeakMap<IndexedMemory, Waiting[]>();

/**
 * Runs the guard and appends; returns the stored events in the caller's order. The memory's
 * mutex holds the whole attempt loop, so appends of one process never race each other and only
 * other processes cause retries. Appends that arrive while one holds the mutex wait, and its
 * next turn writes all of them in one server append.
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
    // (written together) has nothing left to do. Every caller is settled inside the turn; should
    // the turn itself fail, whoever still waits is told.
    memory.mutex
      .run(() => appendWaiting(stream, memory, waiting))
      .catch((error: unknown) => {
        for (const one of waiting.splice(0)) one.reject(error);
      });
  });
}

/** Takes what waits (as much as one server append holds) and settles each caller. */
async function appendWaiting(
  stream: EsdbStream,
  memory: IndexedMemory,
  waiting: Waiting[],
): Promise<void> {
  const batch = takeBatch(waiting, stream.context.limits.appendBytes);
  if (batch.length === 0) return;
  try {
    settle(batch, await appendInTurn(stream, memory, batch));
  } catch (error) {
    if (batch.length === 1 || !isMemoryError(error, 'PAYLOAD_TOO_LARGE')) {
      for (const one of batch) one.reject(error);
      return;
    }
    // The server holds less than its limit said (and the store has learned it): one at a time.
    for (const one of batch) {
      try {
        settle([one], await appendInTurn(stream, memory, [one]));
      } catch (alone) {
        one.reject(alone);
      }
    }
  }
}

function settle(batch: readonly Waiting[], outcomes: readonly AppendOutcome[]): void {
  batch.forEach((one, i) => {
    const outcome = outcomes[i]!;
    if ('stored' in outcome) one.resolve(outcome.stored);
    else one.reject(outcome.error);
  });
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
