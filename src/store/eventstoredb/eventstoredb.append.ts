/**
 * The append guard on EventStoreDB: optimistic concurrency on the stream revision.
 *
 * Each attempt runs core `decideAppend` on the id index at revision r (brought up to date by a
 * read, except on an optimistic first attempt, see `decide`) and appends with expectedRevision r
 * (`no_stream` for an empty log). If another writer got there
 * first the server answers WrongExpectedVersion and the guard runs again on the newer log, up to
 * `maxAppendAttempts` times (then `APPEND_CONFLICT`). A caller's own `expectedLastSeq` is checked
 * by `decideAppend` on each fresh view, so a moved log surfaces as `EXPECTED_SEQ_MISMATCH`
 * instead of being retried past the caller's expectation.
 *
 * Writes go through eventstoredb.write.ts, whose event ids are content addresses: a "success"
 * means the stream holds exactly the events decided, so the index records them unread.
 */
import {
  decideAppend,
  idsNamedBy,
  indexStoredEvent,
  isMemoryError,
  MemoryError,
  type LogView,
  type MemoryEvent,
  type Sequenced,
  type StoredEntry,
} from '../../core/index.js';
import { catchUp } from './eventstoredb.catch-up.js';
import type { IdIndex, IndexedMemory } from './id-index/id-index.js';
import { readOne, type EsdbStream } from './eventstoredb.reads.js';
import { write } from './eventstoredb.write.js';

/** One append a caller asked for. */
export interface AppendRequest {
  readonly events: readonly MemoryEvent[];
  readonly expectedLastSeq: number | null | undefined;
}

/** What became of one append: its stored events, or the guard's refusal. */
export type AppendOutcome = { readonly stored: readonly Sequenced[] } | { readonly error: unknown };

/** What a turn decided: each append's outcome, what they write together, and at which seq. */
interface TurnDecision {
  readonly outcomes: AppendOutcome[];
  readonly toWrite: readonly Sequenced[];
  readonly lastSeq: number | null;
}

/**
 * Guard and write of appends — one, or several written together in one server append — retried
 * while other processes move the stream; returns each append's outcome, in order. Its caller
 * holds the memory's mutex (eventstoredb.append-queue.ts). A write refused by the server (too
 * large, unavailable) throws for all of them.
 */
export async function appendInTurn(
  stream: EsdbStream,
  memory: IndexedMemory,
  batch: readonly AppendRequest[],
): Promise<AppendOutcome[]> {
  const all = batch.length === 1 ? batch[0]!.events : batch.flatMap((one) => one.events);
  const attempts = stream.context.maxAppendAttempts;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    stream.context.ensureOpen();
    const decided = await decide(stream, memory.index, batch, all, attempt === 1);
    if (decided.toWrite.length === 0) return decided.outcomes;
    if (await writeAndIndex(stream, memory.index, decided)) return decided.outcomes;
    await pauseAfterLosing(attempt);
  }
  throw keptMoving(stream, attempts);
}

/**
 * An append computed at the stream's head (`EventLog.appendAtHead`), under the memory's mutex so
 * this process's own appends wait. Each attempt reads the stream past the index's checkpoint,
 * gives `compute` the head reached and the events read on the way (so the caller brings its own
 * state to that head without another round trip), runs the guard on the index at that head and
 * appends expecting it. The time between the read and the append is all another process has to
 * move the stream in; when one did, the next attempt reads on from there (`pauseAfterLosing`), up
 * to `attempts` times, then `APPEND_CONFLICT`. No attempt trusts the index without reading:
 * computing is the slow part, so it is done on the newest head there is.
 */
export async function computedAppendInTurn(
  stream: EsdbStream,
  memory: IndexedMemory,
  compute: (
    lastSeq: number | null,
    read: readonly Sequenced[],
  ) => Promise<readonly MemoryEvent[] | undefined>,
  attempts: number,
): Promise<readonly Sequenced[] | undefined> {
  const { index } = memory;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    stream.context.ensureOpen();
    const read: Sequenced[] = [];
    await catchUp(stream, index, read);
    const head = index.checkpoint().seq;
    const events = await compute(head, read);
    if (events === undefined) return undefined;
    const decided = decideInTurn(await viewOf(stream, index, events), [
      { events, expectedLastSeq: head },
    ]);
    const outcome = decided.outcomes[0]!;
    if ('error' in outcome) {
      // Another process sharing the index file moved it since the read: read again.
      if (!isMemoryError(outcome.error, 'EXPECTED_SEQ_MISMATCH')) throw outcome.error;
    } else if (decided.toWrite.length === 0) {
      return outcome.stored;
    } else if (await writeAndIndex(stream, index, decided)) {
      return outcome.stored;
    }
    await pauseAfterLosing(attempt);
  }
  throw keptMoving(stream, attempts);
}

/**
 * Writes what a turn decided at the seq it decided at and records it in the index; false when
 * another process moved the stream first. The stream then holds exactly these events (see
 * eventstoredb.write.ts); another process resetting the shared index file meanwhile makes the
 * index read them instead.
 */
