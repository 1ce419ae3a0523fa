/**
 * The read models (items, totals, recall uses, payload copies) and search as projections on the
 * file's projection runtime (src/projections/projection-runtime.ts): the read models inline in
 * each append's transaction where they share the store's file, by the runtime's catch-up
 * elsewhere; search by catch-up before each search (search.projection.ts). Each layout's tables
 * are named through the runtime (`ProjectionContext.table`), so one layout's code serves a
 * file's `rm_items` or the `rm_items__v9` of a layout built beside; the runtime records the
 * layout and drops the tables of the one it replaces. The layouts this release has code for are
 * in read-model-layouts.ts.
 */
import type { ProjectionRuntime } from '../projections/index.js';
import type {
  ProjectedEvent,
  Projection,
  ProjectionContext,
  ProjectionHandler,
} from '../store/projection.port.js';
import { NO_ROWS, type ReadModelDb, type ReadModelLayout } from './read-model-db.js';
import { READ_MODEL_LAYOUT, type ReadModelLayoutCode } from './read-model-layouts.js';
import { READ_MODELS } from './read-models.name.js';
import { SEARCH } from './search.projection.js';

export { READ_MODELS } from './read-models.name.js';

/** The read models' handler: a projection handler, and the layout it reads and writes. */
export interface ReadModelsHandler extends ProjectionHandler {
  readonly layout: ReadModelLayout;
}

/** The read models' and search's projections of one layout (each keeping its `previous`). */
export interface ReadModelProjections {
  readonly readModels: Projection;
  readonly search: Projection;
}

/**
 * The read models and search of `models`' file in layout `code` (this release's by default),
 * with the projections of `code.previous` as their `previous`.
 */
export function readModelProjections(
  models: ReadModelDb,
  code: ReadModelLayoutCode = READ_MODEL_LAYOUT,
): ReadModelProjections {
  const previous = code.previous && readModelProjections(models, code.previous);
  const layoutOf = (context: ProjectionContext) =>
    models.layout(code, context.table?.bind(context));
  return {
    readModels: {
      name: READ_MODELS,
      version: code.version,
      tables: code.tables,
      ...(previous && { previous: previous.readModels }),
      // `apply` reads the events alone: a writer's own appends reach it without a stored form.
      readsStoredForm: false,
      open: (context) => readModelsHandler(models, layoutOf(context)),
    },
    search: {
      name: SEARCH,
      version: code.version,
      tables: code.searchTables,
      ...(previous && { previous: previous.search }),
      // Its queries join the read models' item index of the same layout.
      switchesWith: [READ_MODELS],
      inline: false,
      readsStoredForm: false,
      open: (context) => code.openSearch(models, layoutOf(context)),
    },
  };
}

/** The read models of `models`' file as a projection, in this release's layout. */
export function readModelsProjection(models: ReadModelDb): Projection {
  return readModelProjections(models).readModels;
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
  models.serveFrom(() => runtime.handler<ReadModelsHandler>(READ_MODELS)?.layout);
}

function readModelsHandler(models: ReadModelDb, layout: ReadModelLayout): ReadModelsHandler {
  const mem = (memoryId: string) => layout.keyOf(memoryId);
  /** Applies what follows the checkpoint of `events` (a suffix of them); returns those. */
  const write = (memoryId: string, events: readonly ProjectedEvent[], gap: 'refuse' | 'leave') => {
    const applied = layout.write(
      layout.createKey(memoryId),
      events.map((projected) => projected.event),
      { gap },
    );
    // An erasure dropped words from a file of their own: its old page images are scrubbed
    // once the transaction ended (the store's own file is the store's to scrub).
    if (!models.embedded && applied.some((event) => event.kind === 'erasure'))
      queueMicrotask(() => models.wal.request());
    return applied;
  };
  return {
    layout,
    checkpoint(memoryId) {
      const key = mem(memoryId);
      return key === NO_ROWS ? -1 : layout.checkpoint(key).seq;
    },
    apply(memoryId, events) {
      write(memoryId, events, 'refuse');
    },
    applyNext(memoryId, events) {
      // The writer reads its last row (the checkpoint and the totals after it) either way.
      const applied = write(memoryId, events, 'leave');
      return applied.length === events.length
        ? events
        : events.slice(events.length - applied.length);
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
