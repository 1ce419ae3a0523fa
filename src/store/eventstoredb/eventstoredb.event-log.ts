/**
 * The EventStoreDB / KurrentDB store (`@eventstore/db-client`): the production adapter.
 *
 * One stream per memory, `memory-<memoryId>`; the stream revision IS the seq (revision 0 =
 * seq 0); the ESDB event id is a content address of the event (eventstoredb.write.ts), the
 * event type is `Message` / `Document` / `Recall` / `Deletion`, and the data is the event's JSON
 * without seq (codec.ts). The guard (eventstoredb.append.ts) runs on an id index in a local
 * SQLite file (id-index/id-index.ts, caught up by eventstoredb.catch-up.ts) and appends with
 * the expected revision it decided at; subscriptions survive outages
 * (eventstoredb.subscription.ts); vendor errors are translated (eventstoredb.errors.ts).
 */
import { EVENT_TYPE_ALLOWANCE, LIMITS, MemoryError, type MemoryEvent } from '../../core/index.js';
import { validateAppendInput, type SizedEventLog } from '../append-input.js';
import type {
  AppendOptions,
  MemoryStore,
  ReadOptions,
  SubscribeOptions,
} from '../event-log.port.js';
import { computedAppendInTurn } from './eventstoredb.append.js';
import { guardedAppend } from './eventstoredb.append-queue.js';
import { connect, type EventStoreDbStoreOptions } from './eventstoredb.connection.js';
import { catchUp } from './eventstoredb.catch-up.js';
import { eventStoreDbCheckpointArchive } from './eventstoredb.checkpoint-archive.js';
import { IdIndexFile } from './id-index/id-index.file.js';
import { indexedMemory, type IndexedMemory } from './id-index/id-index.js';
import { listMemoryIds } from './eventstoredb.memory-ids.js';
import {
  fail,
  decodeTrustedResolved,
  projectResolved,
  projectTrustedResolved,
  readLastSeq,
  readOne,
  readRange,
  streamOf,
  type EsdbContext,
} from './eventstoredb.reads.js';
import { resilientSubscription } from './eventstoredb.subscription.js';
import { checkMemoryId } from '../memory-id.js';
import { resolveReadRange } from '../read-range.js';

export type { EventStoreDbStoreOptions } from './eventstoredb.connection.js';

/** Tuning of {@link openEventStoreDbStore}. */
export interface EventStoreDbStoreExtra {
  /**
   * Guard attempts when other writers keep moving a memory's stream; then `APPEND_CONFLICT`.
   * Only other processes move it (this one's appends of a memory take turns). Two instances
   * writing one memory at full speed make some appends lose many races in a row (`npm run
   * faults -- --only shared-esdb` saw more than 10), so the budget is generous.
   * @defaultValue 100
   */
  readonly maxAppendAttempts?: number;
  /**
   * First pause before a dropped subscription subscribes again; it doubles per failed attempt,
   * up to 5 s.
   * @defaultValue 250
   */
  readonly resubscribeDelayMs?: number;
  /**
   * Stream name prefix: memory `x` lives in `${streamPrefix}x`. Change it only to give several
   * independent stores (tenants, test runs) one server.
   * @defaultValue 'memory-'
   */
  readonly streamPrefix?: string;
  /**
   * `host:port` named in descriptions and `STORE_UNAVAILABLE` messages when a client is given
   * (a client does not reveal where it connects).
   * @defaultValue 'caller-supplied client'
   */
  readonly endpoint?: string;
  /**
   * Where the id index lives (what the append guard and `get(id)` know of every id, and each
   * memory's checkpoint): a SQLite file path, its folder created when missing, or `:memory:` for
   * one private to this store, rebuilt by reading each memory's stream on first use. A file
   * survives restarts, so a reopened store reads only the events after its checkpoint; several
   * processes may share one file. Give one file one server (cluster): a checkpoint the stream
   * does not hold makes that memory's index rebuild, but it is derived data, never a record.
   * @defaultValue ':memory:'
   */
  readonly idIndex?: string;
  /**
   * How long the id index rows of an append wait for others to be written (and, in a file,
   * committed) with them, in milliseconds; 0 writes each at once. Meanwhile the guard decides on
   * them in process memory (at most 100 rows per memory). A burst of appends then costs the
   * index one statement per memory and the file one commit, not several each; a crash loses at
   * most that window of index rows, which the next catch-up reads from the stream again. Once
   * another process is seen committing to the same file, this store's rows are written and
   * committed at once (src/db/delayed-commit.ts).
   * @defaultValue 5
   */
  readonly idIndexCommitDelayMs?: number;
  /**
   * The server's maximum append size in bytes (KurrentDB/EventStoreDB `MaxAppendSize`). Every
   * append must fit in it, counted as memledger counts sizes (each event's JSON plus 16 bytes
   * for its type; the server counts no more), and every event must fit alone: larger ones are
   * refused with `EVENT_TOO_LARGE` before anything is sent. When the server refuses an append
   * as too large, the limit it names replaces a larger one given here.
   * @defaultValue 1048576 (1 MiB, the server's default up to EventStoreDB 24.10)
   */
  readonly maxAppendBytes?: number;
  /**
   * Deadline of each append in milliseconds. An append the server has not completed by then
   * fails with `STORE_UNAVAILABLE` naming the deadline; retrying it is safe (appends are
   * idempotent by event id). Reads stream without a deadline, as the client makes them.
   * @defaultValue 10000
   */
  readonly deadlineMs?: number;
}

