/**
 * The vector index: content embedded into sqlite-vec `vec0` tables beside the read models,
 * exact as of any seq, one version per model, following the log under its own checkpoint.
 */
export * from './vector-index.js';
export type { VersionProgress } from './vector-progress.js';
export {
  DEFAULT_QUANTIZATION,
  vectorVersion,
  VECTOR_LAYOUT,
  type Quantization,
  type VectorVersion,
} from './vector-layout.js';
export { defaultProbes } from './vector-cells.js';
export type { VectorHit, VectorSearchOptions } from './vector-search.js';
export type { VectorTable } from './vector-table.js';
export { itemText, contentDigest, unitVector, DEFAULT_MAX_CHARS } from './item-text.js';
export { VectorFollower, type VectorFollowerOptions } from './vector-follower.js';
