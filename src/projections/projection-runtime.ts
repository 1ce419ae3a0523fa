/**
 * The projections of one file, kept current from the log: the one way in for derived data
 * (src/store/projection.port.ts). A projection is registered once; its layout version is
 * recorded in the file, and a projection whose tables are of another version is dropped and
 * rebuilt from the log. Events reach it two ways, both ending at the same rows:
 *
 * - inline, in the store's own file (SQLite): every append's transaction hands its events to
 *   each projection that stood right before them, so a writer reads its own writes;
 * - by catch-up ({@link ProjectionRuntime.advance}, the one verb that moves checkpoints): what the
 *   log holds past a projection's checkpoint is read and applied in chunks, each chunk in one
 *   transaction with the rows it writes. That is how a projection in a file of its own
 *   (EventStoreDB, in-memory) follows, and how any projection catches up with appends it did not
 *   see (a log written by a bare store, another process's older release, a new projection).
 */
import type Database from 'better-sqlite3';
import type { AppendHook, EventLog, MemoryStore } from '../store/event-log.port.js';
import type {
  ProjectedEvent,
  Projection,
  ProjectionContext,
  ProjectionHandler,
} from '../store/projection.port.js';
import { MemoryKeys, ProjectionVersions } from './projection-tables.js';

/**
 * Events applied per transaction while catching up: large, so a rebuild commits (and syncs)
 * rarely; between two chunks other work gets the thread.
 */
const CHUNK = 20_000;

/** The projections of one file (see the module comment). */
export interface ProjectionRuntime {
  /** The connection the projections' tables live on (for their queries). */
  readonly db: Database.Database;
  /** Where they live, for messages. */
  readonly location: string;
  /** Registers a projection before first use; drops its tables when their version is another. */
  register(projection: Projection): void;
  /**
   * Applies everything the memory's log holds now to every registered projection; resolves with
   * the seq reached (-1: an empty log). Concurrent calls for one memory share one catch-up.
   */
  advance(memoryId: string): Promise<number>;
  /** A registered projection's handler, by name, for its queries. */
  handler<H extends ProjectionHandler>(name: string): H | undefined;
  /**
   * Inside a transaction of the store that holds the file: applies an append's events to each
   * projection that stood right before them (the others catch up on their next advance).
   */
  applyInline(memoryId: string, events: readonly ProjectedEvent[]): void;
}

/**
 * Opens the projection runtime of `db`, whose events come from `store`. `inline` registers a
 * hook every append runs in its transaction, where `db` is the store's own file (SQLite); it is
 * called once the first projection is registered, so a file without projections costs appends
 * nothing.
 */
export function openProjectionRuntime(
  db: Database.Database,
  location: string,
  store: Pick<MemoryStore, 'log'>,
  inline?: (hook: AppendHook) => void,
): ProjectionRuntime {
  const versions = new ProjectionVersions(db);
  const keys = new MemoryKeys(db);
  const context: ProjectionContext = {
    db,
    memoryKey: (memoryId) => keys.keyOf(memoryId),
    existingKey: (memoryId) => keys.existing(memoryId),
  };
  const handlers = new Map<string, ProjectionHandler>();
  const running = new Map<string, Promise<number>>();
  /** Memories whose checkpoints were checked against the log in this process. */
  const checked = new Set<string>();
  const applyChunk = db.transaction((memoryId: string, events: readonly ProjectedEvent[]) => {
    for (const handler of handlers.values()) applyFollowing(handler, memoryId, events);
  });

  const catchUp = async (memoryId: string): Promise<number> => {
    const log = store.log(memoryId);
    const head = (await log.lastSeq()) ?? -1;
    if (!checked.has(memoryId)) {
      await checkAgainstLog(db, [...handlers.values()], log, head);
      checked.add(memoryId);
    }
    let from = Math.min(...[...handlers.values()].map((h) => h.checkpoint(memoryId))) + 1;
    while (from <= head) {
      const chunk: ProjectedEvent[] = [];
      const to = Math.min(head, from + CHUNK - 1);
      for await (const projected of log.readProjected({ fromSeq: from, toSeq: to, trusted: true }))
        chunk.push(projected);
      if (chunk.length === 0) break;
      applyChunk.immediate(memoryId, chunk);
      from = chunk.at(-1)!.event.seq + 1;
      // Let other work run between the chunks of a long rebuild.
      if (from <= head) await new Promise((resolve) => setImmediate(resolve));
    }
    return head;
  };

  const runtime: ProjectionRuntime = {
    db,
    location,
    register(projection) {
      if (handlers.has(projection.name)) return;
      if (handlers.size === 0)
        inline?.((memoryId, events) => runtime.applyInline(memoryId, events));
      // A file of the current layout opens without writing (another process may hold the lock).
      const current = () => versions.recorded(projection.name) === projection.version;
      if (!current())
        db.transaction(() => {
          if (current()) return;
          for (const table of projection.tables) dropObject(db, table);
          versions.record(projection.name, projection.version);
        }).immediate();
      handlers.set(projection.name, projection.open(context));
    },
    advance(memoryId) {
      if (handlers.size === 0) return Promise.resolve(-1);
      const shared = running.get(memoryId);
      if (shared) return shared;
      const run = catchUp(memoryId).finally(() => running.delete(memoryId));
      running.set(memoryId, run);
      return run;
    },
    handler: <H extends ProjectionHandler>(name: string) => handlers.get(name) as H | undefined,
    applyInline(memoryId, events) {
      for (const handler of handlers.values()) applyFollowing(handler, memoryId, events);
    },
  };
  return runtime;
}

/**
 * Applies to `handler` the events of `events` that follow its checkpoint, when they do without a
 * gap; a projection further behind is left to its catch-up.
 */
function applyFollowing(
  handler: ProjectionHandler,
  memoryId: string,
  events: readonly ProjectedEvent[],
): void {
  const first = events[0];
  if (first === undefined) return;
  const checkpoint = handler.checkpoint(memoryId);
  const skip = checkpoint + 1 - first.event.seq;
  if (skip < 0 || skip >= events.length) return;
  handler.apply(memoryId, skip === 0 ? events : events.slice(skip));
}

/**
 * Resets each projection whose checkpoint event is not the one the log holds there (or that is
 * past the log's head): it was made from another log.
 */
async function checkAgainstLog(
  db: Database.Database,
  handlers: readonly ProjectionHandler[],
  log: EventLog,
  head: number,
): Promise<void> {
  for (const handler of handlers) {
    const checkpoint = handler.checkpoint(log.memoryId);
    if (checkpoint < 0) continue;
    let atCheckpoint: ProjectedEvent | undefined;
    if (checkpoint <= head)
      for await (const projected of log.readProjected({
        fromSeq: checkpoint,
        toSeq: checkpoint,
        trusted: true,
      }))
        atCheckpoint = projected;
    const agrees =
      atCheckpoint !== undefined && (handler.agrees?.(log.memoryId, atCheckpoint) ?? true);
    if (!agrees) db.transaction(() => handler.reset(log.memoryId)).immediate();
  }
}

/** Drops a table, view or index of the file, whatever it is. */
function dropObject(db: Database.Database, name: string): void {
  const type = db
    .prepare<[string], string>('SELECT type FROM sqlite_schema WHERE name = ?')
    .pluck()
    .get(name);
  if (type === 'table' || type === 'view' || type === 'index' || type === 'trigger')
    db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name.replaceAll('"', '""')}"`);
}