/** Opens a store on EventStoreDB / KurrentDB. Connecting is lazy: the first call connects. */
export function openEventStoreDbStore(
  options: EventStoreDbStoreOptions,
  extra: EventStoreDbStoreExtra = {},
): MemoryStore {
  const streamPrefix = extra.streamPrefix ?? 'memory-';
  if (streamPrefix.length === 0 || streamPrefix.startsWith('$')) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid EventStoreDB stream prefix ${JSON.stringify(streamPrefix)}: it must be non-empty and not start with $.`,
    );
  }
  const { client, owned, endpoint, scheme, secrets } = connect(options, extra.endpoint);
  let idIndex: IdIndexFile;
  try {
    idIndex = new IdIndexFile(extra.idIndex ?? ':memory:', extra.idIndexCommitDelayMs);
  } catch (error) {
    if (owned) void client.dispose().catch(() => undefined);
    throw error;
  }
  let closed = false;
  const maxAppendBytes = Math.trunc(extra.maxAppendBytes ?? LIMITS.appendBytes.eventstoredb);
  if (!(maxAppendBytes > EVENT_TYPE_ALLOWANCE) || !Number.isSafeInteger(maxAppendBytes)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid EventStoreDB maxAppendBytes ${String(extra.maxAppendBytes)}: it must be an integer over ${EVENT_TYPE_ALLOWANCE}.`,
    );
  }
  const context: EsdbContext = {
    client,
    endpoint,
    secrets,
    streamPrefix,
    maxAppendAttempts: Math.max(1, Math.trunc(extra.maxAppendAttempts ?? 100)),
    resubscribeDelayMs: Math.max(1, extra.resubscribeDelayMs ?? 250),
    deadlineMs: Math.max(1, Math.trunc(extra.deadlineMs ?? 10_000)),
    limits: {
      store: `EventStoreDB at ${endpoint}`,
      eventBytes: maxAppendBytes - EVENT_TYPE_ALLOWANCE,
      appendBytes: maxAppendBytes,
    },
    closers: new Set(),
    isClosed: () => closed,
    ensureOpen() {
      if (closed) {
        throw new MemoryError('STORE_CLOSED', `The EventStoreDB store at ${endpoint} is closed.`);
      }
    },
  };
  const memories = new Map<string, IndexedMemory>();
  const memoryOf = (memoryId: string) => {
    let found = memories.get(memoryId);
    if (found === undefined) {
      found = indexedMemory(idIndex, memoryId, streamOf(context, memoryId).streamName);
      memories.set(memoryId, found);
    }
    return found;
  };

  return {
    description: owned ? `EventStoreDB ${scheme}://${endpoint}` : `EventStoreDB (${endpoint})`,
    log(memoryId) {
      const id = checkMemoryId(memoryId);
      return eventStoreDbLog(context, id, memoryOf(id));
    },
    memoryIds: () => listMemoryIds(context),
    checkpoints: eventStoreDbCheckpointArchive(context),
    async close() {
      if (closed) return;
      closed = true;
      for (const stop of [...context.closers]) stop();
      // A client the caller passed in is theirs to dispose.
      if (owned) await client.dispose().catch(() => undefined);
      idIndex.close();
    },
  };
}

