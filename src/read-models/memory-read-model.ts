/**
 * One memory's read models, kept current by catch-up: before a query, whatever the log holds
 * past the checkpoint is read and applied, in chunks, each chunk in one transaction with its
 * checkpoint. Nothing runs while nobody asks: no timer and no subscription per memory, except
 * one live subscription while someone follows `applied$`.
 */
import { Observable, Subject } from 'rxjs';
import { isMemoryError, MemoryError, type Sequenced } from '../core/index.js';
import type { EventLog } from '../store/event-log.port.js';
import { GenAiAttr, MemledgerAttr, SpanName } from '../telemetry/semconv.js';
import { traced } from '../telemetry/tracing.js';
import { NO_ROWS, type ReadModelDb } from './read-model-db.js';

/**
 * Events applied per transaction while catching up: large, so a rebuild commits (and, with
 * `synchronous=FULL`, syncs) rarely; between two chunks other work gets the thread.
 */
const CHUNK = 20_000;
/** Most events an append's own transaction catches up before writing (others wait for it). */
const WITHIN_APPEND = 2000;

/** Reports catch-up progress (for `memledger rebuild`): events applied of the log's total. */
export type Progress = (applied: number, total: number) => void;

/** The read models of one memory over its log. */
export class MemoryReadModel {
  private key: number;
  /** Every event of the log, in seq order, once the read models hold it (live: from subscription on). */
  readonly applied$: Observable<Sequenced>;
  private verified = false;
  private running: Promise<number> | undefined;
  private readonly applied = new Subject<Sequenced>();
  private lastEmitted: number;
  private following: AbortController | undefined;
  private readonly stopListening: () => void;

  constructor(
    readonly db: ReadModelDb,
    private readonly log: EventLog,
  ) {
    this.key = db.keyOf(log.memoryId);
    this.lastEmitted = this.checkpoint;
    this.stopListening = db.onApplied(log.memoryId, (events) => this.emit(events));
    this.applied$ = new Observable<Sequenced>((subscriber) => {
      const subscription = this.applied.subscribe(subscriber);
      if (!this.following) this.follow();
      return () => {
        subscription.unsubscribe();
        if (!this.applied.observed) this.unfollow();
      };
    });
  }

  /** The integer key of this memory in the read-model tables ({@link NO_ROWS} while empty). */
  get mem(): number {
    if (this.key === NO_ROWS) this.key = this.db.keyOf(this.log.memoryId);
    return this.key;
  }

  /** The last applied seq (-1: none). */
  get checkpoint(): number {
    return this.db.checkpoint(this.mem).seq;
  }

  /**
   * Applies everything the log holds now; resolves with the checkpoint reached (the log's head
   * at the time of the call, or later). Concurrent calls share one catch-up.
   */
  async catchUp(progress?: Progress): Promise<number> {
    return this.reach((await this.log.lastSeq()) ?? -1, progress);
  }

  /**
   * Applies the log up to `head`, a head the caller has just read itself (a store's append turn,
   * see `EventLog.appendAtHead`), taking the events from `read` (what the caller read on the way
   * there: contiguous, in seq order) when they cover what is missing, else with one read of the
   * log. False, applying nothing, while the read models are not checked against the log yet:
   * that check reads by id, which a caller holding the store's append turn must not wait for.
   */
  async catchUpTo(head: number, read: readonly Sequenced[] = []): Promise<boolean> {
    if (!this.verified) return false;
    while (this.running) await this.running.catch(() => undefined);
    const checkpoint = this.checkpoint;
    if (checkpoint >= head) return true;
    const from = read.findIndex((event) => event.seq === checkpoint + 1);
    if (from >= 0 && read.at(-1)!.seq >= head) {
      this.db.apply(this.ownKey(), read.slice(from, from + head - checkpoint));
      return this.checkpoint >= head;
    }
    return (await this.reach(head)) >= head;
  }