async function writeAndIndex(
  stream: EsdbStream,
  index: IdIndex,
  { toWrite, lastSeq }: TurnDecision,
): Promise<boolean> {
  if (!(await write(stream, toWrite, lastSeq))) return false;
  if (!index.appended(lastSeq, toWrite)) await catchUp(stream, index);
  return true;
}

/** Other processes moved the stream under every one of `attempts`. */
function keptMoving(stream: EsdbStream, attempts: number): MemoryError {
  return new MemoryError(
    'APPEND_CONFLICT',
    `Memory ${stream.memoryId} kept moving under ${attempts} append attempts; try again.`,
    { details: { memoryId: stream.memoryId, attempts } },
  );
}

/**
 * Runs the guard. The first attempt is optimistic: it decides on the index as it stands, without
 * a read, because the append's expected revision makes the server refuse it if the log has moved
 * since — so a write that succeeds was decided on the true log. That holds only for an index this
 * process has checked against the stream once (a file may come from elsewhere), so until then
 * every decision reads first. A refusal by the guard itself may come from a stale index, so it is
 * never reported before a catch-up read and a second decision.
 */
async function decide(
  stream: EsdbStream,
  index: IdIndex,
  batch: readonly AppendRequest[],
  all: readonly MemoryEvent[],
  optimistic: boolean,
): Promise<TurnDecision> {
  if (optimistic && index.verified) {
    try {
      const found = viewOf(stream, index, all);
      const decided = decideInTurn(found instanceof Promise ? await found : found, batch);
      if (decided.outcomes.every((outcome) => 'stored' in outcome)) return decided;
    } catch {
      // Decide again below on the log as it is now; only that answer counts.
    }
  }
  await catchUp(stream, index);
  return decideInTurn(await viewOf(stream, index, all), batch);
}

/**
 * Decides each append in turn on the view its predecessors leave (`indexStoredEvent`, as the
 * command line's import plans its batches): a refusal is that append's answer alone.
 */
function decideInTurn(view: LogView, batch: readonly AppendRequest[]): TurnDecision {
  const [only] = batch;
  if (batch.length === 1 && only) {
    // The usual case, without copying the view.
    try {
      const decision = decideAppend(view, only.events, only.expectedLastSeq);
      return {
        outcomes: [{ stored: decision.stored }],
        toWrite: decision.toWrite,
        lastSeq: view.lastSeq,
      };
    } catch (error) {
      return { outcomes: [{ error }], toWrite: [], lastSeq: view.lastSeq };
    }
  }
  const entries = new Map(view.entries);
  let lastSeq = view.lastSeq;
  const outcomes: AppendOutcome[] = [];
  const toWrite: Sequenced[] = [];
  for (const one of batch) {
    try {
      const decision = decideAppend(
        { memoryId: view.memoryId, lastSeq, entries },
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
  return { outcomes, toWrite, lastSeq: view.lastSeq };
}

/**
 * The guard's view of the log at the index's checkpoint: entries of every id the append names,
 * read in one snapshot of the index. Ids the caller appends again get their stored event, read
 * by revision, for invariant 9; without those (the usual append) the view is ready at once.
 */
function viewOf(
  stream: EsdbStream,
  index: IdIndex,
  events: readonly MemoryEvent[],
): LogView | Promise<LogView> {
  const { lastSeq, entries } = index.view(idsNamedBy(events));
  const view = { memoryId: stream.memoryId, lastSeq, entries };
  for (const event of events) {
    if (entries.has(event.id)) return withStoredEvents(stream, view, events);
  }
  return view;
}

/** Adds to `view` the stored event of each id the append names again (its entries are its own). */
async function withStoredEvents(
  stream: EsdbStream,
  view: LogView & { entries: Map<string, StoredEntry> },
  events: readonly MemoryEvent[],
): Promise<LogView> {
  for (const { id } of events) {
    const entry = view.entries.get(id);
    if (entry === undefined || entry.event !== undefined) continue;
    const event = await readOne(stream, entry.seq);
    if (event?.id !== id) {
      throw new MemoryError(
        'LOG_INVARIANT_VIOLATED',
        `Memory ${stream.memoryId} indexes event ${id} at seq ${entry.seq}, but its stream holds ${event?.id ?? 'nothing'} there.`,
        { details: { memoryId: stream.memoryId, id, seq: entry.seq } },
      );
    }
    view.entries.set(id, { ...entry, event });
  }
  return view;
}

/**
 * Before the next attempt of an append another process beat: none after the first loss, then a
 * random pause of up to 4, 8, then 16 ms, so writers that collided do not collide again in
 * lockstep. Short, because the memory's mutex is held meanwhile: this process's own appends of
 * it wait (and are then written together).
 */
async function pauseAfterLosing(attempt: number): Promise<void> {
  if (attempt < 2) return;
  const ms = Math.random() * Math.min(2 ** attempt, 16);
  await new Promise((resolve) => setTimeout(resolve, ms));
}
