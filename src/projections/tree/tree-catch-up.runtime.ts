/**
 * Projections advanced by catch-up from the log, with the interface of the projection runner
 * (`register`, `advance`, `handler`, on one SQLite connection): it drives the tree until the
 * runner does. Each `advance` reads the events past a projection's checkpoint with
 * `readProjected` and applies them in write transactions that first re-read the checkpoint, so
 * several processes (or overlapping calls) on one file never apply an event twice.
 */
import type Database from 'better-sqlite3';
import { MemoryError } from '../../core/index.js';
import type { MemoryStore } from '../../store/event-log.port.js';
import type {
  ProjectedEvent,
  Projection,
  ProjectionContext,
  ProjectionHandler,
} from '../../store/projection.port.js';
import { TREE_ROWS_TABLE, treeProjection, type TreeHandler } from './tree.projection.js';

/** Events read and applied per write transaction. */
const BATCH = 2000;

/** Projections of one file, advanced from one store's logs. */
export interface ProjectionRuntime {
  /** The file the projections' tables live on. */
  readonly db: Database.Database;
  /** Opens `projection` on the file (its tables created when missing). */
  register(projection: Projection): void;
  /** Applies everything the log of `memoryId` holds now; the seq reached (-1: empty). */
  advance(memoryId: string): Promise<number>;
  /** The open handler of the projection `name`. */
  handler<H extends ProjectionHandler>(name: string): H | undefined;
}

const MEMORIES_TABLE = `CREATE TABLE IF NOT EXISTS tree_memories (
  key INTEGER PRIMARY KEY,
  memory_id TEXT NOT NULL UNIQUE
) STRICT`;

/**
 * The tree `db` holds for `memoryId`, as it stands (nothing applied, nothing created), or
 * undefined when the file holds none: what a verifier compares the log with.
 */
export function recordedTree(
  db: Database.Database,
  memoryId: string,
): { readonly tree: TreeHandler; readonly memoryId: string } | undefined {
  const has = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name);
  if (!has('tree_memories') || !has(TREE_ROWS_TABLE)) return undefined;
  const key = db
    .prepare<[string], number>('SELECT key FROM tree_memories WHERE memory_id = ?')
    .pluck()
    .get(memoryId);
  if (key === undefined) return undefined;
  return { tree: treeProjection.open({ db, memoryKey: () => key }), memoryId };
}

/** A catch-up runtime for `store`'s logs on `db`. */
export function openCatchUpRuntime(store: MemoryStore, db: Database.Database): ProjectionRuntime {
  db.exec(MEMORIES_TABLE);
  const find = db
    .prepare<[string], number>('SELECT key FROM tree_memories WHERE memory_id = ?')
    .pluck();
  const insert = db.prepare<[string]>('INSERT OR IGNORE INTO tree_memories (memory_id) VALUES (?)');
  const keys = new Map<string, number>();
  const context: ProjectionContext = {
    db,
    memoryKey(memoryId) {
      let key = keys.get(memoryId) ?? find.get(memoryId);
      if (key === undefined) {
        insert.run(memoryId);
        key = find.get(memoryId)!;
      }
      keys.set(memoryId, key);
      return key;
    },
  };
  const handlers = new Map<string, ProjectionHandler>();
  const running = new Map<string, Promise<number>>();

  const advanceOne = async (memoryId: string): Promise<number> => {
    const log = store.log(memoryId);
    const head = (await log.lastSeq()) ?? -1;
    let reached = head;
    for (const handler of handlers.values()) {
      reached = Math.min(reached, await catchUp(db, handler, log, head));
    }
    return reached;
  };

  return {
    db,
    register(projection) {
      if (handlers.has(projection.name)) {
        throw new MemoryError(
          'VALIDATION_FAILED',
          `A projection named ${projection.name} is registered already.`,
        );
      }
      handlers.set(projection.name, projection.open(context));
    },
    advance(memoryId) {
      // Overlapping calls for one memory share one catch-up.
      const found = running.get(memoryId);
      if (found) return found;
      const started = advanceOne(memoryId).finally(() => running.delete(memoryId));
      running.set(memoryId, started);
      return started;
    },
    handler: <H extends ProjectionHandler>(name: string) => handlers.get(name) as H | undefined,
  };
}

/** Brings `handler` up to `head` of `log`; returns its checkpoint then. */
async function catchUp(
  db: Database.Database,
  handler: ProjectionHandler,
  log: ReturnType<MemoryStore['log']>,
  head: number,
): Promise<number> {
  const { memoryId } = log;
  let at = handler.checkpoint(memoryId);
  while (at < head) {
    const batch: ProjectedEvent[] = [];
    const toSeq = Math.min(head, at + BATCH);
    for await (const projected of log.readProjected({ fromSeq: at + 1, toSeq }))
      batch.push(projected);
    if (batch.length === 0) break;
    db.transaction(() => {
      const now = handler.checkpoint(memoryId);
      const fresh = batch.filter((projected) => projected.event.seq > now);
      if (fresh.length > 0) handler.apply(memoryId, fresh);
    }).immediate();
    const next = handler.checkpoint(memoryId);
    if (next <= at) break;
    at = next;
  }
  return at;
}
