/**
 * The projections of one file, kept current from the log: the one way in for derived data
 * (src/store/projection.port.ts). A projection is registered once; its layout version is
 * recorded in the file, and a projection whose tables are of another version is dropped and
 * rebuilt from the log. Events reach it three ways, all ending at the same rows:
 *
 * - inline, in the store's own file (SQLite): every append's transaction hands its events to
 *   each inline projection that stood right before them, so a writer reads its own writes;
 * - by catch-up ({@link ProjectionRuntime.advance}, the one verb that moves checkpoints): what the
 *   log holds past a projection's checkpoint is read and applied in chunks, each chunk in one
 *   transaction with the rows it writes. That is how a projection in a file of its own
 *   (EventStoreDB, in-memory) follows, how a projection that is not inline (search) follows,
 *   and how any projection catches up with appends it did not see (a log written by a bare
 *   store, another process, a new projection). `advanceWithin` is the same inside the store's
 *   own transaction, for a writer that must compute at the head it holds the lock on;
 * - a writer's own appends on a store without inline hooks (`applyAppended`), outside any store
 *   transaction, to the projections that stood right before them and need no stored form.
 */
import type Database from 'better-sqlite3';
import type { Sequenced } from '../core/index.js';
import type { EventLog, MemoryStore } from '../store/event-log.port.js';
import type {
  ProjectedEvent,
  Projection,
  ProjectionContext,
  ProjectionHandler,
} from '../store/projection.port.js';
import { GenAiAttr, MemledgerAttr, SpanName } from '../telemetry/semconv.js';
import { traced } from '../telemetry/tracing.js';
import { AppliedListeners, type AppliedListener } from './applied-listeners.js';
import {
  applyEach,
  applyFollowing,
  checkAgainstLog,
  dropObject,
  lowestCheckpoint,
  shortOfHead,
  withoutStored,
  type Applied,
  type Registered,
} from './projection-steps.js';
import { noticedProgress } from './catch-up-notices.js';
import { MemoryKeys, ProjectionVersions } from './projection-tables.js';
import type {
  AdvanceOptions,
  InlineSource,
  Progress,
  ProjectionRuntime,
} from './projection-runtime.types.js';

/**
 * Events applied per transaction while catching up: enough that a rebuild commits rarely, few
 * enough that a chunk's events die young (held by the tens of thousands they outlived the young
 * generation, and the collector's copying cost more than the commits saved); between two chunks
 * other work gets the thread.
 */
export const CATCH_UP_CHUNK = 2048;
/** Most events `advanceWithin` applies inside the caller's transaction (others wait for it). */
const WITHIN = 2000;

/**
 * Opens the projection runtime of `db`, whose events come from `store`. `inline` is given
 * where `db` is the store's own file (SQLite): each inline projection then runs in every
 * append's transaction (a hook of its own, so one that throws rolls back alone).
 */
export function openProjectionRuntime(
  db: Database.Database,
  location: string,
  store: Pick<MemoryStore, 'log'>,
  inline?: InlineSource,
  onNotice?: (notice: string) => void,
): ProjectionRuntime {
  return new FileProjections(db, location, store, inline, onNotice);
}

interface Running {
  readonly run: Promise<number>;
  readonly needed: readonly string[] | undefined;
}

class FileProjections implements ProjectionRuntime {
  private readonly versions: ProjectionVersions;
  private readonly context: ProjectionContext;
  private readonly registered = new Map<string, Registered>();
  /** The catch-up running per memory, and the projections it advances (undefined: all). */
  private readonly running = new Map<string, Running>();
  /** Memories whose checkpoints were checked against the log in this process. */
  private readonly checked = new Set<string>();
  private readonly listeners = new AppliedListeners();
  /** {@link applyEach} in a transaction of its own. */
  private readonly applyTx: (
    to: readonly Registered[],
    memoryId: string,
    events: readonly ProjectedEvent[],
  ) => Applied[];

  constructor(
    readonly db: Database.Database,
    readonly location: string,
    private readonly store: Pick<MemoryStore, 'log'>,
    private readonly inline: InlineSource | undefined,
    /** Where a long catch-up says how it goes (catch-up-notices.ts). */
    private readonly onNotice?: (notice: string) => void,
  ) {
    this.versions = new ProjectionVersions(db);
    const keys = new MemoryKeys(db);
    this.context = {
      db,
      memoryKey: (memoryId) => keys.keyOf(memoryId),
      existingKey: (memoryId) => keys.existing(memoryId),
    };
    const applyTx = db.transaction(applyEach);
    this.applyTx = (to, memoryId, events) => applyTx.immediate(to, memoryId, events);
  }

