/**
 * A store whose content is sealed at rest, and so can be erased: an adapter given the sealing
 * codec (src/store/sealed/sealing-codec.ts), which it applies where it encodes and decodes
 * events. Its guard, idempotency and limits see the sealed form; every read path — reads, get,
 * subscriptions, the projections' events — sees plain words, or the erasure marker once an
 * Erasure destroyed the item's key.
 */
import { MemoryError } from '../../core/index.js';
import type { KeyStore } from '../../keys/index.js';
import type { MemoryStore } from '../event-log.port.js';
import type { CleanupOnOpen, ErasureCleanup } from './erasure-cleanup.js';
import { SealingCodec } from './sealing-codec.js';

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
 * `inner`'s adapter with its content sealed with keys from `keys`; `inner` is not used again.
 * The store owns the key store: closing it closes both. Throws `ERASURE_UNAVAILABLE` for a store
 * that takes no codec.
 */
export function sealedStore(inner: MemoryStore, keys: KeyStore): SealedMemoryStore {
  if (!inner.withCodec) {
    throw new MemoryError(
      'ERASURE_UNAVAILABLE',
      `${inner.description} takes no content codec: its content cannot be sealed, so it cannot be erased.`,
      { details: { store: inner.description } },
    );
  }
  const codec = new SealingCodec(keys);
  const store = inner.withCodec(codec);
  return Object.assign(store, { keys, ready: codec.ready, cleanup: codec.cleanup });
}
