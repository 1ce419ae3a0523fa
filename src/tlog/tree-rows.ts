/**
 * How the tree is stored: one row per leaf, `leaf hash || the hashes of the subtrees that leaf
 * completes`. Leaf i completes the subtrees of levels 1..t, t being the number of trailing 1
 * bits of i (i + 1 divisible by 2^t), so node (level k, index j) sits in the row of leaf
 * (j + 1) * 2^k - 1 at byte offset k * 32. Appending a leaf reads at most log2(n) earlier nodes
 * (the tree's right frontier) and never rewrites a row: the tree is as insert-only as the log.
 */
import { MemoryError } from '../core/index.js';
import type { SubtreeSource } from './subtrees.js';
import { nodeHashOf } from './tree-hash.js';

/** Bytes of one hash in a row. */
export const ROW_HASH_BYTES = 32;

/**
 * The hashes of the complete subtrees leaf `index` completes, level 1 up (none for an even
 * index), from its leaf hash and the left siblings `source` holds.
 */
export function completedSubtrees(
  index: number,
  leafHash: Buffer,
  source: SubtreeSource,
): Buffer[] {
  const completed: Buffer[] = [];
  let hash = leafHash;
  let position = index;
  for (let level = 0; position % 2 === 1; level++) {
    hash = nodeHashOf(source.node(level, position - 1), hash);
    completed.push(hash);
    position = (position - 1) / 2;
  }
  return completed;
}

/** The row of leaf `index`: its leaf hash followed by {@link completedSubtrees}. */
export function treeRow(index: number, leafHash: Buffer, source: SubtreeSource): Buffer {
  checkLeafHash(leafHash, index);
  return Buffer.concat([leafHash, ...completedSubtrees(index, leafHash, source)]);
}

/** The row that holds node (`level`, `index`). */
export function rowOfNode(level: number, index: number): number {
  return (index + 1) * 2 ** level - 1;
}

/**
 * The complete subtrees of a tree stored as rows, `rowOf(i)` giving the row of leaf i (or
 * undefined when there is none). A missing or short row is `TREE_NODE_MISSING`.
 */
export function rowSubtrees(rowOf: (leafIndex: number) => Uint8Array | undefined): SubtreeSource {
  return {
    node(level: number, index: number): Buffer {
      const row = rowOfNode(level, index);
      const bytes = rowOf(row);
      const offset = level * ROW_HASH_BYTES;
      if (bytes === undefined || bytes.length < offset + ROW_HASH_BYTES) {
        throw new MemoryError(
          'TREE_NODE_MISSING',
          `The tree has no node at level ${level}, index ${index}: the row of leaf ${row} is ${bytes === undefined ? 'missing' : `${bytes.length} bytes`}.`,
          { details: { level, index, row } },
        );
      }
      return Buffer.from(bytes.buffer, bytes.byteOffset + offset, ROW_HASH_BYTES);
    },
  };
}

/**
 * The rows of leaves `first`, `first + 1`, ... for `leafHashes`, in order: a batch appended in
 * one transaction, each leaf reading the rows before it in the batch as well as `source`.
 */
export function appendRows(
  first: number,
  leafHashes: readonly Buffer[],
  source: SubtreeSource,
): Buffer[] {
  const rows: Buffer[] = [];
  const pending = rowSubtrees((leaf) => rows[leaf - first]);
  const overlay: SubtreeSource = {
    node: (level, index) =>
      rowOfNode(level, index) >= first ? pending.node(level, index) : source.node(level, index),
  };
  for (const [offset, hash] of leafHashes.entries())
    rows.push(treeRow(first + offset, hash, overlay));
  return rows;
}

function checkLeafHash(hash: Buffer, index: number): void {
  if (!Buffer.isBuffer(hash) || hash.length !== ROW_HASH_BYTES) {
    throw new MemoryError('VALIDATION_FAILED', `The leaf hash of leaf ${index} must be 32 bytes.`, {
      details: { index },
      issues: [{ path: 'leafHash', message: 'must be 32 bytes' }],
    });
  }
}
