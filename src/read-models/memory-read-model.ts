/**
 * One memory's read models: their queries' key and checkpoint, and the live feed of what they
 * applied. They are a projection on the file's runtime (read-models.projection.ts), which alone
 * moves their checkpoint (`advance`). Nothing runs while nobody asks: no timer and no
 * subscription per memory, except one live subscription while someone follows `applied$`.
 */
import { setTimeout as pause } from 'node:timers/promises';
import type { Observable, Subject } from 'rxjs';
import { isMemoryError, type Sequenced } from '../core/index.js';
import type { Progress, ProjectionRuntime } from '../projections/index.js';
import type { EventLog } from '../store/event-log.port.js';
import { NO_ROWS, type ReadModelDb } from './read-model-db.js';
import { rx } from './rx.js';
import { READ_MODELS } from './read-models.projection.js';
import { SEARCHED, VECTOR_WINDOWS } from './search.projection.js';

export type { Progress } from '../projections/index.js';

/**
 * What the read models' queries need current, with the vector windows where registered (cheap,
 * and an Erasure caught up leaves the vectors in the same transaction as the words): the other
 * projections follow on their own.
 */
const NEEDED = [READ_MODELS, VECTOR_WINDOWS];

/** The read models of one memory over its log. */
export class MemoryReadModel {
  private key: number;
  /** Made with the first subscriber (`applied$`): until then nobody listens. */
  private applied: Subject<Sequenced> | undefined;
  private appliedStream: Observable<Sequenced> | undefined;
  private lastEmitted: number;
  private following: AbortController | undefined;
  private readonly stopListening: () => void;

  constructor(
    readonly db: ReadModelDb,
    private readonly log: EventLog,
    private readonly runtime: ProjectionRuntime,
  ) {
    this.key = db.keyOf(log.memoryId);
    this.lastEmitted = this.checkpoint;
    this.stopListening = runtime.onApplied(READ_MODELS, log.memoryId, (events) =>
      this.emit(events),
    );
  }

  /** Every event of the log, in seq order, once the read models hold it (live: from subscription on). */
  get applied$(): Observable<Sequenced> {
    if (this.appliedStream) return this.appliedStream;
    const { Observable, Subject } = rx();
    const applied = (this.applied = new Subject<Sequenced>());
    this.appliedStream = new Observable<Sequenced>((subscriber) => {
      const subscription = applied.subscribe(subscriber);
      if (!this.following) this.follow();
      return () => {
        subscription.unsubscribe();
        if (!applied.observed) this.unfollow();
      };
    });
    return this.appliedStream;
  }

  /** The integer key of this memory in the read-model tables ({@link NO_ROWS} while empty). */
  get mem(): number {
    if (this.key === NO_ROWS) this.key = this.db.keyOf(this.log.memoryId);
    return this.key;
  }

  /** The last applied seq (-1: none). */
  get checkpoint(): number {
    return this.mem === NO_ROWS ? -1 : this.db.checkpoint(this.mem).seq;
  }

  /**
   * The runtime's `advance`: applies everything the log holds now; resolves with the seq reached
   * (the log's head at the time of the call, or later).
   */
  catchUp(progress?: Progress): Promise<number> {
    return this.runtime.advance(this.log.memoryId, {
      needed: NEEDED,
      ...(progress && { progress }),
    });
  }

  /**
   * `advance` of the read models, search and the vector windows (before searching or
   * recalling): resolves with the seq reached, like {@link catchUp}.
   */
  catchUpSearch(): Promise<number> {
    return this.runtime.advance(this.log.memoryId, { needed: SEARCHED });
  }

  /**
   * `advanceWithin` of the read models, search and the vector windows, inside the store's
   * transaction (its write lock held), up to `head`: false, applying nothing, where the runtime
   * cannot (see there).
   */
  catchUpSearchWithin(head: number): boolean {
    return this.runtime.advanceWithin(this.log.memoryId, head, SEARCHED);
  }

  /** Drops this memory's derived rows and applies the whole log again. */
  rebuild(progress?: Progress): Promise<number> {
    return this.runtime.rebuild(this.log.memoryId, progress);
  }

  /** Completes `applied$` and stops listening. */
  stop(): void {
    this.unfollow();
    this.stopListening();
    this.applied?.complete();
  }

  /** Emits applied events in seq order, each once; nothing is kept while nobody listens. */
  private emit(events: readonly Sequenced[]): void {
    for (const event of events) {
      if (!this.applied?.observed) this.lastEmitted = Math.max(this.lastEmitted, event.seq);
      else if (event.seq === this.lastEmitted + 1) {
        this.lastEmitted = event.seq;
        this.applied.next(event);
      }
    }
  }

  /**
   * While someone listens, follows the log so events applied by other processes (sharing the
   * read models' file) are emitted too, and events appended elsewhere are applied.
   */
  private follow(): void {
    const controller = new AbortController();
    this.following = controller;
    this.lastEmitted = Math.max(this.lastEmitted, this.checkpoint);
    const { signal } = controller;
    void (async () => {
      for (;;) {
        try {
          for await (const event of this.log.subscribe({ fromSeq: this.lastEmitted + 1, signal })) {
            if (event.seq <= this.lastEmitted) continue;
            await this.catchUp();
            if (!signal.aborted) this.emit([event]);
          }
          return;
        } catch (error) {
          if (signal.aborted || isMemoryError(error, 'STORE_CLOSED')) return;
          if (!isMemoryError(error, 'STORE_UNAVAILABLE')) {
            this.applied?.error(error);
            return;
          }
          // Aborted with the follow: a stopped follower's pending pause would hold the process.
          await pause(500, undefined, { signal }).catch(() => undefined);
          if (signal.aborted) return;
        }
      }
    })();
  }

  private unfollow(): void {
    this.following?.abort();
    this.following = undefined;
  }
}