  /** Applies the log up to `head` (or past it); concurrent calls share one catch-up. */
  private async reach(head: number, progress?: Progress): Promise<number> {
    if (this.verified && this.checkpoint >= head) return this.checkpoint;
    while (this.running) await this.running.catch(() => undefined);
    if (this.verified && this.checkpoint >= head) return this.checkpoint;
    // A span only when there is work: the caught-up path above costs nothing extra.
    this.running = traced(
      SpanName.catchUp,
      { [GenAiAttr.storeId]: this.log.memoryId, [MemledgerAttr.fromSeq]: this.checkpoint + 1 },
      async (span) => {
        const reached = await this.applyUpTo(head, progress);
        span.setAttribute(MemledgerAttr.checkpoint, reached);
        return reached;
      },
    );
    try {
      return await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Applies events this process just appended, when the read models stood right before them:
   * a writer reads its own writes without a catch-up read (a no-op where the store's own
   * transaction already applied them).
   */
  applyOwn(stored: readonly Sequenced[]): void {
    const first = stored[0];
    if (!first || this.checkpoint !== first.seq - 1) return;
    // Read models not yet checked against the log are left to catch-up, unless they are empty
    // and the log starts here (nothing to check).
    if (!this.verified && first.seq !== 0) return;
    this.verified = true;
    this.db.apply(this.ownKey(), stored);
  }

  /** Brings the search index up to the checkpoint (call after a catch-up, before searching). */
  catchUpSearch(): void {
    if (this.mem !== NO_ROWS) this.db.catchUpSearch(this.mem);
  }

  /** True once the checkpoint was checked against the log (see `verify`). */
  get isVerified(): boolean {
    return this.verified;
  }

  /**
   * Inside the store's write transaction (read models in the store's own file): applies what
   * other processes appended since the checkpoint, up to `head`, synchronously. False, applying
   * nothing, when not verified yet or more than one chunk behind (the caller catches up first).
   */
  catchUpWithin(head: number): boolean {
    if (!this.verified) return false;
    const checkpoint = this.checkpoint;
    if (checkpoint >= head) return true;
    if (head - checkpoint > WITHIN_APPEND) return false;
    const mem = this.ownKey();
    const seqs = Array.from({ length: head - checkpoint }, (_, i) => checkpoint + 1 + i);
    const events = this.db.queries.events(mem, seqs);
    if (events.length !== seqs.length) return false;
    this.db.apply(mem, events);
    return this.checkpoint >= head;
  }

  /** Drops this memory's rows and applies the whole log again. */
  async rebuild(progress?: Progress): Promise<number> {
    while (this.running) await this.running.catch(() => undefined);
    if (this.mem !== NO_ROWS) this.db.reset(this.mem);
    this.verified = true;
    const seq = await this.catchUp(progress);
    this.catchUpSearch();
    return seq;
  }

  /** Completes `applied$` and stops listening. */
  stop(): void {
    this.unfollow();
    this.stopListening();
    this.applied.complete();
  }

  private async applyUpTo(head: number, progress?: Progress): Promise<number> {
    if (!this.verified) await this.verify();
    let checkpoint = this.checkpoint;
    while (checkpoint < head) {
      const toSeq = Math.min(head, checkpoint + CHUNK);
      const events: Sequenced[] = [];
      // Every event of the log was validated on its way in: upcast, not validated again.
      for await (const event of this.log.read({ fromSeq: checkpoint + 1, toSeq, trusted: true }))
        events.push(event);
      if (events.length === 0) break;
      this.db.apply(this.ownKey(), events);
      checkpoint = this.checkpoint;
      progress?.(checkpoint + 1, head + 1);
      // Let other work run between chunks of a long rebuild.
      if (checkpoint < head) await new Promise((resolve) => setImmediate(resolve));
    }
    if (checkpoint < head) {
      throw new MemoryError(
        'STORE_FAILED',
        `Read models of memory ${this.log.memoryId} reached seq ${checkpoint}, short of the log's head ${head}.`,
        { details: { memoryId: this.log.memoryId, checkpoint, head } },
      );
    }
    return checkpoint;
  }

  /**
   * A checkpoint is trusted only if the log holds the same event there: read models of another
   * log (a file restored from elsewhere, a stream deleted and written again) are rebuilt.
   */
  private async verify(): Promise<void> {
    const { seq, id } = this.db.checkpoint(this.mem);
    if (seq >= 0) {
      const atCheckpoint = id === null ? undefined : await this.log.get(id);
      if (atCheckpoint?.seq !== seq) this.db.reset(this.mem);
    }
    this.verified = true;
  }

  /** The key, created when the first events are about to be applied. */
  private ownKey(): number {
    if (this.mem === NO_ROWS) this.key = this.db.createKey(this.log.memoryId);
    return this.key;
  }

  /** Emits applied events in seq order, each once; nothing is kept while nobody listens. */
  private emit(events: readonly Sequenced[]): void {
    for (const event of events) {
      if (!this.applied.observed) this.lastEmitted = Math.max(this.lastEmitted, event.seq);
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
            this.applied.error(error);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    })();
  }

  private unfollow(): void {
    this.following?.abort();
    this.following = undefined;
  }
}
