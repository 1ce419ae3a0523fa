/**
 * The read models (items, totals, recall uses, payload copies) as a projection on the file's
 * projection runtime (src/projections/projection-runtime.ts): inline in each append's
 * transaction where they share the store's file, by the runtime's catch-up elsewhere. Each
 * layout's tables are named through the runtime (`ProjectionContext.table`), so the same code
 * serves a file's `rm_items` or the `rm_items__v9` of a layout built beside; the runtime records
 * the layout and drops the tables of the one it replaces. How a layout change keeps the previous
 * layout answering while the new one builds: docs/layout-upgrades.md.
 */
import type { ProjectionRuntime } from '../projections/index.js';
import type { Projection, ProjectionContext, ProjectionHandler } from '../store/projection.port.js';
import { NO_ROWS, type ReadModelDb, type ReadModelLayout } from './read-model-db.js';
import { READ_MODEL_TABLES } from './read-model.names.js';
import { READ_MODEL_VERSION } from './read-model.schema.js';
import { searchProjection } from './search.projection.js';
import { READ_MODELS } from './read-models.name.js';

export { READ_MODELS } from './read-models.name.js';

/** The read models' handler: a projection handler, and the layout it reads and writes. */
export interface ReadModelsHandler extends ProjectionHandler {
  readonly layout: ReadModelLayout;
}

/**
 * What a release's read models are: their projection and search's, at one layout version (a
 * bump keeps the layout before as `previous`: docs/layout-upgrades.md).
 */
export interface ReadModelProjections {
  readonly readModels: Projection;
  readonly search: Projection;
}

/** The read models of `models`' file as a projection, in this release's layout. */
export function readModelsProjection(models: ReadModelDb): Projection {
  return {
    name: READ_MODELS,
    version: Number(READ_MODEL_VERSION),
    tables: READ_MODEL_TABLES,
    // `apply` reads the events alone: a writer's own appends reach it without a stored form.
    readsStoredForm: false,
    open: (context) => readModelsHandler(models, context),
  };
}

/** This release's read models and search on `models`' file. */
export function readModelProjections(models: ReadModelDb): ReadModelProjections {
  return { readModels: readModelsProjection(models), search: searchProjection(models) };
}

/**
 * Registers the read models and search on `runtime` and has `models`' queries answered by the
 * layout the runtime serves (`projections`: this release's by default).
 */
export function registerReadModels(
  runtime: ProjectionRuntime,
  models: ReadModelDb,
  projections: ReadModelProjections = readModelProjections(models),
): void {
  runtime.register(projections.readModels);
  runtime.register(projections.search);
  models.serveFrom(() => runtime.handler<ReadModelsHandler>(READ_MODELS)!.layout);
}

/** The handler of one layout: the runtime names its tables. */
export function readModelsHandler(
  models: ReadModelDb,
  context: ProjectionContext,
): ReadModelsHandler {
  const layout = models.layout(context.table?.bind(context));
  const mem = (memoryId: string) => layout.keyOf(memoryId);
  return {
    layout,
    checkpoint(memoryId) {
      const key = mem(memoryId);
      return key === NO_ROWS ? -1 : layout.checkpoint(key).seq;
    },
    apply(memoryId, events) {
      const applied = layout.write(
        layout.createKey(memoryId),
        events.map((projected) => projected.event),
      );
      // An erasure dropped words from a file of their own: its old page images are scrubbed
      // once the transaction ended (the store's own file is the store's to scrub).
      if (!models.embedded && applied.some((event) => event.kind === 'erasure'))
        queueMicrotask(() => models.wal.request());
    },
    reset(memoryId) {
      const key = mem(memoryId);
      if (key !== NO_ROWS) layout.reset(key);
    },
    /** The read models were made from this log when it holds their checkpoint's event there. */
    agrees(memoryId, atCheckpoint) {
      const key = mem(memoryId);
      return key !== NO_ROWS && layout.checkpoint(key).id === atCheckpoint.event.id;
    },
  };
}
