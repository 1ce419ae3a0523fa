/**
 * A store whose content is sealed at rest, and so can be erased: the decorator every adapter
 * gets when a key store is configured (`keys`). Below it, the adapter keeps sealed events as
 * they are (its guard, idempotency and limits see the sealed form); above it, every read path —
 * reads, get, subscriptions, the read models' page loads and append hook — sees plain words,
 * or the erasure marker once an Erasure destroyed the item's key.
 *
 * An erasure is ordered so that a crash anywhere is repaired on the next open:
 * 1. `beginErasure`: the intent (erasure id, targets) is recorded in the key store; keys intact;
 * 2. the Erasure is appended to the log (the guard checks its targets: deleted content);
 * 3. `completeErasure`: the keys are destroyed and tombstoned, the intent dropped.
 * On open, each intent left behind is completed when its Erasure is in the log, and abandoned
 * (keys kept) when it is not: an item is either erased with its Erasure on record, or not
 * erased at all with its key intact.
 */
import {
  MemoryError,
  isContentKind,
  isMemoryError,
  isValidated,
  parseEventOrErased,
  type Erasure,
  type MemoryEvent,
  type Sequenced,
} from '../../core/index.js';
import type { KeyStore } from '../../keys/index.js';
import {
  appendLimitsOf,
  permitErasure,
  type AppendLimits,
  type SizedEventLog,
} from '../append-input.js';
import type { ProjectedEvent } from '../projection.port.js';
import type {
  AppendOptions,
  EmbeddedDatabase,
  EventLog,
  MemoryStore,
  ReadOptions,
  SubscribeOptions,
} from '../event-log.port.js';
import { isSealed, openEvent, openEvents, sealEvents } from './content-sealing.js';
import { ErasureCleanup, type CleanupOnOpen } from './erasure-cleanup.js';
import { PlainHandoff, sealedEmbedded, withSeq } from './sealed-embedded.js';

/** Events a read opens together (the adapters read pages of about this size). */
const OPEN_BATCH = 256;

/** A memory store whose content can be erased (see {@link sealedStore}). */
export interface SealedMemoryStore extends MemoryStore {
  /** The key store holding each item's data key. */
  readonly keys: KeyStore;
  /**
   * Resolves once intents left by a stopped process are repaired and the files scrubbed where a
   * clean-up may not have run (every operation waits for it), with what the scrub on open found.
   */
  readonly ready: Promise<CleanupOnOpen>;
  /** The erasures' clean-up: the files scrubbed of page images from before each erasure. */
  readonly cleanup: ErasureCleanup;
}

/** The key store of a sealed store, or undefined for a store opened without keys. */
export function keyStoreOf(store: MemoryStore): KeyStore | undefined {
  return (store as Partial<SealedMemoryStore>).keys;
}

/** The sealed parts of a store (its clean-up, and what its open found), or undefined. */
export function sealedPartsOf(
  store: MemoryStore,
): Pick<SealedMemoryStore, 'cleanup' | 'ready'> | undefined {
  const sealed = store as Partial<SealedMemoryStore>;
  return sealed.cleanup && sealed.ready
    ? { cleanup: sealed.cleanup, ready: sealed.ready }
    : undefined;
}

/**
 * Seals `inner`'s content with keys from `keys`. The sealed store owns the key store: closing it
 * closes both.
 */
export function sealedStore(inner: MemoryStore, keys: KeyStore): SealedMemoryStore {
  const cleanup = new ErasureCleanup(keys);
  const files = [{ wal: keys.wal, path: keys.path }];
  if (inner.embedded) {
    cleanup.watch(inner.embedded.wal);
    files.push({ wal: inner.embedded.wal, path: inner.embedded.path });
  }
  const ready = repairErasures(inner, keys).then(() => cleanup.onOpen(files));
  // Keep a failed repair from surfacing as an unhandled rejection: every operation re-throws it.
  ready.catch(() => undefined);
  const handoff = new PlainHandoff();
  const embedded = inner.embedded && sealedEmbedded(inner.embedded, keys, handoff);
  const sealed = { keys, ready, embedded: inner.embedded, handoff, cleanup };
  return {
    description: `${inner.description}, content sealed (keys: ${keys.description})`,
    keys,
    ready,
    cleanup,
    log: (memoryId) => sealedLog(inner.log(memoryId), sealed),
    memoryIds: async () => {
      await ready;
      return inner.memoryIds();
    },
    async close() {
      await ready.catch(() => undefined);
      cleanup.close();
      await inner.close();
      keys.close();
    },
    ...(embedded ? { embedded } : {}),
    ...(inner.checkpoints ? { checkpoints: inner.checkpoints } : {}),
  };
}

