/**
 * Wakes waiting subscribers when a log may have changed. In-process appends call `notify()`;
 * stores that other processes can write to (SQLite) watch for their commits with one
 * {@link ChangeFeed} per store.
 */
export class ChangeNotifier {
  private waiters = new Set<() => void>();
  private changes = 0;

  /** Increases on every `notify()`: take it before a read, wait with it after. */
  get version(): number {
    return this.changes;
  }

  /** Whether anyone waits now. */
  get waiting(): boolean {
    return this.waiters.size > 0;
  }

  /** Wakes every current waiter. */
  notify(): void {
    this.changes++;
    const woken = this.waiters;
    this.waiters = new Set();
    for (const wake of woken) wake();
  }

  /**
   * Resolves once a `notify()` happened after `version` was read (at once if one already has),
   * or when `signal` aborts.
   */
  waitAfter(version: number, signal?: AbortSignal): Promise<void> {
    if (this.changes !== version || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * The notifiers of every memory of one store, and one watch for writers in other processes: a
 * single timer per store that runs only while some subscription waits, and asks the store one
 * cheap question ("did anyone else commit?") per tick. Never a timer per memory.
 */
export class ChangeFeed {
  private readonly notifiers = new Map<string, ChangeNotifier>();
  private waiting = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    /** How often to ask; `undefined`: the store has no writers elsewhere. */
    private readonly pollMs: number | undefined,
    /** True when another process committed since the last call. */
    private readonly changedElsewhere: () => boolean = () => false,
  ) {}

  /** The notifier of one memory. */
  of(memoryId: string): ChangeNotifier {
    let notifier = this.notifiers.get(memoryId);
    if (!notifier) this.notifiers.set(memoryId, (notifier = new ChangeNotifier()));
    return notifier;
  }

  /** Waits for a change of `memoryId` after `version` (see {@link ChangeNotifier.waitAfter}). */
  async waitAfter(memoryId: string, version: number, signal?: AbortSignal): Promise<void> {
    if (++this.waiting === 1 && this.pollMs !== undefined) {
      this.timer = setInterval(() => this.poll(), this.pollMs);
      this.timer.unref();
    }
    try {
      await this.of(memoryId).waitAfter(version, signal);
    } finally {
      if (--this.waiting === 0) this.stopTimer();
    }
  }

  /** Wakes every waiter of every memory (a change elsewhere, or the store closing). */
  notifyAll(): void {
    for (const notifier of this.notifiers.values()) if (notifier.waiting) notifier.notify();
  }

  /** Stops the timer (the store is closing). */
  close(): void {
    this.stopTimer();
    for (const notifier of this.notifiers.values()) notifier.notify();
  }

  private poll(): void {
    try {
      if (this.changedElsewhere()) this.notifyAll();
    } catch {
      // The store closed under the timer: its subscriptions end on their own.
      this.stopTimer();
    }
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
