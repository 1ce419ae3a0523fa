/**
 * Builds a projection's new layout beside the serving one (layout-upgrade.ts), in the
 * background: each memory's log is applied to it in small chunks, one transaction each, giving
 * the thread back between chunks so queries (answered from the serving layout) and appends run
 * on. Every event the serving layout is given meanwhile is given to it too once it has caught
 * up (the runtime feeds builds), so it stays caught up. Once it holds at least what the serving
 * layout holds in every memory, one transaction makes it the serving one and drops the old
 * tables. A build stopped half way (a crash, a close) resumes from its own checkpoints on the
 * next open; a half-built layout never serves.
 */
import type Database from 'better-sqlite3';
import { MemoryError } from '../core/index.js';
import type { EventLog, MemoryStore } from '../store/event-log.port.js';
import type { ProjectedEvent } from '../store/projection.port.js';
import { noticedProgress } from './catch-up-notices.js';
import type { LayoutBuild } from './layout-upgrade.js';
import {
  applyFollowing,
  checkAgainstLog,
  CATCH_UP_CHUNK,
  dropObject,
  eachChunk,
  type Registered,
} from './projection-steps.js';
import {
  layoutOf,
  tablesOf,
  type ProjectionLayouts,
  type ProjectionVersions,
} from './projection-tables.js';

/** Pauses before trying again to switch: the first, and the most (doubling in between). */
const RETRY_MS = 20;
const MOST_RETRY_MS = 1000;

/** What a build needs of the runtime that runs it. */
export interface BuildHost {
  readonly db: Database.Database;
  readonly location: string;
  readonly store: Pick<MemoryStore, 'log' | 'memoryIds'>;
  readonly versions: ProjectionVersions;
  readonly layouts: ProjectionLayouts;
  readonly onNotice: ((notice: string) => void) | undefined;
  /** The layout serving `name` now. */
  serving(name: string): Registered;
  /** Whether a catch-up runs that may hold the serving handler (a switch waits for it). */
  catchingUp(): boolean;
  /** Whether the runtime was closed: the build stops at its next step. */
  closed(): boolean;
  /**
   * The other builds running that must switch with `build` (`Projection.switchesWith`, either
   * way): it switches when they all caught up, in one transaction with them.
   */
  partners(build: LayoutBuild): LayoutBuild[];
  /** Makes `build` the serving layout of its projection (after the switch committed). */
  switched(build: LayoutBuild): void;
}

/**
 * Builds `build` until it serves; resolves when it switched, or stopped (closed, or an error,
 * told to the log: the serving layout goes on answering, and the next open resumes).
 */
export async function runBuild(host: BuildHost, build: LayoutBuild): Promise<void> {
  const { name, version } = build.projection;
  const say = host.onNotice ?? (() => undefined);
  const subject = `memledger: ${name} layout ${version} in ${host.location}`;
  say(
    `${subject}: building it beside layout ${build.from} from the log; queries are answered from layout ${build.from} until it has caught up.`,
  );
  const checked = new Set<string>();
  let wait = RETRY_MS;
  let switched: LayoutBuild[] | 'elsewhere' | undefined;
  try {
    for (;;) {
      await pause(0);
      if (host.closed() || servesNow(host, build)) return;
      const ids = await host.store.memoryIds();
      const heads = await count(host, build, ids);
      for (const [i, memoryId] of ids.entries()) {
        const log = host.store.log(memoryId);
        if (!checked.has(memoryId)) {
          await checkAgainstLog(host.db, [build], log, heads[i]!);
          checked.add(memoryId);
        }
        if (!(await buildMemory(host, build, log, heads[i]!))) return;
      }
      switched = trySwitch(host, build, ids);
      if (switched !== undefined) break;
      await pause(wait);
      wait = Math.min(2 * wait, MOST_RETRY_MS);
    }
  } catch (error) {
    if (host.closed() || !host.db.open) return;
    say(
      `${subject}: the build stopped (${(error as Error).message}); layout ${build.from} goes on answering, and the build resumes when the file is next opened.`,
    );
    return;
  }
  if (switched === 'elsewhere') {
    // Its partners switched in the same transaction there: served here at once too.
    for (const one of [build, ...host.partners(build)])
      if (host.versions.recorded(one.projection.name) === one.projection.version)
        host.switched(one);
    say(`${subject}: another process switched the file to it; served here too.`);
    return;
  }
  for (const one of switched) {
    host.switched(one);
    say(
      `memledger: ${one.projection.name} layout ${one.projection.version} in ${host.location}: caught up and switched to; layout ${one.from}'s tables are dropped.`,
    );
  }
}