function eventStoreDbLog(
  context: EsdbContext,
  memoryId: string,
  memory: IndexedMemory,
): SizedEventLog {
  const stream = streamOf(context, memoryId);
  return {
    memoryId,
    get limits() {
      return context.limits;
    },
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      const events = validateAppendInput(input, context.limits);
      context.ensureOpen();
      try {
        return await guardedAppend(stream, memory, events, options.expectedLastSeq);
      } catch (error) {
        throw fail(stream, error, 'append');
      }
    },
    async appendAtHead(compute, attempts) {
      context.ensureOpen();
      try {
        return await memory.mutex.run(() =>
          computedAppendInTurn(stream, memory, compute, attempts),
        );
      } catch (error) {
        throw fail(stream, error, 'append');
      }
    },
    async *read(options: ReadOptions = {}) {
      resolveReadRange(options, null); // rejects a bad range before any I/O
      // A forwards read to a given seq needs no head: the server ends it where the stream ends.
      // (Catch-ups read this way, so each costs one round trip, not two.)
      const { toSeq, direction = 'forwards' } = options;
      const bounded = toSeq !== undefined && direction === 'forwards';
      const range = resolveReadRange(options, bounded ? toSeq : await readLastSeq(stream));
      const forwards = range.direction === 'forwards';
      const span = range.hi - range.lo + 1;
      if (span <= 0 || range.limit === 0) return;
      yield* readRange(
        stream,
        {
          from: forwards ? range.lo : range.hi,
          count: Math.min(span, range.limit),
          direction: range.direction,
        },
        options.trusted ? decodeTrustedResolved : undefined,
      );
    },
    async *readProjected(options = {}) {
      const { toSeq } = options;
      const range = resolveReadRange(
        { ...options, direction: 'forwards' },
        toSeq ?? (await readLastSeq(stream)),
      );
      const span = range.hi - range.lo + 1;
      if (span <= 0 || range.limit === 0) return;
      yield* readRange(
        stream,
        { from: range.lo, count: Math.min(span, range.limit), direction: 'forwards' },
        options.trusted ? projectTrustedResolved : projectResolved,
      );
    },
    async get(id) {
      context.ensureOpen();
      const key = id.toLowerCase();
      try {
        // The index answers where the id is; only that one revision is read.
        await memory.mutex.run(() => catchUp(stream, memory.index));
        const entry = memory.index.entry(key);
        if (entry === undefined) return undefined;
        const event = await readOne(stream, entry.seq);
        if (event?.id !== key) {
          throw new MemoryError(
            'LOG_INVARIANT_VIOLATED',
            `Memory ${memoryId} indexes event ${key} at seq ${entry.seq}, but its stream holds ${event?.id ?? 'nothing'} there.`,
            { details: { memoryId, id: key, seq: entry.seq } },
          );
        }
        return event;
      } catch (error) {
        throw fail(stream, error, 'get');
      }
    },
    async lastSeq() {
      return readLastSeq(stream);
    },
    subscribe(options: SubscribeOptions = {}) {
      context.ensureOpen();
      const fromSeq = options.fromSeq ?? 0;
      if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) {
        throw new MemoryError(
          'VALIDATION_FAILED',
          `Invalid subscribe: fromSeq must be an integer of 0 or more, got ${fromSeq}.`,
          { issues: [{ path: 'fromSeq', message: 'must be an integer of 0 or more' }] },
        );
      }
      return resilientSubscription(stream, fromSeq, options.signal);
    },
  };
}
