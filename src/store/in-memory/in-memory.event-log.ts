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
import { validateAppendInput } from '../append-input.js';
import { catchUpThenLive } from '../catch-up-subscription.js';
import { ChangeFeed } from '../change-notifier.js';
import type {
  AppendOptions,
  EventLog,
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

  const memory = (memoryId: string): MemoryLog => {
    let found = memories.get(memoryId);
    if (!found) {
      found = { events: [], entries: new Map() };
      memories.set(memoryId, found);
    }
    return found;
  };
  const ensureOpen = () => {
    if (closed) throw new MemoryError('STORE_CLOSED', 'The in-memory store is closed.');
  };

  return {
    description: 'in-memory',
    log(memoryId) {
      const id = checkMemoryId(memoryId);
      return inMemoryLog(
        id,
        () => (ensureOpen(), memory(id)),
        changes,
        () => closed,
      );
    },
    memoryIds() {
      return Promise.resolve(
        [...memories]
          .filter(([, m]) => m.events.length > 0)
          .map(([id]) => id)
          .sort(),
      );
    },
    close() {
      closed = true;
      changes.close();
      return Promise.resolve();
    },
  };
}

function inMemoryLog(
  memoryId: string,
  open: () => MemoryLog,
  changes: ChangeFeed,
  isClosed: () => boolean,
): EventLog {
  const lastSeqOf = (m: MemoryLog) => (m.events.length === 0 ? null : m.events.length - 1);
  return {
    memoryId,
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      const events = validateAppendInput(input);
      const m = open();
      const decision = decideAppend(
        { memoryId, lastSeq: lastSeqOf(m), entries: m.entries },
        events,
        options.expectedLastSeq,
      );
      for (const event of decision.toWrite) {
        m.events.push(event);
        indexStoredEvent(m.entries, event, true);
      }
      if (decision.toWrite.length > 0) changes.of(memoryId).notify();
      return decision.stored;
    },
    async *read(options: ReadOptions = {}) {
      const m = open();
      const range = resolveReadRange(options, lastSeqOf(m));
      const step = range.direction === 'forwards' ? 1 : -1;
      let seq = range.direction === 'forwards' ? range.lo : range.hi;
      for (let n = 0; n < range.limit && seq >= range.lo && seq <= range.hi; n++, seq += step) {
        yield m.events[seq]!;
      }
    },
    async *readProjected(options = {}) {
      // Events are kept as appended, in the current schema version: that is their stored form.
      for await (const event of this.read({ ...options, direction: 'forwards' }))
        yield { event, stored: storedFormOfEvent(event) };
    },
    async get(id) {
      return open().entries.get(id.toLowerCase())?.event;
    },
    async lastSeq() {
      return lastSeqOf(open());
    },
    subscribe(options: SubscribeOptions = {}) {
      const m = open();
      return catchUpThenLive(
        {
          page: (fromSeq, max) => Promise.resolve(m.events.slice(fromSeq, fromSeq + max)),
          changes,
          memoryId,
          isClosed,
        },
        options.fromSeq ?? 0,
        options.signal,
      );
    },
  };
}
