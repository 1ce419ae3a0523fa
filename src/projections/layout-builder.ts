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
import { layoutOf, type ProjectionLayouts, type ProjectionVersions } from './projection-tables.js';

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
  let switched: 'here' | 'elsewhere' | undefined;
  try {
    for (;;) {
      await pause(0);
      if (host.closed()) return;
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
  host.switched(build);
  say(
    switched === 'here'
      ? `${subject}: caught up and switched to; layout ${build.from}'s tables are dropped.`
      : `${subject}: another process switched the file to it; served here too.`,
  );
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
    if ((stopped = host.closed())) return undefined;
    const from = chunk[0]!.event.seq;
    apply.immediate(chunk);
    const next = Math.max(handler.checkpoint(memoryId) + 1, chunk.at(-1)!.event.seq + 1);
    build.applied += next - from;
    told?.(next, head + 1);
    return next;
  });
  return !stopped && !host.closed();
}

/**
 * Makes the build the serving layout when, in every memory, it holds at least what the serving
 * one holds: one transaction records it and drops the old tables. False when it is not there
 * yet, or a catch-up of the serving layout runs (it holds the old handler): undefined. Where
 * another process on the file switched already: `elsewhere`.
 */
function trySwitch(
  host: BuildHost,
  build: LayoutBuild,
  ids: readonly string[],
): 'here' | 'elsewhere' | undefined {
  if (host.catchingUp() || host.closed()) return undefined;
  const { db, versions, layouts } = host;
  const { name, version } = build.projection;
  return db
    .transaction(() => {
      const recorded = versions.recorded(name);
      if (recorded === version && layouts.servingSuffix(name) === build.suffix) return 'elsewhere';
      if (recorded !== build.from || layouts.get(name, 'building')?.version !== version)
        throw changedUnder(name, version);
      const serving = host.serving(name);
      for (const memoryId of ids)
        if (build.handler.checkpoint(memoryId) < serving.handler.checkpoint(memoryId))
          return undefined;
      const old = layouts.get(name, 'serving') ?? layoutOf(serving.projection, '');
      for (const table of old.tables) dropObject(db, table);
      versions.record(name, version);
      layouts.set(name, 'serving', layoutOf(build.projection, build.suffix));
      layouts.set(name, 'building', undefined);
      return 'here' as const;
    })
    .immediate();
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
