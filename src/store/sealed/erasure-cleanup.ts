/**
 * The last step of an erasure: the files that held the erased words are scrubbed of every page
 * image from before it (src/db/wal-scrub.ts). The key store records each erasure's clean-up as
 * pending in the very transaction that destroys its keys, and the record is dropped only once
 * every file was scrubbed after it: a crash, or a reader holding an old snapshot, leaves the
 * record behind, and the next open (or the retries) finishes the job.
 */
import { walHoldsFrames, type WalScrubber } from '../../db/wal-scrub.js';
import type { KeyStore, PendingCleanup } from '../../keys/index.js';

/** Whether an erasure's words are gone from disk, or why not yet. */
export type ErasureCleanupStatus =
  | { readonly state: 'done' }
  | {
      readonly state: 'pending';
      /** Why the scrub could not complete yet, e.g. a reader holds an older snapshot. */
      readonly reason: string;
      /** Since when it has been pending (UTC ISO-8601). */
      readonly since: string;
    };

/** What the clean-up looked like when the store opened. */
export interface CleanupOnOpen {
  /** Clean-ups a stopped process left pending, found on open. */
  readonly leftPending: number;
  /** Files whose write-ahead log held frames on open (possibly from before an erasure). */
  readonly filesWithFrames: readonly string[];
  /** The status once the open-time scrub ran. */
  readonly status: ErasureCleanupStatus;
}

/** Pending clean-ups, for `/metrics` and `memledger verify`. */
export interface CleanupBacklog {
  readonly erasures: number;
  /** Seconds since the oldest pending clean-up was recorded (0 when none). */
  readonly oldestSeconds: number;
}

/** The erasure clean-up of one sealed store: its key store and every file holding words. */
export class ErasureCleanup {
  private readonly files = new Set<WalScrubber>();
  /** Bumped by every scrub request; a file's entry is the request its last completed scrub covered. */
  private generation = 0;
  private readonly doneAt = new Map<WalScrubber, number>();
  /** The request generation each known pending clean-up must see every file scrubbed after. */
  private readonly awaiting = new Map<string, { cleanup: PendingCleanup; generation: number }>();
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly keys: KeyStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.watch(keys.wal);
  }

  /** Adds a file that can hold erased words (the store's, or a read-model file). */
  watch(file: WalScrubber): void {
    if (this.files.has(file)) return;
    this.files.add(file);
    this.doneAt.set(file, -1);
    this.stops.push(file.onDone(() => this.completed(file)));
  }

  /**
   * Scrubs every file now where nothing stands in the way, and schedules retries where something
   * does; answers whether every pending clean-up is complete. Call it after an erasure's keys
   * are destroyed and its words dropped from the read models.
   */
  scrub(): ErasureCleanupStatus {
    const generation = ++this.generation;
    for (const cleanup of this.keys.pendingCleanups()) {
      const key = keyOf(cleanup);
      if (!this.awaiting.has(key)) this.awaiting.set(key, { cleanup, generation });
    }
    // Marked before the attempt: a file done at once reports it through its listener.
    for (const file of this.files) file.request();
    this.dropCompleted();
    return this.status();
  }

  /**
   * On open: scrubs when a stopped process left a clean-up pending or any file's WAL holds
   * frames (a crash may have come between an erasure's commit and its scrub).
   */
  onOpen(paths: readonly { readonly wal: WalScrubber; readonly path: string }[]): CleanupOnOpen {
    const leftPending = this.keys.pendingCleanups().length;
    const filesWithFrames = paths.filter((p) => walHoldsFrames(p.path)).map((p) => p.path);
    if (leftPending === 0 && filesWithFrames.length === 0) {
      return { leftPending, filesWithFrames, status: { state: 'done' } };
    }
    return { leftPending, filesWithFrames, status: this.scrub() };
  }

  /** Whether every recorded clean-up is complete, or the oldest reason it is not. */
  status(): ErasureCleanupStatus {
    const pending = this.keys.pendingCleanups();
    if (pending.length === 0) return { state: 'done' };
    const blocked = [...this.files].map((file) => file.pending).find((p) => p !== undefined);
    return {
      state: 'pending',
      reason: blocked?.reason ?? 'the files were not scrubbed since the erasure (they will be)',
      since: pending[0]!.since,
    };
  }

  /** How many clean-ups are pending, and for how long. */
  backlog(): CleanupBacklog {
    const pending = this.keys.pendingCleanups();
    if (pending.length === 0) return { erasures: 0, oldestSeconds: 0 };
    const oldest = Math.min(...pending.map((p) => Date.parse(p.since)));
    return {
      erasures: pending.length,
      oldestSeconds: Math.max(0, (this.now().getTime() - oldest) / 1000),
    };
  }

  /** Resolves once no file has a scrub pending (tests, `memledger verify --finish-cleanup`). */
  async settled(): Promise<void> {
    await Promise.all([...this.files].map((file) => file.settled()));
  }

  /** Stops listening (the files' owners stop their own retries when they close). */
  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private completed(file: WalScrubber): void {
    this.doneAt.set(file, this.generation);
    this.dropCompleted();
  }

  /** Drops the records of clean-ups every file was scrubbed after. */
  private dropCompleted(): void {
    const covered = Math.min(...[...this.doneAt.values()]);
    const done = [...this.awaiting.values()].filter((a) => a.generation <= covered);
    if (done.length === 0) return;
    try {
      this.keys.completeCleanups(done.map((a) => a.cleanup));
    } catch {
      // The key store is closing or unavailable: the records stay, and the next open scrubs.
      return;
    }
    for (const { cleanup } of done) this.awaiting.delete(keyOf(cleanup));
  }
}

const keyOf = (cleanup: PendingCleanup) => `${cleanup.memoryId}\u0000${cleanup.erasureId}`;
