/**
 * The vector index's bookkeeping that needs no model (src/vectors/vector-sync.ts) as a
 * projection on the read models' runtime: deletions set the `gone` of rows already written,
 * erasures delete an item's vectors and digests. Registered after the read models, whose item
 * index it reads, so it is applied after them in the same transaction: inline in each append's
 * on SQLite (an erased item's vectors leave in the Erasure's own transaction, covered by its
 * scrub), by the runtime's catch-up elsewhere. Embedding stays off the append path, under the
 * index's own checkpoint (src/vectors/vector-follower.ts).
 */
import { NO_ROWS, VECTOR_WINDOWS, type ReadModelDb } from '../read-models/index.js';
import type { Projection, ProjectionHandler } from '../store/projection.port.js';
import type { VectorIndex } from '../vectors/index.js';

/** The vector windows of `index` over `models`' file as a projection. */
export function vectorWindowsProjection(models: ReadModelDb, index: VectorIndex): Projection {
  return {
    name: VECTOR_WINDOWS,
    // The rows' layout is the vector index's own (vector-layout.ts): embedded vectors are never
    // dropped with a projection version, only checked again by digest.
    version: 1,
    tables: [],
    readsStoredForm: false,
    // Only these change a window; its checkpoint reports past every other event.
    handles: ['deletion', 'erasure'],
    open: () => vectorWindowsHandler(models, index),
  };
}

function vectorWindowsHandler(models: ReadModelDb, index: VectorIndex): ProjectionHandler {
  const key = (memoryId: string) => models.keyOf(memoryId);
  return {
    checkpoint(memoryId) {
      const mem = key(memoryId);
      return mem === NO_ROWS ? -1 : index.windowsCheckpoint(mem);
    },
    // The read models applied the same events first: their item index says what changed.
    apply(memoryId) {
      const mem = key(memoryId);
      if (mem !== NO_ROWS) index.applyWindows(mem);
    },
    reset(memoryId) {
      const mem = key(memoryId);
      if (mem !== NO_ROWS) index.reset(mem);
    },
    agrees(memoryId) {
      const mem = key(memoryId);
      return mem === NO_ROWS || index.agrees(mem);
    },
  };
}
