/**
 * Wakes waiting subscribers when a log may have changed. In-process appends call `notify()`;
 * stores that other processes can write to (SQLite) also wake on a poll interval.
 */
export class ChangeNotifier {
  private waiters = new Set<() => void>();
  private changes = 0;

  /** Increases on every `notify()`: take it before a read, wait with it after. */
  get version(): number {
    return this.changes;
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
   * after `pollMs` (when given), or when `signal` aborts.
   */
  waitAfter(version: number, signal?: AbortSignal, pollMs?: number): Promise<void> {
    if (this.changes !== version || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
      if (pollMs !== undefined) timer = setTimeout(done, pollMs);
    });
  }
}
