/**
 * The layouts a runtime builds beside serving ones (layout-upgrade.ts), each run by
 * layout-builder.ts: what the runtime hands them besides their own catch-up, and how far they
 * got.
 */
import type Database from 'better-sqlite3';
import type { ProjectedEvent } from '../store/projection.port.js';
import { runBuild, type BuildHost } from './layout-builder.js';
import type { LayoutBuild } from './layout-upgrade.js';
import { applyFollowing } from './projection-steps.js';
import type { LayoutBuildProgress } from './projection-runtime.types.js';

/** What the runtime gives its builds: a {@link BuildHost} that makes a build serve. */
export type BuildOwner = Omit<BuildHost, 'closed' | 'switched' | 'partners'> & {
  /** Makes `build` the serving layout of its projection (after the switch committed). */
  switchTo(build: LayoutBuild): void;
};

/** The builds of one runtime's file. */
export class LayoutBuilds {
  private readonly running = new Map<string, LayoutBuild>();
  /** Builds that switched in this process, as they ended. */
  private readonly switched: LayoutBuildProgress[] = [];
  private stopped = false;

  constructor(private readonly db: Database.Database) {}

  /** Starts building `build` in the background (`host` makes it serve once caught up). */
  start(host: BuildOwner, build: LayoutBuild): void {
    this.running.set(build.projection.name, build);
    // Named one by one: the owner's methods live on its prototype, which a spread leaves out.
    const { db, location, store, versions, layouts, onNotice } = host;
    const run: BuildHost = {
      db,
      location,
      store,
      versions,
      layouts,
      onNotice,
      serving: (name) => host.serving(name),
      catchingUp: () => host.catchingUp(),
      closed: () => this.stopped,
      partners: (of) => this.partnersOf(of),
      switched: (done) => this.ended(host, done),
    };
    void runBuild(run, build);
  }

  /**
   * Serves here each build that another process on the file switched to already (its old
   * tables are gone): checked before queries while builds run.
   */
  adoptSwitched(host: BuildOwner): void {
    for (const build of this.running.values())
      if (host.versions.recorded(build.projection.name) === build.projection.version)
        this.ended(host, build);
  }

  /** The build of projection `name`, if one runs. */
  of(name: string): LayoutBuild | undefined {
    return this.running.get(name);
  }

  /** The builds running that switch with `build` (`Projection.switchesWith`, either way). */
  partnersOf(build: LayoutBuild): LayoutBuild[] {
    const name = build.projection.name;
    const linked = (one: LayoutBuild) =>
      (build.projection.switchesWith?.includes(one.projection.name) ?? false) ||
      (one.projection.switchesWith?.includes(name) ?? false);
    return this.all().filter((one) => one !== build && linked(one));
  }

  /** Every build running. */
  all(): LayoutBuild[] {
    return [...this.running.values()];
  }

  /**
   * Applies to every build the events of a transaction that follow what it holds (so one that
   * caught up stays caught up), inside that transaction.
   */
  feedAll(memoryId: string, events: readonly ProjectedEvent[]): void {
    for (const build of this.running.values()) this.feed(build, memoryId, events);
  }

  /**
   * Applies to one build, in a savepoint of its own: one that fails (events without the stored
   * form it reads) rolls back alone, and its own catch-up reads them from the log later.
   */
  feed(build: LayoutBuild, memoryId: string, events: readonly ProjectedEvent[]): void {
    try {
      this.db.transaction(() => applyFollowing(build.handler, memoryId, events))();
    } catch {
      // Left to the build's own catch-up.
    }
  }

  /** How far each build got, those that switched included. */
  progress(): LayoutBuildProgress[] {
    return [...this.all().map(progressOf), ...this.switched];
  }

  private ended(host: BuildOwner, build: LayoutBuild): void {
    if (this.running.get(build.projection.name) !== build) return;
    this.running.delete(build.projection.name);
    this.switched.push({ ...progressOf(build), applied: build.total, switched: true });
    host.switchTo(build);
  }

  /** Stops every build at its next step. */
  stop(): void {
    this.stopped = true;
  }
}

function progressOf({ projection, from, applied, total }: LayoutBuild): LayoutBuildProgress {
  return {
    projection: projection.name,
    from,
    to: projection.version,
    applied,
    total,
    switched: false,
  };
}