/** What every sealed log of one store shares. */
interface SealedContext {
  readonly keys: KeyStore;
  readonly ready: Promise<unknown>;
  readonly embedded: EmbeddedDatabase | undefined;
  readonly handoff: PlainHandoff;
  readonly cleanup: ErasureCleanup;
}

function sealedLog(log: EventLog, context: SealedContext): SizedEventLog {
  const { keys, ready, embedded, handoff, cleanup } = context;
  const { memoryId } = log;
  /** A computed append once the key store is ready, its stored events opened. */
  const computedAppend = async (append: () => Promise<readonly Sequenced[] | undefined>) => {
    await ready;
    const stored = await append();
    return stored && openEvents(keys, memoryId, stored);
  };
  return {
    memoryId,
    get limits() {
      return sealedLimits(appendLimitsOf(log));
    },
    async append(input: readonly MemoryEvent[], options: AppendOptions = {}) {
      await ready;
      const events = acceptInput(input);
      const erasures = events.filter((e): e is Erasure => e.kind === 'erasure');
      const sealed = await sealEvents(keys, memoryId, events);
      for (const erasure of erasures) await beginErasure(log, keys, erasure);
      let stored: readonly Sequenced[];
      try {
        const append = () => log.append(sealed.map(permitErasure), options);
        // Only an embedded database has an append hook to hand the words to.
        stored = await (embedded ? handoff.during(memoryId, events, append) : append());
      } catch (error) {
        for (const erasure of erasures) keys.abandonErasure(memoryId, erasure.id);
        throw error;
      }
      for (const erasure of erasures) completeErasure(keys, memoryId, erasure);
      if (erasures.length > 0) cleanup.scrub();
      // One stored event per appended one, in order, with the same id and content (a duplicate
      // is stored sealed with the same key to the same bytes): the caller's words, sequenced.
      return stored.map((event, i) => (isSealed(event) ? withSeq(events[i]!, event.seq) : event));
    },
    // Computed appends (recall) write no content: nothing to seal, only what comes back to open.
    ...(log.appendComputed && {
      appendComputed: (compute: Parameters<NonNullable<EventLog['appendComputed']>>[0]) =>
        computedAppend(() => log.appendComputed!(compute)),
    }),
    ...(log.appendAtHead && {
      appendAtHead: (
        compute: Parameters<NonNullable<EventLog['appendAtHead']>>[0],
        attempts: number,
      ) =>
        computedAppend(() =>
          log.appendAtHead!(
            (lastSeq, read) => compute(lastSeq, openEvents(keys, memoryId, read)),
            attempts,
          ),
        ),
    }),
    async *read(options: ReadOptions = {}) {
      await ready;
      // Opened a batch at a time: one key-store lookup for many events, not one per event.
      let batch: Sequenced[] = [];
      for await (const event of log.read(options)) {
        batch.push(event);
        if (batch.length < OPEN_BATCH) continue;
        yield* openEvents(keys, memoryId, batch);
        batch = [];
      }
      yield* openEvents(keys, memoryId, batch);
    },
    async *readProjected(options = {}) {
      await ready;
      // The stored form stays sealed; the event is opened, a batch per key-store lookup.
      let batch: ProjectedEvent[] = [];
      const opened = function* (events: readonly ProjectedEvent[]) {
        const plain = openEvents(
          keys,
          memoryId,
          events.map((e) => e.event),
        );
        for (const [i, e] of events.entries()) yield { event: plain[i]!, stored: e.stored };
      };
      for await (const projected of log.readProjected(options)) {
        batch.push(projected);
        if (batch.length < OPEN_BATCH) continue;
        yield* opened(batch);
        batch = [];
      }
      yield* opened(batch);
    },
    async get(id: string) {
      await ready;
      const event = await log.get(id);
      return event && openEvent(keys, memoryId, event);
    },
    async lastSeq() {
      await ready;
      return log.lastSeq();
    },
    async *subscribe(options: SubscribeOptions = {}) {
      await ready;
      for await (const event of log.subscribe(options)) yield openEvent(keys, memoryId, event);
    },
  };
}