/** Whether `build` serves already (a partner's switch made it serve with its own). */
function servesNow(host: BuildHost, build: LayoutBuild): boolean {
  return host.serving(build.projection.name) === build;
}

/** Counts what the build holds and what it must hold; the memories' heads, in `ids`' order. */
async function count(host: BuildHost, build: LayoutBuild, ids: readonly string[]) {
  const heads: number[] = [];
  let applied = 0;
  for (const memoryId of ids) {
    const head = (await host.store.log(memoryId).lastSeq()) ?? -1;
    heads.push(head);
    applied += Math.min(head, build.handler.checkpoint(memoryId)) + 1;
  }
  build.total = heads.reduce((sum, head) => sum + head + 1, 0);
  build.applied = applied;
  return heads;
}

/** Applies one memory's log up to `head` to the build, a chunk at a time; false once closed. */
async function buildMemory(
  host: BuildHost,
  build: LayoutBuild,
  log: EventLog,
  head: number,
): Promise<boolean> {
  const memoryId = log.memoryId;
  const { handler, projection } = build;
  const start = handler.checkpoint(memoryId) + 1;
  const what = { memoryId, names: [`${projection.name} layout ${projection.version}`] };
  const told = noticedProgress(host.onNotice, what, { from: start, head });
  const apply = host.db.transaction((events: readonly ProjectedEvent[]) =>
    applyFollowing(handler, memoryId, events),
  );
  let stopped = false;
  await eachChunk(log, { from: start, head, size: CATCH_UP_CHUNK }, (chunk) => {
    if ((stopped = host.closed() || servesNow(host, build))) return undefined;
    const from = chunk[0]!.event.seq;
    apply.immediate(chunk);
    const next = Math.max(handler.checkpoint(memoryId) + 1, chunk.at(-1)!.event.seq + 1);
    build.applied += next - from;
    told?.(next, head + 1);
    return next;
  });
  return !stopped && !host.closed() && !servesNow(host, build);
}

/**
 * Makes the build (with its partners) the serving layout when, in every memory, each holds at
 * least what the serving one holds: one transaction records them and drops the old tables;
 * resolves with the builds switched. Undefined when they are not there yet, or a catch-up of the
 * serving layouts runs (it holds the old handlers). Where another process on the file switched
 * already: `elsewhere`.
 */
function trySwitch(
  host: BuildHost,
  build: LayoutBuild,
  ids: readonly string[],
): LayoutBuild[] | 'elsewhere' | undefined {
  if (host.catchingUp() || host.closed()) return undefined;
  const { db, versions, layouts } = host;
  const { name, version } = build.projection;
  const group = [build, ...host.partners(build)];
  return db
    .transaction(() => {
      if (versions.recorded(name) === version && layouts.servingSuffix(name) === build.suffix)
        return 'elsewhere';
      for (const one of group) if (!caughtUp(host, one, ids)) return undefined;
      for (const one of group) switchOne(host, one);
      return group;
    })
    .immediate();
}

/** Whether `build` holds at least what its serving layout holds in every memory of `ids`. */
function caughtUp(host: BuildHost, build: LayoutBuild, ids: readonly string[]): boolean {
  const { name, version } = build.projection;
  if (
    host.versions.recorded(name) !== build.from ||
    host.layouts.get(name, 'building')?.version !== version
  )
    throw changedUnder(name, version);
  const serving = host.serving(name);
  return ids.every(
    (memoryId) => build.handler.checkpoint(memoryId) >= serving.handler.checkpoint(memoryId),
  );
}

/** Records `build` as serving and drops the tables of the layout it replaces (in a transaction). */
function switchOne(host: BuildHost, build: LayoutBuild): void {
  const { db, versions, layouts } = host;
  const { name, version } = build.projection;
  const serving = host.serving(name);
  const old = tablesOf(
    layouts.get(name, 'serving'),
    serving.projection,
    layouts.servingSuffix(name),
  );
  for (const table of old) dropObject(db, table);
  versions.record(name, version);
  layouts.set(name, 'serving', layoutOf(build.projection, build.suffix));
  layouts.set(name, 'building', undefined);
}

/** The file's layouts of a projection were changed by another process during a build. */
function changedUnder(name: string, version: number): MemoryError {
  return new MemoryError(
    'STORE_FAILED',
    `The layouts of projection ${name} in this file changed while layout ${version} was built beside them (another process opened it with other code).`,
    { details: { name, version } },
  );
}

/** Waits `ms` (0: the next turn) without keeping the process alive for a background build. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (ms === 0) setImmediate(resolve);
    else setTimeout(resolve, ms).unref();
  });
}
