/**
 * The key store port: per-item data keys kept apart from the log, so that destroying one key
 * makes that item's content unrecoverable in every copy of the log (crypto-shredding). It is
 * the one place in memledger where a delete is allowed, and only by an Erasure.
 *
 * An erasure runs in three steps so a crash anywhere is repaired on the next start:
 * `beginErasure` (intent recorded, keys intact) -> the Erasure is appended to the log ->
 * `completeErasure` (keys destroyed). On start, each of `pendingErasures()` is completed when
 * its Erasure is in the log and abandoned when it is not.
 */

import type { WalScrubber } from '../db/wal-scrub.js';

/** The stored state of one item's key: its bytes, or `'erased'` when an Erasure destroyed it. */
export type ItemKey = Buffer | 'erased';

/** An erasure begun and neither completed nor abandoned (its process stopped in between). */
export interface PendingErasure {
  readonly memoryId: string;
  /** The id of the Erasure event the intent announced. */
  readonly erasureId: string;
  readonly targets: readonly string[];
  /** When the intent was recorded (UTC ISO-8601). */
  readonly since: string;
}

/**
 * An erasure whose keys are destroyed while some file may still hold page images from before it
 * (src/store/sealed/erasure-cleanup.ts scrubs them, then drops the record).
 */
export interface PendingCleanup {
  readonly memoryId: string;
  readonly erasureId: string;
  /** When the keys were destroyed (UTC ISO-8601). */
  readonly since: string;
}

/**
 * Per-item data keys of every memory in one key store. Reads are synchronous, like the store
 * decoders; creating keys is asynchronous so concurrent appends share its commit.
 */
export interface KeyStore {
  /** Kind and path, for logs (never key material). */
  readonly description: string;
  /** The key store's file (`:memory:` for one without a file). */
  readonly path: string;
  /**
   * Data keys for these items, created (32 random bytes each) when missing and committed durably
   * before it resolves; existing keys are returned as they are. An item whose key an erasure
   * destroyed rejects with `ALREADY_ERASED` naming it, creating no key of the batch. The
   * requests of one turn of the event loop share one commit (src/db/group-commit.ts), each
   * batch in its own savepoint.
   */
  keysFor(memoryId: string, itemIds: readonly string[]): Promise<Map<string, Buffer>>;
  /**
   * The stored state of each item's key: its bytes, `'erased'` (destroyed by an erasure: a
   * tombstone without key material), or absent from the map (never created: content stored in
   * plain text).
   */
  lookup(memoryId: string, itemIds: readonly string[]): Map<string, ItemKey>;
  /**
   * Records an erasure about to be appended (its event id and targets) before any key is
   * destroyed, durably. Throws `ERASURE_UNAVAILABLE` for a target that has no key (stored in
   * plain text) and `ALREADY_ERASED` for a target another erasure destroyed; calling it again
   * with the same id and targets is a no-op.
   */
  beginErasure(memoryId: string, erasureId: string, targets: readonly string[]): void;
  /**
   * Destroys the targets' keys (rows deleted under secure_delete), writes their tombstones (item
   * id, erasure id, time; no key material), drops the intent and records the erasure's clean-up
   * as pending, all in one transaction; then asks for a scrub of its own file's old page images
   * ({@link wal}: at once, or retried while a reader holds an older snapshot). The store's files
   * (which held the words) are scrubbed by the erasure's clean-up. Idempotent.
   */
  completeErasure(memoryId: string, erasureId: string): void;
  /** Erasures whose clean-up has not completed, oldest first. */
  pendingCleanups(): PendingCleanup[];
  /** Drops the clean-up records of these erasures: every file that held their words is scrubbed. */
  completeCleanups(cleanups: readonly Pick<PendingCleanup, 'memoryId' | 'erasureId'>[]): void;
  /** The key store file's own write-ahead log, scrubbed with the others after an erasure. */
  readonly wal: WalScrubber;
  /** Drops an intent whose Erasure never reached the log: the keys stay. Idempotent. */
  abandonErasure(memoryId: string, erasureId: string): void;
  /** Intents left by a process that stopped between begin and complete/abandon, oldest first. */
  pendingErasures(): PendingErasure[];
  /** Checkpoints (without waiting for readers) and closes; later calls throw `STORE_CLOSED`. Idempotent. */
  close(): void;
}
