/**
 * The background side of the vector index: after appends, each memory that was written is
 * caught up (embedded in batches) off the request path, one memory at a time, once appends
 * pause (`quietMs`) or at the latest `maxDelayMs` after the first one waiting, so a burst of
 * appends is not slowed by embedding work in between and is embedded in large batches; a
 * provider that is down is tried again with a growing pause. At start, one sweep walks every memory the read
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
  /** Appends wait to be embedded until none came for this long... @defaultValue 50 */
  readonly quietMs?: number;
  /** ...or until the first of them has waited this long. @defaultValue 1000 */
  readonly maxDelayMs?: number;
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
  /** When the last and the first waiting schedule came (epoch ms; 0: none waiting). */
  private lastAt = 0;
  private firstAt = 0;
  /** Someone waits for the follower to be idle: embed without waiting for a pause. */
  private hurry = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly index: VectorIndex,
    private readonly options: VectorFollowerOptions,
  ) {}

  /** Asks for memory `mem` to be caught up soon (appends never wait for it). */
  schedule(mem: number): void {
    if (this.stopped || mem <= 0) return;
    this.due.add(mem);
    this.lastAt = Date.now();
    if (this.firstAt === 0) this.firstAt = this.lastAt;
    if (!this.running && !this.timer) this.wake(this.options.quietMs ?? 50);
  }

  /** Schedules every memory the read models hold, then retires versions no longer needed. */
  sweep(): void {
    this.retire = true;
    for (const mem of this.options.memoryKeys()) this.schedule(mem);
    if (!this.running && !this.timer) this.wake(0);
  }

  /** Resolves once nothing is due or running (tests, shutdown); embeds at once what waits. */
  async idle(): Promise<void> {
    this.hurry = true;
    while (this.running || (this.due.size > 0 && !this.stopped && this.failures === 0)) {
      if (!this.running && this.timer) {
        clearTimeout(this.timer);
        this.wake(0);
      }
      await (this.running ?? new Promise((resolve) => setTimeout(resolve, 1)));
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

  /** Milliseconds to wait before embedding: 0 once appends paused or waited long enough. */
  private waitLeft(): number {
    if (this.firstAt === 0 || this.hurry) return 0;
    const now = Date.now();
    const quiet = (this.options.quietMs ?? 50) - (now - this.lastAt);
    const overdue = (this.options.maxDelayMs ?? 1000) - (now - this.firstAt);
    return Math.max(0, Math.min(quiet, overdue));
  }

  private async drain(): Promise<void> {
    const wait = this.waitLeft();
    if (wait > 0) {
      this.wake(wait);
      return;
    }
    this.firstAt = 0;
    let wrote = 0;
    while (!this.stopped && this.due.size > 0) {
      const mem = this.due.values().next().value!;
      // Taken off before the catch-up: content appended meanwhile, which it may not reach,
      // schedules the memory again.
      this.due.delete(mem);
      try {
        wrote += (await this.index.catchUp(mem, { signal: this.abort.signal })).items;
        this.failures = 0;
      } catch (error) {
        this.due.add(mem);
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
    this.hurry = false;
    if (wrote > 0) this.index.checkpointWrites();
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
