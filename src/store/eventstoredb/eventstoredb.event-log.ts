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
import { EVENT_TYPE_ALLOWANCE, LIMITS, MemoryError } from '../../core/index.js';
import type { CodecHost, ContentCodec } from '../content-codec.js';
import type { MemoryStore } from '../event-log.port.js';
import { connect, type EventStoreDbStoreOptions } from './eventstoredb.connection.js';
import { eventStoreDbCheckpointArchive } from './eventstoredb.checkpoint-archive.js';
import { IdIndexFile } from './id-index/id-index.file.js';
import { indexedMemory, type IndexedMemory } from './id-index/id-index.js';
import { listMemoryIds } from './eventstoredb.memory-ids.js';
import { streamOf, type EsdbContext } from './eventstoredb.reads.js';
import { eventStoreDbLog, type LogCodec } from './eventstoredb.memory-log.js';
import { checkMemoryId } from '../memory-id.js';

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

  const shared: EsdbShared = {
    context,
    memoryOf,
    description: owned ? `EventStoreDB ${scheme}://${endpoint}` : `EventStoreDB (${endpoint})`,
    async close() {
      if (closed) return;
      closed = true;
      for (const stop of [...context.closers]) stop();
      // A client the caller passed in is theirs to dispose.
      if (owned) await client.dispose().catch(() => undefined);
      idIndex.close();
    },
  };
  return eventStoreDbStore(shared, undefined);
}

/** What every view of one connection shares (the store, and the store with a codec). */
interface EsdbShared {
  readonly context: EsdbContext;
  readonly memoryOf: (memoryId: string) => IndexedMemory;
  readonly description: string;
  close(): Promise<void>;
}

function eventStoreDbStore(shared: EsdbShared, codec: ContentCodec | undefined): MemoryStore {
  const { context, memoryOf } = shared;
  const logOf = (memoryId: string | undefined, logCodec: LogCodec) => {
    const id = checkMemoryId(memoryId);
    return eventStoreDbLog(context, id, memoryOf(id), logCodec);
  };
  // The codec looks up stored events (to start, and for an Erasure's targets) without itself.
  const host: CodecHost = {
    getStored: (memoryId, id) =>
      logOf(memoryId, { codec: undefined, ready: undefined, host }).get(id),
    files: [],
  };
  const ready = codec?.start(host);
  const logCodec: LogCodec = { codec, ready, host };
  let codecClosed = false;
  const store: MemoryStore = {
    description: codec ? `${shared.description}, ${codec.description}` : shared.description,
    log: (memoryId) => logOf(memoryId, logCodec),
    async memoryIds() {
      if (ready) await ready;
      return listMemoryIds(context);
    },
    checkpoints: eventStoreDbCheckpointArchive(context),
    async close() {
      if (ready) await ready.catch(() => undefined);
      try {
        await shared.close();
      } finally {
        if (codec && !codecClosed) {
          codecClosed = true;
          codec.close();
        }
      }
    },
  };
  return codec ? store : { ...store, withCodec: (given) => eventStoreDbStore(shared, given) };
}
