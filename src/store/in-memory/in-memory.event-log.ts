/**
 * The in-memory store: for tests and ephemeral runs. Appends run the guard and write in one
 * synchronous step, so they are atomic with respect to every other call.
 */
import {
  decideAppend,
  indexStoredEvent,
  MemoryError,
  type MemoryEvent,
  type Sequenced,
  type StoredEntry,
} from '../../core/index.js';
import { DEFAULT_APPEND_LIMITS, type SizedEventLog } from '../append-input.js';
import { catchUpThenLive } from '../catch-up-subscription.js';
import { ChangeFeed } from '../change-notifier.js';
import {
  decodeEach,
  decodeProjected,
  appendThrough,
  type CodecHost,
  type ContentCodec,
} from '../content-codec.js';
import type {
  AppendOptions,
  MemoryStore,
  ReadOptions,
  SubscribeOptions,
} from '../event-log.port.js';
import { storedFormOfEvent } from '../codec.js';
import { checkMemoryId } from '../memory-id.js';
import { resolveReadRange } from '../read-range.js';

interface MemoryLog {
  readonly events: Sequenced[];
  readonly entries: Map<string, StoredEntry>;
}

/** Opens an empty in-memory store. */
export function openInMemoryStore(): MemoryStore {
  const memories = new Map<string, MemoryLog>();
  // Every writer is in this process: wake-ups come from appends, never from a timer.
  const changes = new ChangeFeed(undefined);
  let closed = false;
  const shared: Shared = {
    memory(memoryId) {
      if (closed) throw new MemoryError('STORE_CLOSED', 'The in-memory store is closed.');
      let found = memories.get(memoryId);
      if (!found) {
        found = { events: [], entries: new Map() };
        memories.set(memoryId, found);
      }
      return found;
    },
    memoryIds: () =>
      [...memories]
        .filter(([, m]) => m.events.length > 0)
        .map(([id]) => id)
        .sort(),
    changes,
    isClosed: () => closed,
    close() {
      closed = true;
      changes.close();
    },
  };
  return inMemoryStore(shared, undefined);
}

/** What every view of one in-memory store shares (the store, and the store with a codec). */
interface Shared {
  memory(memoryId: string): MemoryLog;
  memoryIds(): string[];
  readonly changes: ChangeFeed;
  readonly isClosed: () => boolean;
  close(): void;
}

/** What the logs of one view share. */
interface LogContext extends Shared {
  readonly codec: ContentCodec | undefined;
  readonly ready: Promise<unknown> | undefined;
  readonly host: CodecHost;
}

function inMemoryStore(shared: Shared, codec: ContentCodec | undefined): MemoryStore {
  const stored = (memoryId: string, id: string) =>
    Promise.resolve(shared.memory(memoryId).entries.get(id.toLowerCase())?.event);
  const host: CodecHost = { getStored: stored, files: [] };
  const ready = codec?.start(host);
  const context: LogContext = { ...shared, codec, ready, host };
  let codecClosed = false;
  const store: MemoryStore = {
    description: codec ? `in-memory, ${codec.description}` : 'in-memory',
    log(memoryId) {
      return inMemoryLog(checkMemoryId(memoryId), context);
    },
    async memoryIds() {
      if (ready) await ready;
      return shared.memoryIds();
    },
    async close() {
      if (ready) await ready.catch(() => undefined);
      shared.close();
      if (codec && !codecClosed) {
        codecClosed = true;
        codec.close();
      }
    },
  };
  return codec ? store : { ...store, withCodec: (given) => inMemoryStore(shared, given) };
}

function inMemoryLog(memoryId: string, ctx: LogContext): SizedEventLog {
  const { codec, ready } = ctx;
  const open = () => ctx.memory(memoryId);
  const lastSeqOf = (m: MemoryLog) => (m.events.length === 0 ? null : m.events.length - 1);
  const limits = DEFAULT_APPEND_LIMITS;
  const plain = <E extends Sequenced>(events: E[]): E[] =>
    codec ? codec.decode(memoryId, events) : events;
  /** The events of a range as the store keeps them. */
  async function* storedRange(options: ReadOptions) {
    if (ready) await ready;
    const m = open();
    const range = resolveReadRange(options, lastSeqOf(m));
    const step = range.direction === 'forwards' ? 1 : -1;
    let seq = range.direction === 'forwards' ? range.lo : range.hi;
    for (let n = 0; n < range.limit && seq >= range.lo && seq <= range.hi; n++, seq += step) {
      yield m.events[seq]!;
    }
  }
  async function* withStoredForm(events: AsyncIterable<Sequenced>) {
    // Events are kept as appended, in the current schema version: that is their stored form.
    for await (const event of events) yield { event, stored: storedFormOfEvent(event) };
  }
  return {
    memoryId,
    limits: codec ? codec.limits(limits) : limits,
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      const { decision, events } = await appendThrough(
        codec,
        memoryId,
        input,
        { limits, host: ctx.host, ready },
        (encoded) => {
          const m = open();
          // Idempotency compares the stored forms: sealing is deterministic for one item and one
          // content (src/keys/content-seal.ts), so the same words seal to the same bytes.
          const decided = decideAppend(
            { memoryId, lastSeq: lastSeqOf(m), entries: m.entries },
            encoded.stored,
            options.expectedLastSeq,
          );
          for (const event of decided.toWrite) {
            m.events.push(event);
            indexStoredEvent(m.entries, event, true);
          }
          return decided;
        },
      );
      if (decision.toWrite.length > 0) ctx.changes.of(memoryId).notify();
      return events;
    },
    read: (options: ReadOptions = {}) => decodeEach(codec, memoryId, storedRange(options)),
    readProjected(options = {}) {
      const range = { ...options, direction: 'forwards' as const };
      // Without a codec the events are read as this log reads them (a traced log traces it).
      const events = codec ? storedRange(range) : this.read(range);
      return decodeProjected(codec, memoryId, withStoredForm(events));
    },
    async get(id) {
      if (ready) await ready;
      const event = open().entries.get(id.toLowerCase())?.event;
      return event && plain([event])[0];
    },
    async lastSeq() {
      if (ready) await ready;
      return lastSeqOf(open());
    },
    subscribe(options: SubscribeOptions = {}) {
      const m = open();
      return catchUpThenLive(
        {
          page: async (fromSeq, max) => {
            if (ready) await ready;
            return plain(m.events.slice(fromSeq, fromSeq + max));
          },
          changes: ctx.changes,
          memoryId,
          isClosed: ctx.isClosed,
        },
        options.fromSeq ?? 0,
        options.signal,
      );
    },
  };
}
