/**
 * Content sealed at rest, as the codec an adapter applies (src/store/content-codec.ts): each
 * item's words are sealed with its own data key on the way in and opened on the way out, or
 * read as erased once an Erasure destroyed the key. The codec owns the key store.
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
  deepFreeze,
  isContentKind,
  isMemoryError,
  markValidated,
  type Erasure,
  type MemoryEvent,
  type Sequenced,
} from '../../core/index.js';
import type { KeyStore } from '../../keys/index.js';
import type { AppendLimits } from '../append-input.js';
import type { CodecHost, ContentCodec, EncodedAppend } from '../content-codec.js';
import { isSealed, openEvents, sealEvents } from './content-sealing.js';
import { ErasureCleanup, type CleanupOnOpen } from './erasure-cleanup.js';

/** The sealing codec over one key store. */
export class SealingCodec implements ContentCodec {
  /** The erasures' clean-up: the files scrubbed of page images from before each erasure. */
  readonly cleanup: ErasureCleanup;
  readonly description: string;
  #ready: Promise<CleanupOnOpen> | undefined;

  constructor(readonly keys: KeyStore) {
    this.cleanup = new ErasureCleanup(keys);
    this.description = `content sealed (keys: ${keys.description})`;
  }

  /** What {@link start} resolves with: what the scrub on open found. */
  get ready(): Promise<CleanupOnOpen> {
    if (!this.#ready)
      throw new MemoryError('STORE_FAILED', 'The sealing codec was not started by a store.');
    return this.#ready;
  }

  start(host: CodecHost): Promise<CleanupOnOpen> {
    if (this.#ready) return this.#ready;
    for (const file of host.files) this.cleanup.watch(file.wal);
    const files = [{ wal: this.keys.wal, path: this.keys.path }, ...host.files];
    this.#ready = repairErasures(host, this.keys).then(() => this.cleanup.onOpen(files));
    // Keep a failed repair from surfacing as an unhandled rejection: every operation re-throws it.
    this.#ready.catch(() => undefined);
    return this.#ready;
  }

  limits(stored: AppendLimits): AppendLimits {
    return sealedLimits(stored);
  }

  async encode(
    memoryId: string,
    events: readonly MemoryEvent[],
    host: CodecHost,
  ): Promise<EncodedAppend> {
    const { keys } = this;
    const erasures = events.filter((e): e is Erasure => e.kind === 'erasure');
    const stored = await sealEvents(keys, memoryId, events);
    const begun: Erasure[] = [];
    try {
      for (const erasure of erasures) {
        await beginErasure(host, keys, memoryId, erasure);
        begun.push(erasure);
      }
    } catch (error) {
      for (const erasure of begun) keys.abandonErasure(memoryId, erasure.id);
      throw error;
    }
    const plainById = new Map(events.map((event) => [event.id, event]));
    return {
      stored,
      // A duplicate is stored sealed with the same key to the same bytes: the caller's words.
      plainOf: (event) => {
        if (!isSealed(event)) return event;
        const plain = plainById.get(event.id);
        return plain ? withSeq(plain, event.seq) : openEvents(keys, memoryId, [event])[0]!;
      },
      settle: (committed) => {
        if (!committed) {
          for (const erasure of erasures) keys.abandonErasure(memoryId, erasure.id);
          return;
        }
        for (const erasure of erasures) completeErasure(keys, memoryId, erasure);
        if (erasures.length > 0) this.cleanup.scrub();
      },
    };
  }

  decode<E extends Sequenced>(memoryId: string, events: readonly E[]): E[] {
    return openEvents(this.keys, memoryId, events);
  }

  close(): void {
    this.cleanup.close();
    this.keys.close();
  }
}

/** A frozen, validated copy of a plain event with the seq the store gave it. */
const withSeq = (event: MemoryEvent, seq: number): Sequenced =>
  markValidated(deepFreeze({ ...event, seq }));

/**
 * The adapter measures sealed events: the words grow by base64's 4/3 plus the cipher's IV and
 * tag, so the plain-text limits a caller splits by (the CLI import) are scaled down to what
 * still fits once sealed; the per-event overhead weighs most on the smallest events.
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
 * Step 1: the intent. A target with no key holds plain text (written before encryption was on)
 * and cannot be erased; an unknown id or a non-content event gets the guard's own error.
 */
async function beginErasure(
  host: CodecHost,
  keys: KeyStore,
  memoryId: string,
  erasure: Erasure,
): Promise<void> {
  const known = keys.lookup(memoryId, erasure.targets);
  for (const target of erasure.targets) {
    if (known.has(target)) continue;
    const event = await host.getStored(memoryId, target);
    if (event === undefined) {
      throw new MemoryError(
        'ERASURE_TARGET_UNKNOWN',
        `Erasure target ${target} does not exist in memory ${memoryId}.`,
        { details: { id: target, memoryId } },
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
        `Item ${target} of memory ${memoryId} was stored in plain text (before encryption was on): it can be deleted, not erased.`,
        { details: { id: target, memoryId } },
      );
    }
  }
  keys.beginErasure(memoryId, erasure.id, erasure.targets);
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
async function repairErasures(host: CodecHost, keys: KeyStore): Promise<void> {
  for (const pending of keys.pendingErasures()) {
    const erasure = await host.getStored(pending.memoryId, pending.erasureId);
    if (erasure?.kind === 'erasure') keys.completeErasure(pending.memoryId, pending.erasureId);
    else keys.abandonErasure(pending.memoryId, pending.erasureId);
  }
}
