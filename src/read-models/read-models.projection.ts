/**
 * The read models (items, totals, recall uses, payload copies) as a projection on the file's
 * projection runtime (src/projections/projection-runtime.ts): inline in each append's
 * transaction where they share the store's file, by the runtime's catch-up elsewhere. Their
 * tables keep their own layout version (`rm_meta`, read-model.schema.ts), which drops every
 * table of another layout, names no longer in use included; so the runtime is given none to
 * drop.
 */
import type { Projection, ProjectionHandler } from '../store/projection.port.js';
import { NO_ROWS, type ReadModelDb } from './read-model-db.js';
import { READ_MODEL_VERSION } from './read-model.schema.js';

/** The read models' name on the runtime (for their handler and their `applied` listeners). */
export const READ_MODELS = 'read-models';

/** The read models of `models`' file as a projection. */
export function readModelsProjection(models: ReadModelDb): Projection {
  return {
    name: READ_MODELS,
    version: Number(READ_MODEL_VERSION),
    tables: [],
    // `apply` reads the events alone: a writer's own appends reach it without a stored form.
    readsStoredForm: false,
    open: () => readModelsHandler(models),
  };
}

function readModelsHandler(models: ReadModelDb): ProjectionHandler {
  const mem = (memoryId: string) => models.keyOf(memoryId);
  return {
    checkpoint(memoryId) {
      const key = mem(memoryId);
      return key === NO_ROWS ? -1 : models.checkpoint(key).seq;
    },
    apply(memoryId, events) {
      const applied = models.write(
        models.createKey(memoryId),
        events.map((projected) => projected.event),
      );
      // An erasure dropped words from a file of their own: its old page images are scrubbed
      // once the transaction ended (the store's own file is the store's to scrub).
      if (!models.embedded && applied.some((event) => event.kind === 'erasure'))
        queueMicrotask(() => models.wal.request());
    },
    reset(memoryId) {
      const key = mem(memoryId);
      if (key !== NO_ROWS) models.reset(key);
    },
    /** The read models were made from this log when it holds their checkpoint's event there. */
    agrees(memoryId, atCheckpoint) {
      const key = mem(memoryId);
      return key !== NO_ROWS && models.checkpoint(key).id === atCheckpoint.event.id;
    },
  };
}