/**
 * The adapter measures sealed events: the words grow by base64's 4/3 plus the cipher's IV and
 * tag (about 60 bytes an event), so the plain-text limits a caller splits by (the CLI import)
 * are scaled down to what still fits once sealed: 3/4 of an event, 1/1.45 of an append (the
 * per-event overhead weighs most on the smallest events, ~1.4x at 180 bytes).
 */
function sealedLimits(limits: AppendLimits): AppendLimits {
  return {
    store: `${limits.store} (for content sealed at rest)`,
    eventBytes: Math.floor(Math.max(0, limits.eventBytes - 64) * 0.75),
    appendBytes: Number.isFinite(limits.appendBytes)
      ? Math.floor(limits.appendBytes / 1.45)
      : limits.appendBytes,
  };
}

/**
 * Validates what a caller appends, as the adapter would, before anything is sealed. An erased
 * item (an export's marker: words `null`, `erased: true`) is accepted for import: its other
 * fields are checked with placeholder words, and it is stored sealed with no words.
 */
function acceptInput(input: readonly MemoryEvent[]): MemoryEvent[] {
  if (!Array.isArray(input)) return input as MemoryEvent[]; // the adapter names the error
  return input.map((event: unknown) => {
    if (isValidated(event)) return event as MemoryEvent;
    return parseEventOrErased(event);
  });
}

/**
 * Step 1: the intent. A target with no key holds plain text (written before encryption was on)
 * and cannot be erased; an unknown id or a non-content event gets the guard's own error.
 */
async function beginErasure(log: EventLog, keys: KeyStore, erasure: Erasure): Promise<void> {
  const known = keys.lookup(log.memoryId, erasure.targets);
  for (const target of erasure.targets) {
    if (known.has(target)) continue;
    const event = await log.get(target);
    if (event === undefined) {
      throw new MemoryError(
        'ERASURE_TARGET_UNKNOWN',
        `Erasure target ${target} does not exist in memory ${log.memoryId}.`,
        { details: { id: target, memoryId: log.memoryId } },
      );
    }
    if (!isContentKind(event.kind)) {
      throw new MemoryError(
        'ERASURE_TARGET_NOT_CONTENT',
        `Erasure target ${target} is a ${event.kind}, not a message or document: only content is erased.`,
        { details: { id: target, kind: event.kind } },
      );
    }
    if (!isSealed(event)) {
      throw new MemoryError(
        'ERASURE_UNAVAILABLE',
        `Item ${target} of memory ${log.memoryId} was stored in plain text (before encryption was on): it can be deleted, not erased.`,
        { details: { id: target, memoryId: log.memoryId } },
      );
    }
  }
  keys.beginErasure(log.memoryId, erasure.id, erasure.targets);
}

/** Step 3: the keys destroyed (the intent recorded again first, should a repair have dropped it). */
function completeErasure(keys: KeyStore, memoryId: string, erasure: Erasure): void {
  try {
    keys.beginErasure(memoryId, erasure.id, erasure.targets);
  } catch (error) {
    // Already erased: another process's repair completed it. Anything else is a real failure.
    if (!isMemoryError(error, 'ALREADY_ERASED')) throw error;
  }
  keys.completeErasure(memoryId, erasure.id);
}

/** On open: every intent is completed (its Erasure is in the log) or abandoned (it is not). */
async function repairErasures(inner: MemoryStore, keys: KeyStore): Promise<void> {
  for (const pending of keys.pendingErasures()) {
    const erasure = await inner.log(pending.memoryId).get(pending.erasureId);
    if (erasure?.kind === 'erasure') keys.completeErasure(pending.memoryId, pending.erasureId);
    else keys.abandonErasure(pending.memoryId, pending.erasureId);
  }
}
