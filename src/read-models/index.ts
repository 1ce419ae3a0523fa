/**
 * Read models on disk: visible state, totals, recall statistics, item index and search, in
 * SQLite tables shaped for "as of seq n" queries, kept current by catch-up from the log.
 */
export * from './read-model.types.js';
export * from './read-model-db.js';
export * from './memory-read-model.js';
export * from './read-models.projection.js';
export * from './search.projection.js';
export { resolvePage, type ReadModelQueries } from './read-model.queries.js';
export * from './read-model-layouts.js';
export { READ_MODEL_TABLES, SEARCH_TABLES, type TableNaming } from './read-model.names.js';
export {
  CHUNK_ITEMS,
  collectState,
  streamState,
  type StateChunk,
} from './read-model.whole-state.js';
export type { SearchReadModel } from './search.read-model.js';
export { relativeScores } from './search.read-model.js';
export { rx } from './rx.js';