  register(projection: Projection): void {
    if (this.registered.has(projection.name)) return;
    const { db, versions } = this;
    // A file of the current layout opens without writing (another process may hold the lock).
    const current = () => versions.recorded(projection.name) === projection.version;
    if (!current())
      db.transaction(() => {
        if (current()) return;
        for (const table of projection.tables) dropObject(db, table);
        versions.record(projection.name, projection.version);
      }).immediate();
    const entry = { projection, handler: projection.open(this.context) };
    this.registered.set(projection.name, entry);
    if (this.inline && projection.inline !== false)
      this.inline.onAppend((memoryId, events) => {
        const applied = applyFollowing(entry.handler, memoryId, events);
        this.notifyAfterCommit(memoryId, [{ name: projection.name, applied }]);
      });
  }

  async advance(memoryId: string, options: AdvanceOptions = {}): Promise<number> {
    if (this.registered.size === 0) return -1;
    const { head, needed } = options;
    const already = head === undefined ? undefined : this.atHead(memoryId, head, options);
    if (already !== undefined) return already;
    for (;;) {
      const shared = this.running.get(memoryId);
      if (shared === undefined) return this.share(memoryId, options);
      // One catch-up of a memory at a time: one that advances what this call needs is shared.
      const covers =
        !shared.needed || (needed?.every((name) => shared.needed!.includes(name)) ?? false);
      if (!covers) {
        await shared.run.catch(() => undefined);
        continue;
      }
      await shared.run;
      const reached = lowestCheckpoint(this.among(needed), memoryId);
      if (head === undefined || reached >= head) return reached;
    }
  }

  advanceWithin(memoryId: string, head: number, needed?: readonly string[]): boolean {
    if (!this.inline || !this.checked.has(memoryId)) return false;
    const to = this.among(needed);
    const from = lowestCheckpoint(to, memoryId) + 1;
    if (from > head) return true;
    if (head + 1 - from > WITHIN) return false;
    const events = this.inline.projectedRange(memoryId, from, head);
    if (events.at(-1)?.event.seq !== head) return false;
    this.notifyAfterCommit(memoryId, applyEach(this.all(), memoryId, events));
    return lowestCheckpoint(to, memoryId) >= head;
  }

  applyAppended(memoryId: string, written: readonly Sequenced[]): void {
    const first = written[0];
    if (this.inline || first === undefined) return;
    // Not checked against the log yet: left to catch-up, unless the log starts here and no
    // projection holds rows of it (nothing to check).
    if (!this.checked.has(memoryId)) {
      if (first.seq !== 0 || lowestCheckpoint(this.all(), memoryId) !== -1) return;
      this.checked.add(memoryId);
    }
    // Not to a projection that is not inline: a writer's path never tokenises for search.
    const to = this.all().filter(
      ({ projection }) => projection.readsStoredForm === false && projection.inline !== false,
    );
    this.notify(memoryId, this.applyTx(to, memoryId, written.map(withoutStored)));
  }

  async rebuild(memoryId: string, progress?: Progress): Promise<number> {
    while (this.running.has(memoryId)) await this.running.get(memoryId)!.run.catch(() => undefined);
    this.db
      .transaction(() => {
        for (const { handler } of this.all()) handler.reset(memoryId);
      })
      .immediate();
    this.checked.add(memoryId);
    return this.advance(memoryId, progress ? { progress } : {});
  }

  handler<H extends ProjectionHandler>(name: string): H | undefined {
    return this.registered.get(name)?.handler as H | undefined;
  }

  onApplied(projection: string, memoryId: string, listener: AppliedListener): () => void {
    return this.listeners.add(projection, memoryId, listener);
  }

  private all(): Registered[] {
    return [...this.registered.values()];
  }

  /** The registered projections among `needed` (all of them without it). */
  private among(needed: readonly string[] | undefined): Registered[] {
    const all = this.all();
    return needed ? all.filter(({ projection }) => needed.includes(projection.name)) : all;
  }

