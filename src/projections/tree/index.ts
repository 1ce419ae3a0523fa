/**
 * The verifiable log's tree as a projection of the log (src/store/projection.port.ts), the leaf
 * of a stored event, and the tree a file holds, read as it stands.
 */
export { leafHashOfEvent, leafInputOf, leafOf } from './tree-leaf.js';
export {
  TREE_ROWS_TABLE,
  pastHead,
  treeProjection,
  type TreeHandler,
  type TreeProjection,
} from './tree.projection.js';
export { recordedTree } from './tree-recorded.js';
