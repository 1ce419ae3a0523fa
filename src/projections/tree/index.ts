/**
 * The verifiable log's tree as a projection of the log (src/store/projection.port.ts), the leaf
 * of a stored event, and the catch-up that advances it until the projection runner does.
 */
export { leafHashOfEvent, leafInputOf, leafOf } from './tree-leaf.js';
export {
  TREE_ROWS_TABLE,
  pastHead,
  treeProjection,
  type TreeHandler,
  type TreeProjection,
} from './tree.projection.js';
export {
  openCatchUpRuntime,
  recordedTree,
  type ProjectionRuntime,
} from './tree-catch-up.runtime.js';