  /**
   * Brings the `needed` projections to `head` without reading the log, when they stand there
   * already or `read` covers what they lack; the lowest checkpoint among them, else undefined.
   */
  private atHead(memoryId: string, head: number, options: AdvanceOptions): number | undefined {
    if (!this.checked.has(memoryId)) return undefined;
    const { needed, read = [] } = options;
    const to = this.among(needed);
    const low = lowestCheckpoint(to, memoryId);
    if (low >= head) return low;
    const from = read.findIndex((event) => event.seq === low + 1);
    if (from < 0 || read.at(-1)!.seq < head) return undefined;
    if (to.some(({ projection }) => projection.readsStoredForm !== false)) return undefined;
    const events = read.slice(from, from + head - low).map(withoutStored);
    this.notify(memoryId, this.applyTx(to, memoryId, events));
    const reached = lowestCheckpoint(to, memoryId);
    return reached >= head ? reached : undefined;
  }

  /** One catch-up of a memory, shared with every `advance` it covers while it runs. */
  private share(memoryId: string, options: AdvanceOptions): Promise<number> {
    const log = this.store.log(memoryId);
    const run = this.catchUp(log, options).finally(() => this.running.delete(memoryId));
    this.running.set(memoryId, { run, needed: options.needed });
    return run;
  }

  private async catchUp(log: EventLog, { needed, progress }: AdvanceOptions): Promise<number> {
    const memoryId = log.memoryId;
    const head = (await log.lastSeq()) ?? -1;
    if (!this.checked.has(memoryId)) {
      await checkAgainstLog(this.db, this.all(), log, head);
      this.checked.add(memoryId);
    }
    const to = this.among(needed);
    const from = lowestCheckpoint(to, memoryId) + 1;
    if (from > head) return head;
    // A span only when there is work: the caught-up path costs nothing extra.
    return traced(
      SpanName.catchUp,
      { [GenAiAttr.storeId]: memoryId, [MemledgerAttr.fromSeq]: from },
      async (span) => {
        const names = to.map((registered) => registered.projection.name);
        const told = noticedProgress(this.onNotice, { memoryId, names }, { from, head }, progress);
        await this.applyLog(log, to, { from, head, progress: told });
        const reached = lowestCheckpoint(to, memoryId);
        if (reached < head) throw shortOfHead(memoryId, reached, head);
        span.setAttribute(MemledgerAttr.checkpoint, reached);
        return reached;
      },
    );
  }

  /** Reads `from..head` in chunks and applies each to the projections `to` it follows. */
  private async applyLog(
    log: EventLog,
    to: readonly Registered[],
    range: {
      readonly from: number;
      readonly head: number;
      readonly progress?: Progress | undefined;
    },
  ): Promise<void> {
    const { head, progress } = range;
    for (let from = range.from; from <= head;) {
      const chunk: ProjectedEvent[] = [];
      const toSeq = Math.min(head, from + CATCH_UP_CHUNK - 1);
      for await (const projected of log.readProjected({ fromSeq: from, toSeq, trusted: true }))
        chunk.push(projected);
      if (chunk.length === 0) return;
      this.notify(log.memoryId, this.applyTx(to, log.memoryId, chunk));
      from = chunk.at(-1)!.event.seq + 1;
      progress?.(from, head + 1);
      // Let other work run between the chunks of a long rebuild.
      if (from <= head) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Tells listeners what a committed transaction applied. */
  private notify(memoryId: string, applied: readonly Applied[]): void {
    for (const { name, applied: events } of applied) this.listeners.notify(name, memoryId, events);
  }

  /**
   * Tells listeners what the store's transaction applied once it ended, if it committed (the
   * checkpoints say): a microtask queued inside a synchronous transaction runs after it.
   */
  private notifyAfterCommit(memoryId: string, applied: readonly Applied[]): void {
    for (const { name, applied: events } of applied) {
      const last = events.at(-1)?.event.seq;
      if (last === undefined || !this.listeners.has(name, memoryId)) continue;
      const { handler } = this.registered.get(name)!;
      queueMicrotask(() => {
        try {
          if (handler.checkpoint(memoryId) >= last) this.listeners.notify(name, memoryId, events);
        } catch {
          // Closed meanwhile: nobody is left to tell.
        }
      });
    }
  }
}
