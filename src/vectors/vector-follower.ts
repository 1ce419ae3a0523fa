/**
 * The background side of the vector index: after appends, each memory that was written is
 * caught up (embedded in batches) off the request path, one memory at a time; a provider that is
 * down is tried again with a growing pause. At start, one sweep walks every memory the read
 * models hold (a model change builds its version in every memory), then retires the versions
 * of models no longer configured. Timers are unref'd: they never keep a process alive.
 */
import { isMemoryError } from '../core/index.js';
import type { VectorIndex } from './vector-index.js';

/** Options of {@link VectorFollower}. */
export interface VectorFollowerOptions {
  /** Where the follower reports a failure or a finished build. */
  readonly onNotice: (notice: string) => void;
  /** The memory keys the read models hold (for the sweep). */
  readonly memoryKeys: () => number[];
  /** First pause after a failure; doubles up to a minute. @defaultValue 1000 */
  readonly retryMs?: number;
}

/** Catches memories up in the background. */
export class VectorFollower {
  private readonly due = new Set<number>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  /** A sweep asked for old versions to be retired once every memory is caught up. */
  private retire = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly index: VectorIndex,
    private readonly options: VectorFollowerOptions,
  ) {}

  /** Asks for memory `mem` to be caught up soon (appends never wait for it). */
  schedule(mem: number): void {
    if (this.stopped || mem <= 0) return;
    this.due.add(mem);
    if (!this.running && !this.timer) this.wake(0);
  }

  /** Schedules every memory the read models hold, then retires versions no longer needed. */
  sweep(): void {
    this.retire = true;
    for (const mem of this.options.memoryKeys()) this.schedule(mem);
    if (!this.running && !this.timer) this.wake(0);
  }

  /** Resolves once nothing is due or running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running || (this.due.size > 0 && !this.stopped && this.failures === 0)) {
      await (this.running ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  /** Stops following; an embedding call in flight is aborted. */
  stop(): void {
    this.stopped = true;
    this.abort.abort();
    clearTimeout(this.timer);
    this.due.clear();
  }

  private wake(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.drain().finally(() => {
        this.running = undefined;
      });
    }, ms);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.due.size > 0) {
      const mem = this.due.values().next().value!;
      try {
        await this.index.catchUp(mem, { signal: this.abort.signal });
        this.due.delete(mem);
        this.failures = 0;
      } catch (error) {
        if (this.stopped) return;
        this.failures++;
        const pause = Math.min((this.options.retryMs ?? 1000) * 2 ** (this.failures - 1), 60_000);
        const why = error instanceof Error ? error.message : String(error);
        if (this.failures === 1 || !isMemoryError(error, 'EMBEDDER_UNAVAILABLE'))
          this.options.onNotice(
            `memledger: vectors lag: ${why} Retrying in ${Math.round(pause / 1000)} s.`,
          );
        this.wake(pause);
        return;
      }
    }
    if (this.retire && !this.stopped) this.retireOldVersions();
  }

  private retireOldVersions(): void {
    this.retire = false;
    const dropped = this.index.retireOldVersions(this.options.memoryKeys());
    if (dropped.length > 0)
      this.options.onNotice(
        `memledger: vectors of ${this.index.current.version.model} caught up with every memory; dropped ${dropped.length} older version(s).`,
      );
  }
}
