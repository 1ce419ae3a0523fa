/**
 * Feeds a memory's read models from a catch-up subscription to its log: each event applied
 * exactly once, in seq order, with the checkpoint (last applied seq) kept and snapshotted.
 * Read models are never fed by the Nest EventBus, which logs and drops handler errors.
 */
import { Subject, type Observable } from 'rxjs';
import { isMemoryError, MemoryError, type Sequenced } from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';
import type { Projection } from './projection.js';
import type { SnapshotStore } from './snapshot-store.js';

/** Options of {@link ProjectionRunner}. */
export interface ProjectionRunnerOptions {
  /** Where snapshots are loaded from and saved to. @defaultValue none: always fold from zero */
  readonly snapshots?: SnapshotStore;
  /** Save a snapshot every this many applied events. @defaultValue 1000 */
  readonly snapshotEvery?: number;
  /** Wait before re-subscribing after the store became unavailable. @defaultValue 500 */
  readonly retryMs?: number;
}

interface Waiter {
  readonly seq: number;
  resolve(): void;
  reject(error: Error): void;
}

/** Runs a set of projections over one memory's log. */
export class ProjectionRunner {
  private lastApplied: number | null = null;
  private lastEventId: string | null = null;
  private sinceSnapshot = 0;
  private waiters: Waiter[] = [];
  private failure: Error | undefined;
  private readonly abort = new AbortController();
  private readonly applied = new Subject<Sequenced>();
  private loop: Promise<void> | undefined;
  /** Where the runner started: the snapshot's checkpoint, or null when it folded from zero. */
  resumedFrom: number | null = null;

  constructor(
    private readonly log: EventLog,
    private readonly projections: readonly Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {}

  /** Every event as it is applied (after all projections saw it). */
  get applied$(): Observable<Sequenced> {
    return this.applied.asObservable();
  }

  /** The seq of the last applied event; null before the first. */
  get checkpoint(): number | null {
    return this.lastApplied;
  }

  /** Loads a verified snapshot (if any) and starts following the log. */
  async start(): Promise<void> {
    if (this.loop) return;
    await this.restoreSnapshot();
    this.loop = this.follow();
  }

  /** Resolves once the event with `seq` has been applied (at once if it already has). */
  waitFor(seq: number | null): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (seq === null || (this.lastApplied !== null && this.lastApplied >= seq))
      return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /** Resolves once every event the log holds now has been applied. */
  async catchUp(): Promise<void> {
    await this.waitFor(await this.log.lastSeq());
  }

  /** Stops following, saves a final snapshot, completes `applied$`. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.saveSnapshot();
    this.applied.complete();
    this.rejectWaiters(
      new MemoryError('STORE_CLOSED', `Projections of memory ${this.log.memoryId} stopped.`),
    );
  }

  private async follow(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        const fromSeq = this.lastApplied === null ? 0 : this.lastApplied + 1;
        for await (const event of this.log.subscribe({ fromSeq, signal })) this.applyOne(event);
        return;
      } catch (error) {
        if (signal.aborted || isMemoryError(error, 'STORE_CLOSED')) return;
        if (!isMemoryError(error, 'STORE_UNAVAILABLE')) {
          this.failure = error as Error;
          this.rejectWaiters(this.failure);
          return;
        }
        await new Promise((r) => setTimeout(r, this.options.retryMs ?? 500));
      }
    }
  }

  private applyOne(event: Sequenced): void {
    // The subscription promises no gap or duplicate; a runner that saw one would fold wrong.
    const expected = this.lastApplied === null ? 0 : this.lastApplied + 1;
    if (event.seq < expected) return;
    for (const projection of this.projections) projection.apply(event);
    this.lastApplied = event.seq;
    this.lastEventId = event.id;
    this.applied.next(event);
    this.waiters = this.waiters.filter((w) => (w.seq <= event.seq ? (w.resolve(), false) : true));
    if (++this.sinceSnapshot >= (this.options.snapshotEvery ?? 1000)) void this.saveSnapshot();
  }

  private rejectWaiters(error: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private async restoreSnapshot(): Promise<void> {
    const snapshot = await this.options.snapshots?.load(this.log.memoryId);
    if (!snapshot) return;
    const atCheckpoint = await this.log.get(snapshot.lastEventId);
    if (atCheckpoint?.seq !== snapshot.checkpoint) return;
    for (const projection of this.projections) {
      if (!(projection.name in snapshot.projections)) return;
    }
    for (const projection of this.projections)
      projection.restore(snapshot.projections[projection.name]);
    this.lastApplied = snapshot.checkpoint;
    this.lastEventId = snapshot.lastEventId;
    this.resumedFrom = snapshot.checkpoint;
  }

  private async saveSnapshot(): Promise<void> {
    const store = this.options.snapshots;
    if (
      !store ||
      this.lastApplied === null ||
      this.lastEventId === null ||
      this.sinceSnapshot === 0
    )
      return;
    this.sinceSnapshot = 0;
    const projections = Object.fromEntries(this.projections.map((p) => [p.name, p.snapshot()]));
    try {
      await store.save({
        format: 1,
        memoryId: this.log.memoryId,
        checkpoint: this.lastApplied,
        lastEventId: this.lastEventId,
        projections,
      });
    } catch {
      // A snapshot only saves time at the next start; failing to write one loses nothing.
      this.sinceSnapshot = 1;
    }
  }
}
