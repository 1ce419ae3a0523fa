/**
 * One memory's log in the EventStoreDB store: appends through the memory's queue and guard,
 * reads, get and subscriptions, with the store's content codec applied where events are encoded
 * and decoded.
 */
import { MemoryError, type MemoryEvent, type Sequenced } from '../../core/index.js';
import type { SizedEventLog } from '../append-input.js';
import {
  decodeEach,
  decodeProjected,
  appendThrough,
  type CodecHost,
  type ContentCodec,
} from '../content-codec.js';
import type { AppendOptions, ReadOptions, SubscribeOptions } from '../event-log.port.js';
import { computedAppendInTurn } from './eventstoredb.append.js';
import { guardedAppend } from './eventstoredb.append-queue.js';
import { catchUp } from './eventstoredb.catch-up.js';
import type { IndexedMemory } from './id-index/id-index.js';
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
import { resolveReadRange } from '../read-range.js';

/** The codec of a store's logs, and what it waits for. */
export interface LogCodec {
  readonly codec: ContentCodec | undefined;
  readonly ready: Promise<unknown> | undefined;
  readonly host: CodecHost;
}

/** The log of `memoryId`. */
export function eventStoreDbLog(
  context: EsdbContext,
  memoryId: string,
  memory: IndexedMemory,
  { codec, ready, host }: LogCodec,
): SizedEventLog {
  const stream = streamOf(context, memoryId);
  const plain = <E extends Sequenced>(events: readonly E[]): E[] =>
    codec ? codec.decode(memoryId, events) : [...events];
  return {
    memoryId,
    get limits() {
      return codec ? codec.limits(context.limits) : context.limits;
    },
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      const { events } = await appendThrough(
        codec,
        memoryId,
        input,
        { limits: context.limits, host, ready },
        async (encoded) => {
          context.ensureOpen();
          try {
            const at = options.expectedLastSeq;
            return { stored: await guardedAppend(stream, memory, encoded.stored, at) };
          } catch (error) {
            throw fail(stream, error, 'append');
          }
        },
      );
      return events;
    },
    async appendAtHead(compute, attempts) {
      if (ready) await ready;
      context.ensureOpen();
      try {
        const stored = await memory.mutex.run(() =>
          computedAppendInTurn(
            stream,
            memory,
            (lastSeq, read) => compute(lastSeq, plain(read)),
            attempts,
          ),
        );
        return stored && plain(stored);
      } catch (error) {
        throw fail(stream, error, 'append');
      }
    },
    read(options: ReadOptions = {}) {
      return decodeEach(codec, memoryId, storedRead(options));
    },
    readProjected(options = {}) {
      return decodeProjected(codec, memoryId, storedProjected(options));
    },
    async get(id) {
      if (ready) await ready;
      const event = await storedGet(id);
      return event && plain([event])[0];
    },
    async lastSeq() {
      if (ready) await ready;
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
      const events = resilientSubscription(stream, fromSeq, options.signal);
      return codec ? decodeLive(events) : events;
    },
  };

  async function* decodeLive(events: AsyncIterable<Sequenced>) {
    if (ready) await ready;
    for await (const event of events) yield plain([event])[0]!;
  }

  async function* storedRead(options: ReadOptions) {
    if (ready) await ready;
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
  }

  async function* storedProjected(options: Omit<ReadOptions, 'direction'>) {
    if (ready) await ready;
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
  }

  async function storedGet(id: string) {
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
  }
}
