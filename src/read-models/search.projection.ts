/**
 * Search (FTS5, search.read-model.ts) as a projection on the file's runtime that is not applied
 * inline: tokenising never lengthens an append. The runtime's `advance` brings it to the head
 * before every search and recall (`SEARCHED`), so a writer still finds its own writes. It
 * follows the read models: what an item is, and whether an Erasure later destroyed its words,
 * comes from their item index, which is at least as far along (registered first, advanced with
 * it). An Erasure's words also leave the index inline, in the Erasure's own transaction (the
 * read models' writer), so the scrub after it covers them whether search was current or not.
 * Its tables of a layout are named through the runtime like the read models' of the same layout
 * (their queries join), so the two switch layouts together (`switchesWith`).
 */
import type { Sequenced } from '../core/index.js';
import type { ProjectionHandler } from '../store/projection.port.js';
import { NO_ROWS, type ReadModelDb, type ReadModelLayout } from './read-model-db.js';
import { READ_MODELS } from './read-models.name.js';

/** Search's name on the runtime. */
export const SEARCH = 'search';

/**
 * How far search may stand behind the read models over events that are not content (see its
 * checkpoint): a short range scan of their item index decides it.
 */
const LAG_WITHOUT_CONTENT = 256;

/**
 * The name of the vector index's windows (deletions and erasures applied to its rows,
 * src/memory/vector-windows.projection.ts), registered when embeddings are configured.
 */
export const VECTOR_WINDOWS = 'vector-windows';

/**
 * What a search or recall needs current: the read models, search, and the vector windows where
 * they are registered (the runtime skips names it does not hold).
 */
export const SEARCHED: readonly string[] = [READ_MODELS, SEARCH, VECTOR_WINDOWS];

/**
 * The search handler of one layout (read-models.projection.ts makes the projection). Its
 * checkpoint (`search_checkpoint`) is kept in the read models' memories table of the same
 * layout, whose item index it reads.
 */
export function searchHandler(models: ReadModelDb, layout: ReadModelLayout): ProjectionHandler {
  const db = models.database;
  const { rm_memories: memories, rm_items: items } = layout.names;
  const sql = {
    checkpoint: db
      .prepare<[number], number>(`SELECT search_checkpoint FROM ${memories} WHERE mem = ?`)
      .pluck(),
    setCheckpoint: db.prepare<[number, number]>(
      `UPDATE ${memories} SET search_checkpoint = ? WHERE mem = ?`,
    ),
    // Items of a range erased since (their words are gone: never indexed).
    erasedIn: db
      .prepare<[number, number, number], number>(
        `SELECT seq FROM ${items} WHERE mem = ? AND erased_seq IS NOT NULL
            AND seq BETWEEN ? AND ?`,
      )
      .pluck(),
    erasedBy: db
      .prepare<[number, number], number>(
        `SELECT seq FROM ${items} WHERE mem = ? AND erased_seq = ?`,
      )
      .pluck(),
    contentIn: db
      .prepare<[number, number, number], number>(
        `SELECT seq FROM ${items} WHERE mem = ? AND kind < 2 AND seq > ? AND seq <= ?
            AND erased_seq IS NULL LIMIT 1`,
      )
      .pluck(),
    idAt: db
      .prepare<[number, number], string>(`SELECT id FROM ${items} WHERE mem = ? AND seq = ?`)
      .pluck(),
  };
  const key = (memoryId: string) => layout.keyOf(memoryId);
  return {
    /**
     * The last seq indexed, or the read models' checkpoint when no content lies between (up to
     * {@link LAG_WITHOUT_CONTENT} events): events that are not content give search nothing to do
     * (an Erasure's words left inline), so a search after recalls neither reads them nor takes
     * the write lock to move past them.
     */
    checkpoint(memoryId) {
      const mem = key(memoryId);
      if (mem === NO_ROWS) return -1;
      const indexed = sql.checkpoint.get(mem) ?? -1;
      const applied = layout.checkpoint(mem).seq;
      if (applied <= indexed || applied - indexed > LAG_WITHOUT_CONTENT) return indexed;
      return sql.contentIn.get(mem, indexed, applied) === undefined ? applied : indexed;
    },
    apply(memoryId, projected) {
      const last = projected.at(-1)?.event.seq;
      if (last === undefined) return;
      const mem = layout.createKey(memoryId);
      const erased = new Set(sql.erasedIn.all(mem, projected[0]!.event.seq, last));
      // Only `event` is read: a writer's own events come without their stored form.
      for (const one of projected) index(mem, one.event, erased);
      sql.setCheckpoint.run(last, mem);
    },
    reset(memoryId) {
      const mem = key(memoryId);
      if (mem === NO_ROWS) return;
      layout.search.clear(mem);
      sql.setCheckpoint.run(-1, mem);
    },
    /** Made from this log when the read models hold the same event at its checkpoint. */
    agrees(memoryId, atCheckpoint) {
      const mem = key(memoryId);
      return mem !== NO_ROWS && sql.idAt.get(mem, atCheckpoint.event.seq) === atCheckpoint.event.id;
    },
  };

  function index(mem: number, event: Sequenced, erased: ReadonlySet<number>): void {
    if (event.kind === 'message' || event.kind === 'document') {
      if (!erased.has(event.seq)) layout.search.add(mem, event);
    } else if (event.kind === 'erasure') {
      for (const seq of sql.erasedBy.all(mem, event.seq)) layout.search.forget(mem, seq);
    }
  }
}
