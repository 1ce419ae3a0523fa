/**
 * The projections of one file, kept current from the log: the one way in for derived data
 * (src/store/projection.port.ts). A projection is registered once; its layout version is
 * recorded in the file. Tables of its `previous` layout go on serving while its own are built
 * beside them (layout-upgrade.ts, layout-builder.ts); tables of any other layout are dropped
 * and rebuilt from the log. Events reach it three ways, all ending at the same rows:
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
import type {
  ProjectedEvent,
  Projection,
  ProjectionContext,
  ProjectionHandler,
} from '../store/projection.port.js';
import { AppliedListeners, type AppliedListener } from './applied-listeners.js';
import { catchUp, CatchUpRuns, type CatchUpParts } from './catch-ups.js';
import { LayoutBuilds } from './layout-builds.js';
import { openLayouts, type LayoutBuild } from './layout-upgrade.js';
import {
  applyEach,
  applyFollowing,
  givesWork,
  lowestCheckpoint,
  withoutStored,
  type Applied,
  type Registered,
} from './projection-steps.js';
import { MemoryKeys, ProjectionLayouts, ProjectionVersions } from './projection-tables.js';
import type {
  AdvanceOptions,
  InlineSource,
  LayoutBuildProgress,
  Progress,
  ProjectionRuntime,
  RuntimeStore,
} from './projection-runtime.types.js';

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
  store: RuntimeStore,
  inline?: InlineSource,
  onNotice?: (notice: string) => void,
): ProjectionRuntime {
  return new FileProjections(db, location, store, inline, onNotice);
}

class FileProjections implements ProjectionRuntime {
  readonly versions: ProjectionVersions;
  readonly layouts: ProjectionLayouts;
  private readonly keys: MemoryKeys;
  private readonly registered = new Map<string, Registered>();
  /** The layouts being built beside serving ones. */
  private readonly builds: LayoutBuilds;
  /** The catch-up running per memory. */
  private readonly runs = new CatchUpRuns();
  /** Memories whose checkpoints were checked against the log in this process. */
  private readonly checked = new Set<string>();
  private readonly listeners = new AppliedListeners();
  /** What a catch-up of this file works with (catch-ups.ts). */
  private readonly catchUpParts: CatchUpParts;
  /** {@link applyEach} in a transaction of its own. */
  private readonly applyTx: (
    to: readonly Registered[],
    memoryId: string,
    events: readonly ProjectedEvent[],
  ) => Applied[];

  constructor(
    readonly db: Database.Database,
    readonly location: string,
    readonly store: RuntimeStore,
    private readonly inline: InlineSource | undefined,
    /** Where a long catch-up says how it goes (catch-up-notices.ts). */
    readonly onNotice: ((notice: string) => void) | undefined,
  ) {
    this.versions = new ProjectionVersions(db);
    this.layouts = new ProjectionLayouts(db);
    this.keys = new MemoryKeys(db);
    this.builds = new LayoutBuilds(db);
    const applyTx = db.transaction(
      (to: readonly Registered[], memoryId: string, events: readonly ProjectedEvent[]) => {
        const applied = applyEach(to, memoryId, events);
        this.builds.feedAll(memoryId, events);
        return applied;
      },
    );
    this.applyTx = (to, memoryId, events) => applyTx.immediate(to, memoryId, events);
    const { checked, listeners, builds } = this;
    this.catchUpParts = { db, inline, listeners, builds, applyTx: this.applyTx, checked, onNotice };
  }

  register(projection: Projection): void {
    const { name } = projection;
    if (this.registered.has(name)) return;
    const opened = openLayouts(this, projection);
    this.registered.set(name, opened.serving);
    if (opened.dropped !== undefined)
      this.onNotice?.(
        `memledger: ${name} in ${this.location}: no code reads its layout ${opened.dropped} any longer, so layout ${projection.version} is rebuilt from the log before it answers (queries wait for it).`,
      );
    if (this.inline && projection.inline !== false)
      this.inline.onAppend((memoryId, events) => {
        const serving = this.registered.get(name)!;
        if (givesWork(serving.projection, events)) {
          const applied = applyFollowing(serving.handler, memoryId, events);
          this.listeners.notifyAfterCommit(memoryId, [{ name, applied }], this.servingHandler);
        }
        const build = this.builds.of(name);
        if (build) this.builds.feed(build, memoryId, events);
      });
    if (opened.build) this.builds.start(this, opened.build);
  }

  /** A context whose tables carry `suffix` (layout-upgrade.ts). */
  context(suffix: string): ProjectionContext {
    const { db, keys } = this;
    return {
      db,
      memoryKey: (memoryId) => keys.keyOf(memoryId),
      existingKey: (memoryId) => keys.existing(memoryId),
      table: (name) => name + suffix,
    };
  }

  serving(name: string): Registered {
    return this.registered.get(name)!;
  }

  private readonly servingHandler = (name: string) => this.serving(name).handler;

  catchingUp(): boolean {
    return this.runs.any();
  }

  switchTo(build: LayoutBuild): void {
    this.registered.set(build.projection.name, build);
  }

  layoutBuilds(): LayoutBuildProgress[] {
    return this.builds.progress();
  }

  close(): void {
    this.builds.stop();
  }

  async advance(memoryId: string, options: AdvanceOptions = {}): Promise<number> {
    if (this.registered.size === 0) return -1;
    this.builds.adoptSwitched(this);
    const { head, needed } = options;
    const already = head === undefined ? undefined : this.atHead(memoryId, head, options);
    if (already !== undefined) return already;
    // Which layouts serve is read when the catch-up applies: one may switch meanwhile.
    const projections = () => ({ all: this.all(), to: this.among(needed) });
    const start = () =>
      catchUp(this.catchUpParts, this.store.log(memoryId), projections, options.progress);
    return this.runs.run(memoryId, options, start, () =>
      lowestCheckpoint(this.among(needed), memoryId),
    );
  }

  advanceWithin(memoryId: string, head: number, needed?: readonly string[]): boolean {
    if (!this.inline || !this.checked.has(memoryId)) return false;
    const to = this.among(needed);
    const from = lowestCheckpoint(to, memoryId) + 1;
    if (from > head) return true;
    if (head + 1 - from > WITHIN) return false;
    const events = this.inline.projectedRange(memoryId, from, head);
    if (events.at(-1)?.event.seq !== head) return false;
    const applied = applyEach(this.all(), memoryId, events);
    this.listeners.notifyAfterCommit(memoryId, applied, this.servingHandler);
    this.builds.feedAll(memoryId, events);
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
    const events = written.map(withoutStored);
    const to = this.all().filter(
      ({ projection }) =>
        projection.readsStoredForm === false &&
        projection.inline !== false &&
        givesWork(projection, events),
    );
    this.listeners.notifyAll(memoryId, this.applyTx(to, memoryId, events));
  }

  async rebuild(memoryId: string, progress?: Progress): Promise<number> {
    await this.runs.settled(memoryId);
    this.db
      .transaction(() => {
        for (const { handler } of [...this.all(), ...this.builds.all()]) handler.reset(memoryId);
      })
      .immediate();
    this.checked.add(memoryId);
    return this.advance(memoryId, progress ? { progress } : {});
  }

  handler<H extends ProjectionHandler>(name: string): H | undefined {
    this.builds.adoptSwitched(this);
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
    this.listeners.notifyAll(memoryId, this.applyTx(to, memoryId, events));
    const reached = lowestCheckpoint(to, memoryId);
    return reached >= head ? reached : undefined;
  }
}
